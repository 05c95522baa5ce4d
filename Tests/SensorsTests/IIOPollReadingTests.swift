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

    @Test func calibrationOfThreeReadingsMatchesTheArrayForm() {
        let calibration = IIOCalibration(scale: [0.5, 2, 1], offset: [1, 0, -1])
        #expect(calibration.convert(1, 2, 3)! == calibration.convert([1, 2, 3])!)
        #expect(calibration.convert(1, 2, 3)! == (1.0, 4.0, 2.0))
        #expect(calibration.convert(1e12, 0, 0) == nil)
        #expect(calibration.convert(.nan, 0, 0) == nil)
    }
}
