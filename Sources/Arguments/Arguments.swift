/// A small declarative command-line layer, in swift-argument-parser's spirit: a command
/// declares its options once (names, value, help, how they combine) and the parser,
/// `--help` with its usage lines, a program's list of commands and the man page's
/// SYNOPSIS all come from that declaration, so they cannot disagree. Commands read what
/// was given through the declarations themselves (`parsed.has(json)`,
/// `try parsed.value(seconds)` typed), never through spellings. Standard library only.
///
/// Accepted forms: `--name`, `-n`, `--name VALUE`, `--name=VALUE`; `--` ends the options;
/// a lone `-` is a positional argument (standard input). Later occurrences of an option
/// come after earlier ones in `Parsed.occurrences`, so "the last one wins" is one call.

/// One option: its spellings, whether it takes a value, and its help.
public struct Option: Sendable, Equatable {
    /// Spellings, the long one last ("-v", "--verbose"); the last is the option's key.
    public let names: [String]
    /// The value's placeholder in the help ("PATH"), or nil for a flag.
    public let value: String?
    /// Help text, already wrapped; its lines are indented under the option.
    public let help: String

    public init(_ names: String..., value: String? = nil, help: String) {
        self.names = names
        self.value = value
        self.help = help
    }

    /// "[--name VALUE]" as a synopsis shows it (the long spelling).
    var synopsisItem: String { key + (value.map { " " + $0 } ?? "") }

    /// Whether this is the help option (left out of synopses: every command has it).
    var isHelp: Bool { key == "--help" }

    public var key: String { names.last ?? "" }

    /// "-v, --verbose" or "--config PATH", as the help shows it.
    var spelling: String { names.joined(separator: ", ") + (value.map { " " + $0 } ?? "") }
}

/// A group of options under a heading in the help ("Options:", "Bus options:"), and
/// how its options combine, which is how the synopsis shows them.
public struct OptionGroup: Sendable {
    public enum Form: Sendable {
        /// Each on its own: [--a] [--b VALUE].
        case each
        /// At most one of them: [--a | --b VALUE] (the parser refuses two).
        case oneOf
        /// Alternatives that override each other: [--a | --b VALUE], the last one given
        /// counts (`Parsed.last(of:)`).
        case lastWins
        /// Exactly one of them: (--a | --b VALUE) (the parser refuses none and two).
        case exactlyOne
    }

    public let title: String
    public let options: [Option]
    public let form: Form
    public init(_ title: String, _ options: [Option], form: Form = .each) {
        self.title = title
        self.options = options
        self.form = form
    }

    /// The group in a synopsis: its items, the help option left out.
    var synopsisItems: [String] {
        let shown = options.filter { !$0.isHelp }
        guard !shown.isEmpty else { return [] }
        switch form {
        case .each: return shown.map { "[" + $0.synopsisItem + "]" }
        case .oneOf, .lastWins: return ["[" + shown.map(\.synopsisItem).joined(separator: " | ") + "]"]
        case .exactlyOne: return ["(" + shown.map(\.synopsisItem).joined(separator: " | ") + ")"]
        }
    }
}

/// An option whose value the command reads as a `T`: declared once with its conversion,
/// which refuses a wrong value as a usage error.
public struct TypedOption<T>: Sendable {
    public let option: Option
    let convert: @Sendable (String) throws(UsageError) -> T

    public init(_ option: Option, convert: @escaping @Sendable (String) throws(UsageError) -> T) {
        self.option = option
        self.convert = convert
    }
}

/// A command: its name, what it does, its options and what follows them.
public struct Command: Sendable {
    /// As it is typed: "orientationctl get", "orientationd".
    public let name: String
    /// One line, for a program's list of its commands.
    public let summary: String
    public let description: String
    public let groups: [OptionGroup]
    public let footer: String
    /// The positional arguments accepted, by their placeholders ("TRACE.csv | -");
    /// at most as many as there are placeholders.
    public let positionals: [String]
    /// Usage lines shown instead of the generated ones: a program whose synopsis is its
    /// commands' ("orientationctl [BUS OPTIONS] COMMAND [OPTIONS]").
    public let usageOverride: [String]

    public init(name: String, summary: String, description: String, groups: [OptionGroup], footer: String = "",
                positionals: [String] = [], usageOverride: [String] = []) {
        self.name = name
        self.summary = summary
        self.description = description
        self.groups = groups
        self.footer = footer
        self.positionals = positionals
        self.usageOverride = usageOverride
    }

    public var options: [Option] { groups.flatMap(\.options) }

    /// The synopsis's items after the name: every option but --help, by group, then the
    /// positionals.
    public var synopsisItems: [String] { groups.flatMap(\.synopsisItems) + positionals }

    /// The usage lines: the name and the synopsis, wrapped at `width` under the first
    /// item.
    public func usage(width: Int = 80) -> [String] {
        var lines: [String] = []
        let indent = String(repeating: " ", count: name.count + 1)
        var line = name
        for item in synopsisItems {
            if line.count + 1 + item.count > width - "Usage: ".count, line != name, line != indent {
                lines.append(line)
                line = indent
            }
            line += (line == indent ? "" : " ") + item
        }
        lines.append(line)
        return lines
    }

    /// The help, man-page style: usage, description, each group with its options in
    /// two columns (spelling, help), then the footer.
    public var help: String {
        var text = ""
        for (index, line) in (usageOverride.isEmpty ? usage() : usageOverride).enumerated() { text += (index == 0 ? "Usage: " : "       ") + line + "\n" }
        if !description.isEmpty { text += "\n" + description + "\n" }
        for group in groups where !group.options.isEmpty {
            text += "\n" + group.title + "\n"
            for option in group.options { text += Self.render(option) }
        }
        if !footer.isEmpty { text += "\n" + footer + "\n" }
        return String(text.dropLast())
    }

    /// The options as a man page lists them: each spelling on its own line at `indent`,
    /// its help below, four columns further in.
    public func manPageOptions(indent: Int = 4) -> String {
        let head = String(repeating: " ", count: indent), body = String(repeating: " ", count: indent + 4)
        var text = ""
        for option in options {
            text += head + option.spelling + "\n"
            for line in option.help.split(separator: "\n", omittingEmptySubsequences: false) {
                text += (line.isEmpty ? "" : body + line) + "\n"
            }
        }
        return text
    }

    /// The man page's SYNOPSIS block for this command (roff, man(7) macros):
    /// .SY NAME, then each item, .YS.
    public var roffSynopsis: String {
        var words = name.split(separator: " ").map(String.init)
        var text = ".SY " + words.removeFirst() + "\n"
        for word in words { text += ".B " + word + "\n" }
        for item in synopsisItems { text += Self.roff(item) + "\n" }
        return text + ".YS\n"
    }

    /// One synopsis item in roff: options bold, placeholders italic, brackets roman,
    /// spaces unbreakable.
    static func roff(_ item: String) -> String {
        var out = ""
        var word = ""
        func flush() {
            guard !word.isEmpty else { return }
            let escaped = String(word.flatMap { $0 == "-" ? ["\\", "-"] : [$0] })
            out += word.hasPrefix("-") ? "\\fB" + escaped + "\\fR" : word == "|" ? "|" : "\\fI" + escaped + "\\fR"
            word = ""
        }
        for character in item {
            switch character {
            case "[", "]", "(", ")":
                flush()
                out.append(character)
            case " ":
                // Unbreakable: an item is wrapped as a whole, never inside its brackets.
                flush()
                out += "\\ "
            default:
                word.append(character)
            }
        }
        flush()
        return out
    }

    /// Column of the help text; longer spellings put it on the next line.
    static let helpColumn = 22

    static func render(_ option: Option) -> String {
        let head = "  " + option.spelling
        let lines = option.help.split(separator: "\n", omittingEmptySubsequences: false)
        let indent = String(repeating: " ", count: helpColumn)
        var text: String
        if head.count + 2 <= helpColumn {
            text = head + String(repeating: " ", count: helpColumn - head.count) + (lines.first.map(String.init) ?? "") + "\n"
        } else {
            text = head + "\n" + indent + (lines.first.map(String.init) ?? "") + "\n"
        }
        for line in lines.dropFirst() { text += (line.isEmpty ? "" : indent + line) + "\n" }
        return text
    }

    /// Parses `arguments` against the declared options.
    public func parse(_ arguments: [String]) throws(UsageError) -> Parsed {
        var parsed = try parseOptions(arguments)
        parsed.declared = options
        guard !parsed.occurrences.contains(where: { $0.key == Self.helpKey }) else { return parsed }
        for group in groups where group.form == .oneOf || group.form == .exactlyOne {
            let keys = group.options.map(\.key)
            let given = Set(parsed.occurrences.map(\.key)).intersection(keys)
            if given.count > 1 { throw UsageError("choose one of " + Parsed.list(keys)) }
            if given.isEmpty, group.form == .exactlyOne {
                throw UsageError("\(name.split(separator: " ").last ?? "") needs " + Parsed.list(group.options.map(\.synopsisItem), or: true))
            }
        }
        return parsed
    }

    static let helpKey = "--help"

    private func parseOptions(_ arguments: [String]) throws(UsageError) -> Parsed {
        var parsed = Parsed()
        var rest = arguments[...]
        var onlyPositionals = false
        while let argument = rest.popFirst() {
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                guard parsed.positionals.count < positionals.count else {
                    throw UsageError("unexpected argument '\(argument)'")
                }
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            guard let option = options.first(where: { $0.names.contains(name) }) else {
                throw UsageError("unknown option '\(name)'")
            }
            if option.value == nil {
                guard inline == nil else { throw UsageError("option \(name) takes no value") }
                parsed.occurrences.append((option.key, nil))
            } else {
                guard let value = inline ?? rest.popFirst() else { throw UsageError("option \(name) needs a value") }
                parsed.occurrences.append((option.key, value))
            }
        }
        return parsed
    }
}

/// What a command line said, in order, read through the options' declarations.
public struct Parsed: Sendable {
    /// Each option given, by key (its long name), with its value; in command-line order.
    var occurrences: [(key: String, value: String?)] = []
    public internal(set) var positionals: [String] = []
    /// The command's options (asking about another one is a programmer error).
    var declared: [Option] = []

    init() {}

    private func check(_ option: Option) {
        precondition(declared.isEmpty || declared.contains(option), "\(option.key) is not an option of this command")
    }

    /// Whether `option` was given.
    public func has(_ option: Option) -> Bool {
        check(option)
        return occurrences.contains { $0.key == option.key }
    }

    /// The last value given for `option`.
    public func value(_ option: Option) -> String? {
        check(option)
        return occurrences.last { $0.key == option.key }?.value
    }

    /// The last value given for `option`, converted; a wrong value is a usage error.
    public func value<T>(_ option: TypedOption<T>) throws(UsageError) -> T? {
        guard let text = value(option.option) else { return nil }
        return try option.convert(text)
    }

    /// Of several options that override each other, the one given last, with its value.
    public func last(of options: [Option]) -> (option: Option, value: String?)? {
        for option in options { check(option) }
        guard let occurrence = occurrences.last(where: { occurrence in options.contains { $0.key == occurrence.key } }),
              let option = options.first(where: { $0.key == occurrence.key }) else { return nil }
        return (option, occurrence.value)
    }

    static func list(_ keys: [String], or: Bool = false) -> String {
        keys.count <= 1 ? keys.joined() : keys.dropLast().joined(separator: ", ") + (or ? " or " : " and ") + keys.last!
    }
}

/// A usage error: one line for standard error, exit status 2.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
