@_spi(Testing) import DBus
import Foundation
import Glibc
import OrientationClient
import OrientationEngine
@_spi(Testing) import Posix
import Testing
import TestSupport

/// The Swift client library against the real daemon, including a daemon restart.
@Suite struct ClientLibraryTests {
    @Test func eventsArriveWillChangeFirstAndTheClientReattachesAfterARestart() throws {
        let (fixture, peer) = try DaemonFixture.upright()

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

    /// An app started before the daemon: without waitForService that is an error; with
    /// it the client starts detached, keeps what start() and setSupported asked for, and
    /// attaches (started, with the set) when the daemon appears. The lock is followed.
    @Test func waitForServiceAttachesWhenTheDaemonAppears() throws {
        let bus = try TestBus()
        #expect(throws: OrientationClient.Error.self) { try OrientationClient(bus: .address(bus.address)) }
        let loop = try EventLoop()
        let client = try OrientationClient(bus: .address(bus.address), loop: loop, waitForService: true)
        #expect(!client.isAttached)
        var events: [OrientationClient.Event] = []
        client.onEvent = { events.append($0) }
        try client.start()
        try client.setSupported([.normal, .rightUp], preferred: .rightUp)
        let fifo = bus.directory + "/samples.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = open(fifo, O_RDWR | O_CLOEXEC)
        defer { close(writer) }
        _ = "0,0,-9.81,0\n".withCString { write(writer, $0, strlen($0)) }
        let daemon = try ChildProcess(product: "orientationd", arguments: ["--address", bus.address, "--sensor", "replay:" + fifo],
                                      directory: bus.directory)
        #expect(loop.run(until: MonotonicClock.milliseconds() + 10_000) { !events.contains { if case .attached = $0 { true } else { false } } },
                "\(daemon.stderr)")
        #expect(client.isAttached && client.state.active)
        #expect(client.state.supported == [.normal, .rightUp])
        #expect(client.state.preferred == .rightUp)
        #expect(client.state.deviceOrientation == .normal)
        #expect(!client.state.rotationLocked)
        client.setRotationLocked(true)
        #expect(loop.run(until: MonotonicClock.milliseconds() + 10_000) { !events.contains(.lockChanged(true)) })
        #expect(client.state.rotationLocked)
        client.close()
    }

    /// A second daemon on the same bus, its replay sensor holding `line`.
    static func restartDaemon(_ fixture: DaemonFixture, holding line: String) throws -> (ChildProcess, Int32) {
        fixture.daemon.signal(SIGTERM)
        #expect(fixture.daemon.waitForExit() == 0)
        let fifo = fixture.bus.directory + "/samples-\(UUID().uuidString.prefix(6)).fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = open(fifo, O_RDWR | O_CLOEXEC)
        _ = line.withCString { write(writer, $0, strlen($0)) }
        let second = try ChildProcess(product: "orientationd", arguments: ["--address", fixture.bus.address, "--sensor", "replay:" + fifo],
                                      directory: fixture.bus.directory)
        return (second, writer)
    }

    /// Another main loop (here: plain poll(2), as a GLib or Qt loop would watch it) drives
    /// the client through its descriptor and dispatch(), on the test's own thread.
    @Test func foreignMainLoopDrivesTheClientThroughItsDescriptor() throws {
        let (fixture, peer) = try DaemonFixture.upright()
        let client = try OrientationClient(bus: .address(fixture.bus.address), configuration: .init(supported: [.normal]))
        var events: [OrientationClient.Event] = []
        client.onEvent = { events.append($0) }
        try client.start()
        func pump(until done: () -> Bool) -> Bool {
            let deadline = MonotonicClock.milliseconds() + 10_000
            while !done() {
                let left = deadline - MonotonicClock.milliseconds()
                if left <= 0 { return false }
                var entry = pollfd(fd: client.descriptor, events: Int16(POLLIN), revents: 0)
                if poll(&entry, 1, Int32(left)) > 0 { client.dispatch() }
            }
            return true
        }
        fixture.hold(.leftUp, durationMs: 1500)
        #expect(pump { client.state.contentRotation == 90 })
        let will = events.firstIndex(of: .willChange(from: .normal, to: .normal, contentRotation: 90))
        let changed = events.firstIndex { if case .changed(let s) = $0 { s.contentRotation == 90 } else { false } }
        #expect(will != nil && changed != nil && will! < changed!, "\(events)")

        let (second, writer) = try Self.restartDaemon(fixture, holding: "0,0,9.81,0\n")
        defer { close(writer) }
        #expect(pump { events.contains { if case .attached = $0 { true } else { false } } }, "daemon stderr:\n\(second.stderr)")
        #expect(events.contains(.serviceLost))
        #expect(client.state.active)
        #expect(try peer.managerProperty("ActiveClients") == .uint32(1))
        client.close()
    }

    /// Swift concurrency: connect, start and iterate events with for-await; the client
    /// re-attaches after a restart; cancelling the iterating task closes it.
    @Test func asyncClientStreamsEventsAndClosesWhenCancelled() async throws {
        let (fixture, peer) = try DaemonFixture.upright()
        let client = try await AsyncOrientationClient.connect(bus: .address(fixture.bus.address),
                                                              configuration: .init(supported: [.normal, .bottomUp]))
        try await client.start()
        #expect(await client.state.active)
        // The iterating task passes every event on; the test reacts to them here.
        let (relayed, relay) = AsyncStream.makeStream(of: OrientationClient.Event.self)
        let iterating = Task {
            for await event in client.events { relay.yield(event) }
            relay.finish()
        }
        fixture.hold(.bottomUp, durationMs: 1500)
        var seen: [OrientationClient.Event] = []
        var writer: Int32 = -1
        var second: ChildProcess?
        defer { if writer >= 0 { close(writer) } }
        for await event in relayed {
            seen.append(event)
            if case .changed(let s) = event, s.interfaceOrientation == .bottomUp, second == nil {
                (second, writer) = try Self.restartDaemon(fixture, holding: "0,0,-9.81,0\n")
            }
            if case .attached = event { break }
        }
        #expect(seen.contains(.willChange(from: .normal, to: .bottomUp, contentRotation: 0)), "\(seen)")
        #expect(seen.contains(.serviceLost))
        #expect(try peer.managerProperty("ActiveClients") == .uint32(1))
        // Cancelling the task that iterates closes the client.
        iterating.cancel()
        await iterating.value
        #expect(peer.waitUntil { (try? peer.managerProperty("ActiveClients")) == .uint32(0) })
        #expect(await client.objectPath == nil)
        await #expect(throws: (any Error).self) { try await client.start() }
    }
}
