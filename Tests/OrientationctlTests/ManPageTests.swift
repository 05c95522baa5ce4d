import Arguments
import Foundation
@testable import orientationctl
@testable import orientationd
import Testing

/// The man pages' SYNOPSIS sections are what the programs' option declarations render
/// (the same declarations their --help and parsers come from): a command or option
/// added to a program and not to its man page fails here. Run with
/// ORIENTATIOND_UPDATE_MAN=1 to rewrite the sections from the declarations.
@Suite struct ManPageTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let endMarker = ".\\\" end of the generated SYNOPSIS\n"

    /// The generated part of a man page's SYNOPSIS: after the section's comment lines,
    /// up to the end marker.
    static func generated(in page: String) -> (range: Range<String.Index>, text: String)? {
        guard let section = page.range(of: ".SH SYNOPSIS\n"), let end = page.range(of: endMarker, range: section.upperBound..<page.endIndex)
        else { return nil }
        var start = section.upperBound
        while page[start...].hasPrefix(".\\\" "), !page[start...].hasPrefix(endMarker), let newline = page[start...].firstIndex(of: "\n") {
            start = page.index(after: newline)
        }
        return (start..<end.lowerBound, String(page[start..<end.lowerBound]))
    }

    @Test(arguments: [("man/orientationctl.1", "orientationctl"), ("man/orientationd.8", "orientationd")])
    func manPagesSynopsesAreTheDeclarations(path: String, program: String) throws {
        let expected = program == "orientationctl" ? orientationctl.manPageSynopsis
            : DaemonOptions.command.roffSynopsis
        let file = Self.root + "/" + path
        var page = try String(contentsOfFile: file, encoding: .utf8)
        let found = try #require(Self.generated(in: page), "\(path) has no generated SYNOPSIS between its markers")
        if found.text != expected, ProcessInfo.processInfo.environment["ORIENTATIOND_UPDATE_MAN"] == "1" {
            page.replaceSubrange(found.range, with: expected)
            try page.write(toFile: file, atomically: true, encoding: .utf8)
            return
        }
        #expect(found.text == expected, "\(path): SYNOPSIS differs from the declarations; expected:\n\(expected)")
    }

    /// Every command is in the top-level help and the man page, and every option of every
    /// command is in its usage (the help's first lines), which the man page repeats.
    @Test func everyCommandAndOptionIsListed() throws {
        let help = topLevel.help
        let page = try String(contentsOfFile: Self.root + "/man/orientationctl.1", encoding: .utf8)
        for (command, _, _) in subcommands {
            let name = String(command.name.split(separator: " ").last!)
            #expect(help.contains("\n  " + name), "top-level help lacks \(name)")
            #expect(page.contains(".B " + name + "\n"), "man page lacks \(name)")
            let usage = command.usage().joined(separator: " ")
            for option in command.options where option.key != "--help" {
                #expect(usage.contains(option.key), "\(command.name) usage lacks \(option.key)")
                let roff = option.key.replacingOccurrences(of: "-", with: "\\-")
                #expect(page.contains("\\fB" + roff + "\\fR"), "man page lacks \(command.name) \(option.key)")
            }
        }
        for option in DaemonOptions.command.options where option.key != "--help" {
            #expect(DaemonOptions.command.usage().joined(separator: " ").contains(option.key), "orientationd usage lacks \(option.key)")
        }
    }
}
