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

    /// An unknown engine key says where the keys are listed, or the key it misspells;
    /// not the whole list of them on one line.
    @Test func unknownEngineKeyPointsToTheKeys() {
        for (text, hint) in [("[Engine]\nNoSuchKey=1\n", "unknown key in [Engine] ('orientationctl replay --help' lists the keys)"),
                             ("[Engine]\norientationsettlems=90\n", "unknown key in [Engine] (did you mean OrientationSettleMs?)")] {
            guard case .failure(let error) = Configuration.parse(text, source: "test.conf") else {
                Issue.record("accepted: \(text)")
                continue
            }
            #expect(error.description.hasSuffix(hint), "\(error)")
            #expect(!error.description.contains("GravityFilterMs"), "\(error)")
        }
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

    /// A file of random bytes (or a binary file given by mistake) is named as not text at
    /// its first such line. Whatever the bytes, the message holds nothing a terminal acts
    /// on: no control character, no format character (a bidirectional override, a
    /// zero-width one), no line or paragraph separator, no replacement character. (Random
    /// bytes sometimes begin with a short line of real text, "mž", which is quoted.)
    static func harmlessOnATerminal(_ scalar: Unicode.Scalar) -> Bool {
        let category = scalar.properties.generalCategory
        return scalar.value >= 0x20 && !(0x7f..<0xa0).contains(scalar.value) && scalar != "\u{FFFD}"
            && category != .format && category != .lineSeparator && category != .paragraphSeparator
    }

    /// Text in a line is quoted in any script, but what moves or hides the rest of the line
    /// on a terminal is escaped: a right-to-left override, a zero-width space, a line
    /// separator.
    @Test func quotedTextCannotReorderTheTerminal() throws {
        let text = "[Engine]\nGröße\u{202E}1=\u{200B}x\u{2028}\n"
        guard case .failure(let error) = Configuration.parse(text, source: "u.conf") else {
            Issue.record("accepted")
            return
        }
        let description = error.description
        #expect(description.contains("Größe"), "\(description)")
        #expect(description.unicodeScalars.allSatisfy(Self.harmlessOnATerminal), "\(description)")
        #expect(description.contains("\\x202e"), "\(description)")
    }

    @Test func binaryFileIsNamedNotQuoted() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let bytes = (0..<300).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = String(decoding: bytes, as: UTF8.self)
            guard case .failure(let error) = Configuration.parse(text, source: "random.conf") else {
                Issue.record("random bytes accepted")
                continue
            }
            let description = error.description
            #expect(description.unicodeScalars.allSatisfy(Self.harmlessOnATerminal), "\(description)")
        }
        let binary = "[Engine]\nTiltFilterMs=100\n\u{7f}ELF\u{2}\u{1}\n"
        guard case .failure(let error) = Configuration.parse(binary, source: "x.conf") else {
            Issue.record("binary accepted")
            return
        }
        #expect(error.description == "x.conf:3: not a text file: the line holds the control character U+007F")
        let notUTF8 = String(decoding: [0x5b, 0xff, 0x5d, 0x0a], as: UTF8.self)
        #expect(throws: ConfigurationError.self) { try Configuration.parse(notUTF8, source: "y.conf").get() }
        #expect((try? Configuration.parse(notUTF8, source: "y.conf").get()) == nil)
        if case .failure(let error) = Configuration.parse(notUTF8, source: "y.conf") {
            #expect(error.description == "y.conf:1: not a text file: the line holds bytes that are not UTF-8")
        }
        // Tabs and carriage returns (a file edited on Windows) are text.
        #expect((try? Configuration.parse("[Engine]\r\n\tTiltFilterMs = 100\r\n", source: "z.conf").get()) != nil)
    }
}
