import Foundation

/// The mappings of a process's own executable that are readable and not writable (its
/// code and read-only data): the address range of each, with its `Rss` in KiB from
/// /proc/PID/smaps. Nil when the process or its maps cannot be read.
public func executableReadOnlyMappings(pid: pid_t) -> [(range: Range<UInt>, residentKiB: Int)]? {
    guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe"),
          let smaps = try? String(contentsOfFile: "/proc/\(pid)/smaps", encoding: .utf8) else { return nil }
    var mappings: [(range: Range<UInt>, residentKiB: Int)] = []
    var counting = false
    for line in smaps.split(separator: "\n") {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard let first = fields.first else { continue }
        if first.contains("-"), fields.count >= 5 {
            // "start-end perms offset dev inode [path]"
            let bounds = first.split(separator: "-").compactMap { UInt(String($0), radix: 16) }
            counting = bounds.count == 2 && fields.count >= 6 && fields[5...].joined(separator: " ") == executable
                && fields[1].first == "r" && fields[1].dropFirst().first != "w"
            if counting { mappings.append((bounds[0]..<bounds[1], 0)) }
        } else if counting, first == "Rss:", fields.count >= 2, let kib = Int(fields[1]) {
            mappings[mappings.count - 1].residentKiB += kib
        }
    }
    return mappings
}

/// KiB of a process's own executable resident in it: the `Rss` of its mappings that are
/// not writable (see `executableReadOnlyMappings`).
public func residentExecutableKiB(pid: pid_t) -> Int? {
    executableReadOnlyMappings(pid: pid).map { $0.reduce(0) { $0 + $1.residentKiB } }
}
