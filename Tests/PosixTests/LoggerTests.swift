import Posix
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
}
