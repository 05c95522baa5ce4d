import Foundation

/// KiB of a process's own executable resident in it: the `Rss` of every mapping of the
/// file /proc/PID/exe names that is not writable (its code and read-only data), from
/// /proc/PID/smaps. Nil when the process or its maps cannot be read.
public func residentExecutableKiB(pid: pid_t) -> Int? {
    guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe"),
          let smaps = try? String(contentsOfFile: "/proc/\(pid)/smaps", encoding: .utf8) else { return nil }
    var total = 0
    var counting = false
    for line in smaps.split(separator: "\n") {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard let first = fields.first else { continue }
        if first.contains("-"), fields.count >= 5 {
            // "start-end perms offset dev inode [path]"
            let permissions = fields[1]
            counting = fields.count >= 6 && String(fields[5...].joined(separator: " ")) == executable
                && permissions.dropFirst().first != "w"
        } else if counting, first == "Rss:", fields.count >= 2, let kib = Int(fields[1]) {
            total += kib
        }
    }
    return total
}
