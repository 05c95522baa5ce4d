@testable import Sensors
import Testing

/// The pure parts of the facade's light, proximity and compass sources.
@Suite struct AuxiliaryParsingTests {
    @Test func proximityHasHysteresisAroundItsNearLevel() {
        let threshold = ProximityThreshold(nearLevel: 100)
        // Far: near only above 110 % of the level.
        #expect(!threshold.isNear(105, wasNear: false))
        #expect(threshold.isNear(111, wasNear: false))
        // Near: far again only below 90 %.
        #expect(threshold.isNear(95, wasNear: true))
        #expect(!threshold.isNear(89, wasNear: true))
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
