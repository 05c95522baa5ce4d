/// An incoming method call being handled: the message, who sent it, and the means to
/// answer it now or later.
public final class MethodCall {
    public enum Reply: Sendable {
        /// Answer at once with these values.
        case values([Value])
        /// The handler will answer later through `reply(_:)` or `fail(_:)` (for work
        /// that waits on another peer, such as an authorization check).
        case later

        public static let empty = Reply.values([])
    }

    public let message: Message
    private weak var connection: Connection?
    private var answered = false

    init(message: Message, connection: Connection) {
        self.message = message
        self.connection = connection
    }

    /// The caller's unique bus name.
    public var sender: String { message.sender ?? "" }
    public var arguments: [Value] { message.arguments }

    /// Sends the successful reply (once; later answers are ignored).
    public func reply(_ values: [Value]) {
        guard !answered else { return }
        answered = true
        guard !message.noReplyExpected, let connection else { return }
        do {
            connection.send(try message.makeReply(values))
        } catch {
            // A handler produced a value the wire cannot carry: a programmer error, but
            // the peer still deserves an answer.
            connection.send(message.makeErrorReply(.failed("internal error: \(error.message)")))
        }
    }

    /// Sends an error reply (once).
    public func fail(_ error: BusError) {
        guard !answered else { return }
        answered = true
        guard !message.noReplyExpected, let connection else { return }
        connection.send(message.makeErrorReply(error))
    }
}
