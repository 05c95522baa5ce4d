@testable import Posix
import Testing

@Suite struct LoggerTests {
    /// A debug message is built only when it will be written (`--verbose`): a quiet
    /// daemon's paths never format what nobody reads.
    @Test func debugMessagesAreBuiltOnlyWhenVerbose() {
        var built = 0
        func message() -> String {
            built += 1
            return "a debug line from LoggerTests"
        }
        Logger(program: "logger-test", verbose: false).debug(message())
        #expect(built == 0)
        Logger(program: "logger-test", verbose: true).debug(message())
        #expect(built == 1)
    }

    /// On the journal's stream every line of a message carries its priority: a message
    /// that spans lines is not logged at the stream's default from its second line on.
    @Test func everyLineOfAMessageCarriesItsPriority() {
        let journal = Logger(program: "logger-test", toJournal: true)
        #expect(journal.text(4, "warning", "first\nsecond") == "<4>warning: first\n<4>warning: second\n")
        #expect(journal.text(6, nil, "plain") == "<6>plain\n")
        let plain = Logger(program: "logger-test", toJournal: false)
        #expect(plain.text(4, "warning", "first") == "logger-test: warning: first\n")
    }
}
