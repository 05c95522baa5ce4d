/// A small declarative command-line layer, in swift-argument-parser's spirit: a command
/// declares its options once (names, value, help) and both the parser and `--help` come
/// from that declaration, so they cannot disagree. Standard library only.
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

    public var key: String { names.last ?? "" }

    /// "-v, --verbose" or "--config PATH", as the help shows it.
    var spelling: String { names.joined(separator: ", ") + (value.map { " " + $0 } ?? "") }
}

/// A group of options under a heading in the help ("Options:", "Bus options:").
public struct OptionGroup: Sendable {
    public let title: String
    public let options: [Option]
    public init(_ title: String, _ options: [Option]) {
        self.title = title
        self.options = options
    }
}

/// A command: its usage lines, what it does, its options and what follows them.
public struct Command: Sendable {
    public let usage: [String]
    public let description: String
    public let groups: [OptionGroup]
    public let footer: String
    /// Whether positional arguments are accepted (`maximum` of them; 0: none).
    public let positionals: Int

    public init(usage: [String], description: String, groups: [OptionGroup], footer: String = "", positionals: Int = 0) {
        self.usage = usage
        self.description = description
        self.groups = groups
        self.footer = footer
        self.positionals = positionals
    }

    public var options: [Option] { groups.flatMap(\.options) }

    /// The help, man-page style: usage, description, each group with its options in
    /// two columns (spelling, help), then the footer.
    public var help: String {
        var text = ""
        for (index, line) in usage.enumerated() { text += (index == 0 ? "Usage: " : "       ") + line + "\n" }
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
        var parsed = Parsed()
        var rest = arguments[...]
        var onlyPositionals = false
        while let argument = rest.popFirst() {
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                guard parsed.positionals.count < positionals else {
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

/// What a command line said, in order.
public struct Parsed: Sendable {
    /// Each option given, by key (its long name), with its value; in command-line order.
    public var occurrences: [(key: String, value: String?)] = []
    public var positionals: [String] = []

    public init() {}

    public func has(_ key: String) -> Bool { occurrences.contains { $0.key == key } }

    /// The last value given for `key`.
    public func value(_ key: String) -> String? { occurrences.last { $0.key == key }?.value }

    /// Of several mutually overriding options, the one given last.
    public func last(of keys: [String]) -> (key: String, value: String?)? { occurrences.last { keys.contains($0.key) } }

    /// Of mutually exclusive options, the one given; an error when more than one kind was.
    public func exclusive(_ keys: [String]) throws(UsageError) -> (key: String, value: String?)? {
        let given = Set(occurrences.map(\.key)).intersection(keys)
        guard given.count <= 1 else { throw UsageError("choose one of " + Self.list(keys)) }
        return occurrences.first { keys.contains($0.key) }
    }

    static func list(_ keys: [String]) -> String {
        keys.count <= 1 ? keys.joined() : keys.dropLast().joined(separator: ", ") + " and " + keys.last!
    }
}

/// A usage error: one line for standard error, exit status 2.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
