import Arguments
import Testing

/// The command-line layer: the forms it accepts, the errors it gives, the help, usage and
/// man-page synopsis it renders from one declaration, and typed values.
@Suite struct ArgumentsTests {
    static let verbose = Option("-v", "--verbose", help: "Say more.")
    static let config = Option("--config", value: "PATH", help: "Read PATH.\nA second line.")
    static let long = Option("--a-very-long-option-name", value: "VALUE", help: "Goes on the next line.")
    static let count = TypedOption<Int>(Option("--count", value: "N", help: "How many.")) { text throws(UsageError) in
        guard let n = Int(text), n > 0 else { throw UsageError("option --count needs a whole number above 0") }
        return n
    }
    let command = Command(
        name: "tool", summary: "Does a thing.", description: "Does a thing.",
        groups: [OptionGroup("Options:", [verbose, config, long, count.option])],
        footer: "Exit status: 0.", positionals: ["FILE"])

    @Test func flagsValuesAndPositionals() throws {
        let parsed = try command.parse(["-v", "--config", "a.conf", "file.csv", "--config=b.conf", "--count", "3"])
        #expect(parsed.has(Self.verbose))
        #expect(parsed.value(Self.config) == "b.conf")
        #expect(try parsed.value(Self.count) == 3)
        #expect(parsed.positionals == ["file.csv"])
        #expect(!parsed.has(Self.long))
    }

    /// A typed option's conversion refuses a wrong value as a usage error.
    @Test func typedValuesAreConvertedOrRefused() throws {
        let parsed = try command.parse(["--count", "none"])
        #expect(throws: UsageError("option --count needs a whole number above 0")) { try parsed.value(Self.count) }
        #expect(try command.parse([]).value(Self.count) == nil)
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

    /// How a group's options combine is declared with it, checked by the parser and
    /// shown by the synopsis.
    @Test func groupForms() throws {
        let a = Option("--a"), b = Option("--b"), c = Option("--c", value: "X"), d = Option("--d"), e = Option("--e")
        let tool = Command(name: "tool go", summary: "", description: "", groups: [
            OptionGroup("", [a, b], form: .exactlyOne), OptionGroup("", [c, d], form: .lastWins), OptionGroup("", [e], form: .oneOf),
        ])
        #expect(tool.synopsisItems == ["(--a | --b)", "[--c X | --d]", "[--e]"])
        let parsed = try tool.parse(["--a", "--c", "1", "--d"])
        #expect(parsed.last(of: [c, d])?.option == d)
        #expect(throws: UsageError("choose one of --a and --b")) { try tool.parse(["--a", "--b"]) }
        #expect(throws: UsageError("go needs --a or --b")) { try tool.parse(["--e"]) }
        // --help is answered whatever else is missing.
        let help = Option("-h", "--help", help: "")
        let withHelp = Command(name: "tool", summary: "", description: "", groups: [OptionGroup("", [a, b, help], form: .exactlyOne)])
        #expect(try withHelp.parse(["--help"]).has(help))
        #expect(withHelp.synopsisItems == ["(--a | --b)"])
    }

    @Test func helpComesFromTheDeclaration() {
        #expect(command.help == """
            Usage: tool [--verbose] [--config PATH] [--a-very-long-option-name VALUE]
                        [--count N] FILE

            Does a thing.

            Options:
              -v, --verbose       Say more.
              --config PATH       Read PATH.
                                  A second line.
              --a-very-long-option-name VALUE
                                  Goes on the next line.
              --count N           How many.

            Exit status: 0.
            """)
        #expect(command.manPageOptions().hasPrefix("    -v, --verbose\n        Say more.\n    --config PATH\n"))
    }

    /// The man page's SYNOPSIS in roff, from the same declaration.
    @Test func roffSynopsis() {
        let tool = Command(name: "tool run", summary: "", description: "",
                           groups: [OptionGroup("", [Self.config, Option("--dry-run")])], positionals: ["FILE | -"])
        #expect(tool.roffSynopsis == """
            .SY tool
            .B run
            [\\fB\\-\\-config\\fR\\ \\fIPATH\\fR]
            [\\fB\\-\\-dry\\-run\\fR]
            \\fIFILE\\fR\\ |\\ \\fB\\-\\fR
            .YS

            """)
    }
}

extension Option {
    init(_ name: String, value: String? = nil) { self.init(name, value: value, help: "") }
}
