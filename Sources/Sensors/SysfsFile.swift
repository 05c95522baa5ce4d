import Glibc
import Posix

/// Reads of sysfs attribute files, straight from the file each time (never libudev's
/// per-device cache), bounded to a page, trailing newline removed.
public enum SysfsFile {
    public static func read(_ path: String) -> String? {
        switch readResult(path) {
        case .success(let text): text
        case .failure: nil
        }
    }

    public static func readResult(_ path: String) -> Result<String, Errno> {
        do {
            var text = try FileSystem.readText(path, limit: 4096)
            while let last = text.last, last == "\n" || last == "\0" { text.removeLast() }
            return .success(text)
        } catch {
            return .failure(error)
        }
    }

    public static func write(_ path: String, _ text: String) -> Result<Void, Errno> {
        // O_TRUNC: harmless on sysfs (an attribute is rewritten whole), and right for
        // the regular files that stand in for attributes under umockdev.
        do {
            let fd = try FileDescriptor.open(path, [.writeOnly, .truncate])
            try fd.writeAll(text)
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    public static func exists(_ path: String) -> Bool { FileSystem.exists(path) }

    /// The names in a directory (without "." and ".."); empty when unreadable.
    public static func list(_ directory: String) -> [String] { (try? FileSystem.list(directory)) ?? [] }
}
