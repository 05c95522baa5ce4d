@testable import Sensors
import Testing

/// The pure parts of the facade's light, proximity and compass sources.
@Suite struct AuxiliaryParsingTests {
    /// Whether each of `values`, read in turn, is near a level of 100.
    static func nearness(_ values: [Double]) -> [Bool] {
        var threshold = ProximityThreshold(nearLevel: 100)
        return values.map { threshold.isNear($0) }
    }

    @Test func aSteadyProximityIsNearExactlyAboveItsLevel() {
        // iio-sensor-proxy's rule, which devices' tuned levels assume: held steady, 101 is
        // near and 100 is far, whichever side the readings came from.
        #expect(Self.nearness([0, 101, 101]) == [false, false, true])
        #expect(Self.nearness([500, 100, 100]) == [true, true, false])
    }

    @Test func aProximityThatHasJustCrossedWaitsAReadingUnlessPastTheMargin() {
        // The first reading counts from far: near only above 110 %. After a reading above
        // the level, near down to 90 %. Far past the margin flips at once, both ways.
        #expect(Self.nearness([105, 105, 95, 95, 89]) == [false, true, true, false, false])
        #expect(Self.nearness([111, 89, 111]) == [true, false, true])
    }

    @Test func theNearLevelIsUdevsElseTheDevicesAttribute() {
        #expect(IIOProximitySensor.nearLevel(property: "50", attribute: "128").map { $0 } == .success(50))
        #expect(IIOProximitySensor.nearLevel(property: nil, attribute: "128\n").map { $0 } == .success(128))
        // An unusable property gives way to the attribute (iio-sensor-proxy reads a 0 as unset).
        #expect(IIOProximitySensor.nearLevel(property: "0", attribute: "128").map { $0 } == .success(128))
        guard case .failure(let bad) = IIOProximitySensor.nearLevel(property: "abc", attribute: nil),
              case .failure(let none) = IIOProximitySensor.nearLevel(property: nil, attribute: nil) else {
            Issue.record("an unusable near level was used"); return
        }
        #expect(bad.message.contains("the near level \"abc\" (udev property PROXIMITY_NEAR_LEVEL) is not a positive number"))
        #expect(none.message.contains("no near level"))
    }

    @Test(arguments: [("(51,102)", 40.0), ("(255,0)", 100.0), ("(0,0)", 0.0), (" (10,20)\n", 20.0 / 255 * 100)])
    func hwmonLightIsTheBrighterSideAsAPercentage(text: String, level: Double) {
        #expect(HwmonLightSensor.parse(text).map { abs($0 - level) < 1e-9 } == true)
    }

    @Test(arguments: ["", "51,102", "(51)", "(a,b)", "(1,2,3)", "(1,2"])
    func hwmonLightRejectsWhatIsNotAPair(text: String) {
        #expect(HwmonLightSensor.parse(text) == nil)
    }

    @Test func lightLevelsThatAreNotOneAreErrors() {
        #expect(IIOLightSensor.lightReading(12.5, unit: .lux, name: "als") == .success(.light(12.5, .lux)))
        for bad in [-1.0, .nan, .infinity] {
            if case .success = IIOLightSensor.lightReading(bad, unit: .lux, name: "als") { Issue.record("\(bad) accepted") }
        }
    }

    @Test func switchBitmapsAreReadAsTheKernelWritesThem() {
        // SW_FRONT_PROXIMITY is bit 11; the last word holds the lowest bits.
        #expect(EvdevProximitySensor.hasSwitch("800", 0x0b))
        #expect(EvdevProximitySensor.hasSwitch("1 801", 0x0b))
        #expect(!EvdevProximitySensor.hasSwitch("1", 0x0b))
        #expect(!EvdevProximitySensor.hasSwitch("800 0", 0x0b))
        #expect(!EvdevProximitySensor.hasSwitch("zz", 0x0b))
    }
}

/// The scale and offset of a facade sensor's channel.
@Suite struct IIOChannelCalibrationTests {
    static func read(_ attributes: [String: String], _ channel: String) -> Result<IIOChannelCalibration, SensorError> {
        IIOChannelCalibration.read({ attributes[$0] }, channel: channel)
    }

    @Test func theChannelsOwnAttributesWinOverTheTypesShared() {
        #expect(Self.read(["in_illuminance0_scale": "0.5", "in_illuminance_scale": "2", "in_illuminance_offset": "-3"], "in_illuminance0")
                == .success(IIOChannelCalibration(scale: 0.5, offset: -3)))
        #expect(Self.read(["in_rot_scale": "0.1"], "in_rot_from_north_magnetic_tilt_comp") == .success(IIOChannelCalibration(scale: 0.1)))
        #expect(Self.read([:], "in_intensity_both") == .success(IIOChannelCalibration()))
    }

    @Test(arguments: ["0", "-1", "abc", "inf"])
    func aScaleThatIsNotOneIsAnError(scale: String) {
        guard case .failure(let error) = Self.read(["in_illuminance_scale": scale], "in_illuminance") else {
            Issue.record("scale \(scale) accepted")
            return
        }
        #expect(error.message.contains("in_illuminance_scale"))
    }
}
