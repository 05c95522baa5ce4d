@testable import Sensors
import Testing

/// The polling backend's fast path for raw readings agrees with SysfsNumber wherever it
/// answers, and leaves everything else to it.
@Suite struct IIOPollReadingTests {
    static func fast(_ text: String) -> Double? {
        Array(text.utf8).withUnsafeBytes { IIOPollSensor.parseRawInteger($0) }
    }

    @Test func plainIntegersAreParsedDirectly() {
        for text in ["0\n", "-1000\n", "1000", "32767\n", "-32768\n", "999999999999999\n", "-7\n\0", "00012\n"] {
            #expect(Self.fast(text) != nil, "\(text.debugDescription)")
            #expect(Self.fast(text) == SysfsNumber.parseDouble(String(text.filter { $0 != "\0" })),
                    "\(text.debugDescription)")
        }
    }

    @Test func everythingElseGoesToTheGeneralParser() {
        for text in ["", "\n", "-", "-\n", "+5\n", " 5\n", "5 \n", "1.5\n", "1e3\n", "0x3e8\n", "nan\n", "inf\n", "12abc\n",
                     "1,5\n", "9999999999999999\n", "99999999999999999999\n", "--1\n", "1-\n"] {
            #expect(Self.fast(text) == nil, "\(text.debugDescription)")
        }
    }

    /// A reading read again at once: one whose length is more than a quarter away from
    /// the last tick's (squared lengths given). Rotations keep the length; a reading
    /// with one axis new and one old (x = 1 g written, y = 1 g not yet cleared) is √2.
    @Test func aLengthJumpAsksForASecondReading() {
        let g2 = 9.81 * 9.81
        #expect(!IIOPollSensor.lengthJumped(fromSquared: g2, toSquared: g2))
        #expect(!IIOPollSensor.lengthJumped(fromSquared: g2, toSquared: g2 * 1.2 * 1.2))
        #expect(!IIOPollSensor.lengthJumped(fromSquared: g2, toSquared: g2 * 0.8 * 0.8))
        #expect(IIOPollSensor.lengthJumped(fromSquared: g2, toSquared: 2 * g2))
        #expect(IIOPollSensor.lengthJumped(fromSquared: g2, toSquared: 0.5 * g2))
        #expect(IIOPollSensor.lengthJumped(fromSquared: g2, toSquared: 0))
        // No last length to judge by (a zero vector before): nothing to compare.
        #expect(!IIOPollSensor.lengthJumped(fromSquared: 0, toSquared: g2))
        // Scale-free: a sensor that reads ×1000 jumps as the same.
        #expect(IIOPollSensor.lengthJumped(fromSquared: 1e6 * g2, toSquared: 2e6 * g2))
    }

    @Test func calibrationOfThreeReadingsMatchesTheArrayForm() {
        let calibration = IIOCalibration(scale: [0.5, 2, 1], offset: [1, 0, -1])
        #expect(calibration.convert(1, 2, 3)! == calibration.convert([1, 2, 3])!)
        #expect(calibration.convert(1, 2, 3)! == (1.0, 4.0, 2.0))
        #expect(calibration.convert(1e12, 0, 0) == nil)
        #expect(calibration.convert(.nan, 0, 0) == nil)
    }
}
