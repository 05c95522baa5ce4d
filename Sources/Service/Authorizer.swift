import OrientationAPI
import DBus
import Posix

/// Asks polkit whether a bus peer may do something, without blocking the event loop.
///
/// On the system bus the daemon checks `Start` (claim) and setting `RotationLocked`
/// (lock) with polkit, using the caller's unique bus name as the subject, so polkit
/// judges the process and session behind the connection. On the session bus, and with
/// `--no-polkit`, everything is allowed.
public final class Authorizer {
    public enum Mode: Sendable, Equatable {
        /// Allow everything (session bus, tests, systems without polkit).
        case allowAll
        /// Ask org.freedesktop.PolicyKit1.
        case polkit
    }

    public static let claimAction = OrientationAPI.Action.claim
    public static let lockAction = OrientationAPI.Action.lock
    public static let compatClaimAction = "net.hadess.SensorProxy.claim-sensor"

    private let connection: Connection
    private let logger: Logger
    public let mode: Mode
    /// Whether polkit could not be asked last time: said once until it answers again,
    /// since every client's Start would otherwise log it (polkit missing or stopped on a
    /// machine where the daemon was told to ask it).
    private var unreachable = false

    public init(connection: Connection, mode: Mode, logger: Logger) {
        self.connection = connection
        self.mode = mode
        self.logger = logger
    }

    /// Calls `completion` with nil when `sender` may perform `action`, or with the
    /// error to reply with. With `.allowAll`, before returning.
    public func authorize(_ action: String, for sender: String, interactive: Bool = false,
                          completion: @escaping (BusError?) -> Void) {
        guard mode == .polkit else {
            completion(nil)
            return
        }
        let subject = Value.structure([
            .string("system-bus-name"),
            .dictionary(keySignature: "s", valueSignature: "v", [DictionaryEntry(.string("name"), .variant(.string(sender)))]),
        ])
        let message: Message
        do {
            message = try Message.methodCall(
                destination: "org.freedesktop.PolicyKit1", path: "/org/freedesktop/PolicyKit1/Authority",
                interface: "org.freedesktop.PolicyKit1.Authority", member: "CheckAuthorization",
                arguments: [subject, .string(action), .dictionary(keySignature: "s", valueSignature: "s", []),
                            .uint32(interactive ? 1 : 0), .string("")])
        } catch {
            completion(BusError(OrientationAPI.Error.notAuthorized, "cannot ask polkit about \(action): \(error.message)"))
            return
        }
        // Interactive checks may wait for a password dialog.
        connection.callAsync(message, timeoutMs: interactive ? 120_000 : 25_000) { [weak self, logger] result in
            switch result {
            case .success(let reply):
                if self?.unreachable == true {
                    self?.unreachable = false
                    logger.info("polkit answers again")
                }
                guard case .structure(let fields)? = reply.arguments.first, case .bool(let authorized)? = fields.first else {
                    logger.warning("polkit gave an unexpected answer for \(action) (\(reply.signature)); refusing")
                    completion(BusError(OrientationAPI.Error.notAuthorized, "polkit gave an unexpected answer"))
                    return
                }
                if authorized {
                    completion(nil)
                } else {
                    logger.debug("polkit refused \(action) to \(sender)")
                    completion(BusError(OrientationAPI.Error.notAuthorized, "not authorized for \(action)"))
                }
            case .failure(let error):
                if self?.unreachable == false {
                    self?.unreachable = true
                    logger.warning("cannot check \(action) with polkit: \(error.message) (said once until polkit answers again)")
                } else {
                    logger.debug("cannot check \(action) with polkit: \(error.message)")
                }
                let unavailable = error.name == "org.freedesktop.DBus.Error.ServiceUnknown"
                    || error.name == "org.freedesktop.DBus.Error.NameHasNoOwner"
                completion(BusError(OrientationAPI.Error.notAuthorized, unavailable
                    ? "polkit is not available to authorize \(action) (orientationd --no-polkit runs without it)"
                    : "could not check authorization for \(action): \(error.message)"))
            }
        }
    }
}
