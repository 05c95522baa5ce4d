import Foundation
import Glibc
@_spi(Testing) import Posix
import Testing
@_spi(Testing) @testable import DBus
import TestSupport

extension TestBus {
    /// A new connection to this bus (retrying briefly while the daemon finishes starting).
    func connect() throws -> Connection {
        let deadline = MonotonicClock.milliseconds() + 10_000
        while true {
            do {
                return try Connection.open(.address(address))
            } catch {
                if MonotonicClock.milliseconds() > deadline { throw error }
                usleep(10_000)
            }
        }
    }
}

/// Waits on `loop` until `condition` is false; records an issue on timeout.
@discardableResult
func wait(on loop: EventLoop, timeoutMs: Int64 = 10_000, _ what: String = "condition",
          sourceLocation: SourceLocation = #_sourceLocation, while condition: () -> Bool) -> Bool {
    let met = loop.run(until: MonotonicClock.milliseconds() + timeoutMs, while: condition)
    if !met { Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation) }
    return met
}

/// A method call made with callAsync, run to completion on `loop`.
func call(_ connection: Connection, on loop: EventLoop, _ message: Message,
          sourceLocation: SourceLocation = #_sourceLocation) -> Result<Message, BusError> {
    var result: Result<Message, BusError>?
    connection.callAsync(message, timeoutMs: 10_000) { result = $0 }
    wait(on: loop, "a reply", sourceLocation: sourceLocation) { result == nil }
    return result ?? .failure(.failed("timed out"))
}

/// An event loop running on its own thread until `stop()`; `setup` runs on that thread
/// and returns what must stay alive while it runs (connections, object trees).
final class LoopThread: @unchecked Sendable {
    private let stopPipe: (read: FileDescriptor, write: FileDescriptor)
    private let started = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private var setupError: (any Error)?

    init(_ setup: @escaping @Sendable (EventLoop) throws -> AnyObject) throws {
        stopPipe = try FileDescriptor.pipe()
        let stopFD = stopPipe.read.rawValue
        let thread = Thread { [self] in
            do {
                let loop = try EventLoop()
                let keepAlive = try setup(loop)
                var stopping = false
                try loop.add(fd: stopFD, events: .readable) { _ in stopping = true }
                started.signal()
                _ = loop.run(until: .max) { !stopping }
                loop.remove(fd: stopFD)
                withExtendedLifetime(keepAlive) {}
            } catch {
                setupError = error
                started.signal()
            }
            finished.signal()
        }
        thread.start()
        guard started.wait(timeout: .now() + 20) == .success else { throw BusError.failed("loop thread did not start") }
        if let setupError { throw setupError }
    }

    func stop() {
        try? stopPipe.write.writeAll("q")
        _ = finished.wait(timeout: .now() + 20)
    }
}

/// Holds objects for as long as a LoopThread runs.
final class KeepAlive {
    let objects: [AnyObject]
    init(_ objects: [AnyObject]) { self.objects = objects }
}
