import Arguments
import Testing

/// The command-line layer: the forms it accepts, the errors it gives, the help it renders.
@Suite struct ArgumentsTests {
    let command = Command(
        usage: ["tool [OPTIONS] [FILE]"], description: "Does a thing.",
        groups: [OptionGroup("Options:", [
            Option("-v", "--verbose", help: "Say more."),
            Option("--config", value: "PATH", help: "Read PATH.\nA second line."),
            Option("--a-very-long-option-name", value: "VALUE", help: "Goes on the next line."),
        ])],
        footer: "Exit status: 0.", positionals: 1)

    @Test func flagsValuesAndPositionals() throws {
        let parsed = try command.parse(["-v", "--config", "a.conf", "file.csv", "--config=b.conf"])
        #expect(parsed.has("--verbose"))
        #expect(parsed.value("--config") == "b.conf")
        #expect(parsed.positionals == ["file.csv"])
        #expect(!parsed.has("--a-very-long-option-name"))
    }

    @Test func aLoneDashAndDoubleDash() throws {
        #expect(try command.parse(["-"]).positionals == ["-"])
        #expect(try command.parse(["--", "--verbose"]).positionals == ["--verbose"])
    }

    @Test(arguments: [
        (["--bogus"], "unknown option '--bogus'"),
        (["--config"], "option --config needs a value"),
        (["--verbose=yes"], "option --verbose takes no value"),
        (["a", "b"], "unexpected argument 'b'"),
    ])
    func errors(arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { try command.parse(arguments) }
    }

    @Test func lastAndExclusive() throws {
        let parsed = try Command(usage: [], description: "", groups: [OptionGroup("", [Option("--a"), Option("--b"), Option("--c", value: "X")])])
            .parse(["--a", "--c", "1", "--b"])
        #expect(parsed.last(of: ["--a", "--b"])?.key == "--b")
        #expect(throws: UsageError("choose one of --a and --b")) { try parsed.exclusive(["--a", "--b"]) }
        #expect(try parsed.exclusive(["--c"])?.value == "1")
    }

    @Test func helpComesFromTheDeclaration() {
        #expect(command.help == """
            Usage: tool [OPTIONS] [FILE]

            Does a thing.

            Options:
              -v, --verbose       Say more.
              --config PATH       Read PATH.
                                  A second line.
              --a-very-long-option-name VALUE
                                  Goes on the next line.

            Exit status: 0.
            """)
        #expect(command.manPageOptions().hasPrefix("    -v, --verbose\n        Say more.\n    --config PATH\n"))
    }
}

extension Option {
    init(_ name: String, value: String? = nil) { self.init(name, value: value, help: "") }
}
