import Glibc

/// Small whole-file helpers for sysfs attributes and configuration files.
public enum FileSystem {
    /// Reads a whole file (up to `limit` bytes; sysfs attributes are at most a page).
    public static func readFile(_ path: String, limit: Int = 1 << 20) throws(Errno) -> [UInt8] {
        try FileDescriptor.open(path).readAll(limit: limit)
    }

    /// Reads a whole text file; invalid UTF-8 is repaired, never trapped on.
    public static func readText(_ path: String, limit: Int = 1 << 20) throws(Errno) -> String {
        String(decoding: try readFile(path, limit: limit), as: UTF8.self)
    }

    /// Writes `text` to an existing file (a sysfs attribute) in one write.
    public static func writeText(_ path: String, _ text: String) throws(Errno) {
        let fd = try FileDescriptor.open(path, .writeOnly)
        try fd.writeAll(text)
    }

    /// Replaces the file at `path` with `text` all at once: written to `path.new` beside
    /// it, flushed to the disk, then renamed over it. A crash or a power cut leaves the old
    /// file or the new one, never half of one (state kept across restarts).
    public static func replaceText(_ path: String, _ text: String, mode: mode_t = 0o644) throws(Errno) {
        let temporary = path + ".new"
        let fd = try FileDescriptor.open(temporary, [.writeOnly, .create, .truncate], mode: mode)
        do {
            try fd.writeAll(text)
            try system_fsync(fd.rawValue).get()
        } catch {
            fd.close()
            _ = system_unlink(temporary)
            throw error
        }
        fd.close()
        if case .failure(let error) = system_rename(temporary, path) {
            _ = system_unlink(temporary)
            throw error
        }
    }

    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    public static func isFIFO(_ path: String) -> Bool {
        guard case .success(let info) = system_stat(path) else { return false }
        return (info.st_mode & S_IFMT) == S_IFIFO
    }

    /// The names in a directory (without "." and ".."), sorted.
    public static func list(_ path: String) throws(Errno) -> [String] { try system_list(path).get().sorted() }
}
