import Foundation
import Glibc
import TestSupport
import Testing

/// `--sensor replay:-` with standard input as a user may give it.
@Suite struct ReplayStandardInputTests {
    /// A file redirected in (`orientationd --sensor replay:- < trace.csv`) is a recording,
    /// played at the pace of its timestamps as `replay:PATH` plays it. (epoll cannot watch
    /// a file: the daemon stopped at start with "cannot watch standard input".)
    @Test func aFileRedirectedInIsPlayedAsARecording() throws {
        let bus = try TestBus()
        let path = bus.directory + "/turn.csv"
        var text = ""
        for t in stride(from: 0, to: 4000, by: 20) { text += t < 2000 ? "\(t),0,-9.81,0\n" : "\(t),-9.81,0,0\n" }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let daemon = try ChildProcess(product: "orientationd", arguments: ["--address", bus.address, "--sensor", "replay:-"],
                                      directory: bus.directory, stdin: FileHandle(forReadingAtPath: path))
        let peer = try Peer.withStartedClient(on: bus, daemon: daemon)
        #expect(try peer.managerProperty("SensorName") == .string("Replay of standard input"))
        // Upright for its first two seconds, then turned: the turn is played, not the
        // whole file at once.
        #expect(peer.waitUntil(seconds: 10) { peer.orientationWillChanges().contains { $0.hasSuffix("right-up") } }, "stderr:\n\(daemon.stderr)")
        #expect(peer.orientationWillChanges() == ["\(Peer.manager) OrientationWillChange normal,right-up"], "\(peer.orientationWillChanges())")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// Standard input that epoll cannot watch for lines (/dev/null) is one clear line at
    /// start and exit status 1.
    @Test func standardInputThatCannotBeWatchedIsAClearError() throws {
        let bus = try TestBus()
        let daemon = try ChildProcess(product: "orientationd", arguments: ["--address", bus.address, "--sensor", "replay:-"],
                                      directory: bus.directory, stdin: FileHandle(forReadingAtPath: "/dev/null"))
        #expect(daemon.waitForExit() == 1)
        #expect(daemon.stderr.contains("cannot watch standard input for lines: it is not a pipe, a FIFO, a terminal or a file"),
                "\(daemon.stderr)")
    }
}
