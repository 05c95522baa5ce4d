import DBus
import OrientationEngine
import Service
import Testing
import OrientationAPI

/// CreateClient's options: defaults, valid values, and each rejection with its message.
@Suite struct ClientOptionsTests {
    @Test func emptyOptionsGiveTheDefaults() throws {
        let options = try ClientOptions.decode(.vardict([]))
        #expect(options.supported == Orientation.defined)
        #expect(options.preferred == .normal)
        #expect(options.followsLock)
    }

    @Test func allOptions() throws {
        let options = try ClientOptions.decode(.vardict([
            ("SupportedOrientations", .strings(["bottom-up", "left-up"])),
            ("PreferredOrientation", .string("left-up")),
            ("FollowsLock", .bool(false)),
        ]))
        #expect(options.supported == [.bottomUp, .leftUp])
        #expect(options.preferred == .leftUp)
        #expect(!options.followsLock)
    }

    @Test func emptyPreferredMeansFirstInContractOrder() throws {
        let options = try ClientOptions.decode(.vardict([("SupportedOrientations", .strings(["right-up", "bottom-up"])),
                                                         ("PreferredOrientation", .string(""))]))
        #expect(options.preferred == .bottomUp)
        #expect(options.supported == [.rightUp, .bottomUp])
    }

    @Test(arguments: [
        ([("Bogus", Value.bool(true))], "unknown option 'Bogus'"),
        ([("SupportedOrientations", .string("normal"))], "SupportedOrientations must be of type 'as'"),
        ([("SupportedOrientations", .array(elementSignature: "i", [.int32(1)]))], "SupportedOrientations must be of type 'as'"),
        ([("SupportedOrientations", .strings([]))], "empty"),
        ([("SupportedOrientations", .strings(["normal", "sideways"]))], "unknown orientation 'sideways'"),
        ([("SupportedOrientations", .strings(["undefined"]))], "unknown orientation 'undefined'"),
        ([("SupportedOrientations", .strings(["normal", "normal"]))], "listed twice"),
        ([("PreferredOrientation", .uint32(0))], "PreferredOrientation must be of type 's'"),
        ([("PreferredOrientation", .string("upside"))], "unknown preferred orientation 'upside'"),
        ([("SupportedOrientations", .strings(["normal"])), ("PreferredOrientation", .string("left-up"))], "not among the supported"),
        ([("FollowsLock", .string("yes"))], "FollowsLock must be of type 'b'"),
        ([("FollowsLock", .bool(true)), ("FollowsLock", .bool(false))], "given twice"),
    ] as [([(String, Value)], String)])
    func rejections(options: [(String, Value)], message: String) {
        #expect {
            try ClientOptions.decode(.vardict(options))
        } throws: { error in
            guard let error = error as? BusError else { return false }
            return error.name == "org.freedesktop.DBus.Error.InvalidArgs" && error.message.contains(message)
        }
    }

    @Test func notADictionary() {
        #expect(throws: BusError.self) { try ClientOptions.decode(.strings(["normal"])) }
    }
}
