import DBus
import Dispatch
import OrientationAPI

/// `OrientationClient` for Swift concurrency: `async` requests and an `AsyncSequence` of
/// events, usable from a plain `@main` async program, with no `EventLoop` in sight.
///
/// ```swift
/// let client = try await AsyncOrientationClient.connect(bus: .system,
///                                                       configuration: .init(supported: [.normal]))
/// try await client.start()
/// for await event in client.events {
///     if case .willChange(_, _, let rotation) = event { await rotateIcons(by: rotation) }
/// }
/// ```
///
/// The underlying client lives on a private serial dispatch queue, which also watches its
/// descriptor; every request hops onto that queue, so the calling task never blocks a
/// thread of the cooperative pool. `events` has one consumer. Cancelling the task that
/// iterates it closes the client, as does `close()` (which also ends the iteration);
/// breaking out of the loop does not, so call `close()` then. After the daemon
/// restarts, the client re-attaches by itself and `.attached` arrives in `events`.
public final class AsyncOrientationClient: @unchecked Sendable {
    // Touched only on `queue`: that is what makes the type safe to share.
    private let queue: DispatchQueue
    private let client: OrientationClient
    private let source: DispatchSourceRead
    private var closed = false
    private let continuation: AsyncStream<OrientationClient.Event>.Continuation

    /// Every event, in the order the daemon sent them.
    public let events: AsyncStream<OrientationClient.Event>

    private init(queue: DispatchQueue, client: OrientationClient) {
        self.queue = queue
        self.client = client
        (events, continuation) = AsyncStream.makeStream(of: OrientationClient.Event.self, bufferingPolicy: .unbounded)
        source = DispatchSource.makeReadSource(fileDescriptor: client.descriptor, queue: queue)
        let continuation = self.continuation
        client.onEvent = { continuation.yield($0) }
        source.setEventHandler { [weak client] in client?.dispatch() }
        source.activate()
        continuation.onTermination = { [weak self] _ in self?.close() }
    }

    /// Connects, creates the client object and reads its state (throws `BusError` when
    /// the bus or the daemon cannot be reached or refuses the configuration).
    public static func connect(bus: Connection.Bus, configuration: OrientationClient.Configuration = .init()) async throws
        -> AsyncOrientationClient
    {
        let queue = DispatchQueue(label: "org.orientationd.OrientationClient")
        return try await withCheckedThrowingContinuation { (done: CheckedContinuation<AsyncOrientationClient, any Error>) in
            queue.async {
                do {
                    let client = try OrientationClient(bus: bus, configuration: configuration)
                    done.resume(returning: AsyncOrientationClient(queue: queue, client: client))
                } catch {
                    done.resume(throwing: error)
                }
            }
        }
    }

    /// The state as last reported.
    public var state: OrientationClient.State {
        get async { await onQueue { $0.state } }
    }

    /// The client object's path; nil while the daemon is away.
    public var objectPath: String? {
        get async { await onQueue { $0.objectPath } }
    }

    public func start() async throws { try await request { try $0.start() } }
    public func stop() async throws { try await request { try $0.stop() } }

    public func setSupported(_ supported: [Orientation], preferred: Orientation? = nil) async throws {
        try await request { try $0.setSupported(supported, preferred: preferred) }
    }

    /// Closes the client object and ends `events`. Safe to call more than once.
    public func close() {
        queue.async { [self] in
            guard !closed else { return }
            closed = true
            source.cancel()
            client.close()
            continuation.finish()
        }
    }

    private func onQueue<T: Sendable>(_ body: @escaping @Sendable (OrientationClient) -> T) async -> T {
        await withCheckedContinuation { done in queue.async { [self] in done.resume(returning: body(client)) } }
    }

    private func request(_ body: @escaping @Sendable (OrientationClient) throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            queue.async { [self] in
                guard !closed else { return done.resume(throwing: BusError.failed("the client is closed")) }
                do {
                    try body(client)
                    done.resume()
                } catch {
                    done.resume(throwing: error)
                }
            }
        }
    }
}
