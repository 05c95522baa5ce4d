import DBus
import Foundation
import Glibc
import OrientationClient
import OrientationEngine
import Posix
import Testing

/// The Swift client library against the real daemon, including a daemon restart.
@Suite struct ClientLibraryTests {
    @Test func eventsArriveWillChangeFirstAndTheClientReattachesAfterARestart() throws {
        let fixture = try DaemonFixture()
        let peer = try fixture.peer()
        fixture.hold(.normal, durationMs: 300)
        #expect(fixture.drained())

        let loop = try EventLoop()
        let client = try OrientationClient(bus: .address(fixture.bus.address), loop: loop,
                                           configuration: .init(supported: [.normal, .bottomUp], preferred: .normal))
        var events: [OrientationClient.Event] = []
        client.onEvent = { events.append($0) }
        try client.start()
        #expect(client.state.active)
        #expect(client.state.interfaceOrientation == .normal)

        fixture.hold(.bottomUp, durationMs: 1500)
        let deadline = { MonotonicClock.milliseconds() + 10_000 }
        #expect(loop.run(until: deadline()) { client.state.interfaceOrientation != .bottomUp })
        let will = events.firstIndex(of: .willChange(from: .normal, to: .bottomUp, contentRotation: 0))
        let changed = events.firstIndex { if case .changed(let s) = $0 { s.interfaceOrientation == .bottomUp } else { false } }
        #expect(will != nil && changed != nil && will! < changed!)

        // Restart the daemon on the same bus: the client notices, then re-attaches by itself.
        fixture.daemon.signal(SIGTERM)
        #expect(fixture.daemon.waitForExit() == 0)
        #expect(loop.run(until: deadline()) { !events.contains(.serviceLost) })
        let fifo2 = fixture.bus.directory + "/samples2.fifo"
        #expect(mkfifo(fifo2, 0o600) == 0)
        let writer = open(fifo2, O_RDWR | O_CLOEXEC)
        defer { close(writer) }
        let line = "0,0,9.81,0\n"
        _ = line.withCString { write(writer, $0, strlen($0)) }
        let second = try ChildProcess(product: "orientationd", arguments: ["--address", fixture.bus.address, "--sensor", "replay:" + fifo2],
                                      directory: fixture.bus.directory)
        #expect(loop.run(until: deadline()) { !events.contains { if case .attached = $0 { true } else { false } } },
                "no re-attach; daemon stderr:\n\(second.stderr)")
        #expect(client.state.active)
        #expect(client.objectPath != nil)
        // The re-created client was started again: the new daemon counts it.
        #expect(try peer.managerProperty("ActiveClients") == .uint32(1))
        #expect(client.state.deviceOrientation == .bottomUp)
        client.close()
    }
}
