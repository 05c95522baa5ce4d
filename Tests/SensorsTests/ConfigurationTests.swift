import OrientationEngine
import Sensors
import Testing

@Suite struct ConfigurationTests {
    let device = DeviceDescription(syspath: "/sys/devices/x/iio:device0", sysname: "iio:device0", subsystem: "iio",
                                   devnode: nil, properties: ["MODALIAS": "platform:cros-ec-accel"],
                                   attributes: ["name": "accel_3d"])

    @Test func parsesEveryKey() throws {
        let text = """
            # comment
            ; another
            [Engine]
            OrientationSettleMs = 150
            [Sensor]
            PollIntervalMs=50
            BufferSilenceMs=500
            LaptopModeSuppression=true
            Gyroscope=off

            [Sensor accel_*]
            MountMatrix=0, 1, 0; -1, 0, 0; 0, 0, 1
            [Sensor platform:other]
            MountMatrix=-1,0,0;0,-1,0;0,0,1
            """
        let config = try Configuration.parse(text).get()
        #expect(config.tunables.orientationSettleMs == 150)
        #expect(config.pollIntervalMs == 50 && config.bufferSilenceMs == 500 && config.laptopModeSuppression)
        #expect(!Configuration().laptopModeSuppression)
        #expect(!config.gyroscope && !config.settings(for: device).gyroscope)
        #expect(Configuration().gyroscope && Configuration().settings(for: device).gyroscope)
        #expect(try Configuration.parse("[Sensor]\nGyroscope = AUTO\n").get().gyroscope)
        #expect(TabletModeSwitch.hasTabletModeBit("2") && TabletModeSwitch.hasTabletModeBit("1 3") && !TabletModeSwitch.hasTabletModeBit("1"))
        let settings = config.settings(for: device)
        #expect(settings.pollIntervalMs == 50)
        #expect(settings.mountMatrixOverride?.rows[0] == [0, 1, 0])
        #expect(Configuration().settings(for: device).mountMatrixOverride == nil)
    }

    @Test func matchesByModaliasAndKernelName() throws {
        let byModalias = try Configuration.parse("[Sensor platform:cros-ec-*]\nMountMatrix=-1,0,0;0,-1,0;0,0,1\n").get()
        #expect(byModalias.settings(for: device).mountMatrixOverride?.rows[0] == [-1, 0, 0])
        let bySysname = try Configuration.parse("[Sensor iio:device0]\nMountMatrix=-1,0,0;0,-1,0;0,0,1\n").get()
        #expect(bySysname.settings(for: device).mountMatrixOverride != nil)
        let other = try Configuration.parse("[Sensor gyro]\nMountMatrix=-1,0,0;0,-1,0;0,0,1\n").get()
        #expect(other.settings(for: device).mountMatrixOverride == nil)
    }

    @Test(arguments: [
        ("[Engine]\nNoSuchKey=1\n", 2, "NoSuchKey"),
        ("[Engine]\nOrientationSettleMs=abc\n", 2, "OrientationSettleMs"),
        ("[Sensor]\nPollIntervalMs=0\n", 2, "PollIntervalMs"),
        ("[Sensor]\nPollIntervalMs=1.5\n", 2, "PollIntervalMs"),
        ("[Sensor]\nBufferSilenceMs=\n", 2, "BufferSilenceMs"),
        ("[Sensor]\nFoo=1\n", 2, "Foo"),
        ("[Sensor]\nLaptopModeSuppression=maybe\n", 2, "LaptopModeSuppression"),
        ("[Sensor]\nGyroscope=on\n", 2, "Gyroscope"),
        ("\n\n[Sensor x]\nMountMatrix=1,0;0,1\n", 4, "MountMatrix"),
        ("[Sensor x]\nColour=blue\n", 2, "Colour"),
        ("PollIntervalMs=100\n", 1, "PollIntervalMs"),
        ("[Sensor]\nPollIntervalMs=100\nPollIntervalMs=200\n", 3, "PollIntervalMs"),
    ])
    func rejectsNamingLineAndKey(text: String, line: Int, key: String) {
        guard case .failure(let error) = Configuration.parse(text, source: "test.conf") else {
            Issue.record("accepted: \(text)")
            return
        }
        #expect(error.line == line && error.key == key, "\(error)")
        #expect(error.description.hasPrefix("test.conf:\(line): \(key): "))
    }

    @Test(arguments: ["[Bogus]\n", "[Engine\n", "[Sensor]\njust text\n", "[]\n", "[Engine]\n[Engine]\n", "[Sensor]\n=5\n"])
    func rejectsMalformedStructure(text: String) {
        guard case .failure(let error) = Configuration.parse(text) else {
            Issue.record("accepted: \(text)")
            return
        }
        #expect(error.line != nil)
    }

    @Test func missingDefaultFileIsTheDefaults() throws {
        #expect(try Configuration.load(path: "/nonexistent/orientationd.conf", optional: true).get() == Configuration())
        #expect(throws: ConfigurationError.self) { try Configuration.load(path: "/nonexistent/orientationd.conf", optional: false).get() }
    }
}
