import OrientationAPI
import OrientationEngine
import Posix

/// Where RotationLocked is kept across restarts: the file `state` in the service's state
/// directory (`$STATE_DIRECTORY`, which systemd's `StateDirectory=` sets to
/// /var/lib/orientationd), as power-profiles-daemon keeps its profile. A user who locked
/// the rotation keeps the lock through a package upgrade's restart, a crash's restart
/// and a reboot. Without a state directory (the session bus, a test, a run by hand) the
/// lock lasts as long as the daemon.
///
/// What is kept is the lock and the orientation it holds (a screen locked in landscape
/// comes back in landscape, whatever way the device lies when the daemon starts): lines
/// `RotationLocked=true` or `=false` and `Orientation=left-up` (comments and blank lines
/// aside), the file replaced whole at each change (``FileSystem/replaceText(_:_:mode:)``).
public struct LockState: Sendable {
    public let path: String

    public init(directory: String) {
        path = (directory.hasSuffix("/") ? String(directory.dropLast()) : directory) + "/state"
    }

    /// The state directory systemd gave the service, if any (the first of a list).
    public static func directory(environment value: String?) -> String? {
        guard let value, let first = value.split(separator: ":").first, !first.isEmpty else { return nil }
        return String(first)
    }

    /// What was saved.
    public struct Saved: Sendable, Equatable {
        public var locked: Bool
        /// The orientation the lock held (undefined if it held none, or none was saved).
        public var orientation: Orientation

        public init(locked: Bool, orientation: Orientation) {
            self.locked = locked
            self.orientation = orientation
        }
    }

    /// The lock saved: unlocked when there is no file yet; an error saying what is wrong
    /// with a file that cannot be read or is not what this daemon writes.
    public func load() -> Result<Saved, SavedStateError> {
        let text: String
        do { text = try FileSystem.readText(path, limit: 64 << 10) } catch {
            return error == .noEntry ? .success(Saved(locked: false, orientation: .undefined))
                : .failure(SavedStateError("cannot read \(path): \(error)"))
        }
        var locked: Bool?
        var orientation = Orientation.undefined
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingWhitespace()
            if line.isEmpty || line.first == "#" { continue }
            switch line {
            case "RotationLocked=true": locked = true
            case "RotationLocked=false": locked = false
            case _ where line.hasPrefix("Orientation="):
                guard let value = Orientation(rawValue: String(line.dropFirst("Orientation=".count))) else {
                    return .failure(SavedStateError("\(path):\(index + 1): \"\(line.prefix(60))\" names no orientation"))
                }
                orientation = value
            default:
                return .failure(SavedStateError("\(path):\(index + 1): expected RotationLocked=true or =false, found \"\(line.prefix(60))\""))
            }
        }
        return .success(Saved(locked: locked ?? false, orientation: orientation))
    }

    /// Saves the lock and the orientation it holds, replacing the file whole.
    public func save(_ saved: Saved) -> Result<Void, SavedStateError> {
        let text = "# orientationd's state, kept across restarts: written by the daemon.\n"
            + "RotationLocked=\(saved.locked)\nOrientation=\(saved.orientation.rawValue)\n"
        do { try FileSystem.replaceText(path, text) } catch {
            return .failure(SavedStateError("cannot save \(path): \(error)"))
        }
        return .success(())
    }
}

/// Why the saved state could not be read or written.
public struct SavedStateError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
