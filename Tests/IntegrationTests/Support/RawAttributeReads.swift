import Glibc
import Posix
import Testing

/// The reads of a polled device's `in_accel_{x,y,z}_raw` (or another channel's), seen through inotify
/// (IN_ACCESS: they are regular files under umockdev, so reads raise it). One descriptor
/// watches all three, so a second pass in the same tick (x y z x y z) is a second x
/// event, not folded into the first as two identical events in a row would be.
final class RawAttributeReads {
    private let inotify: Int32
    private let xWatch: Int32

    init(directory: String, channel: String = "accel") throws {
        inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        try #require(inotify >= 0)
        var watches: [Int32] = []
        for axis in ["x", "y", "z"] {
            let wd = inotify_add_watch(inotify, directory + "/in_\(channel)_\(axis)_raw", UInt32(IN_ACCESS))
            try #require(wd >= 0, "cannot watch in_\(channel)_\(axis)_raw")
            watches.append(wd)
        }
        xWatch = watches[0]
    }

    deinit { close(inotify) }

    /// Forgets the reads already reported (those of a tick that ran before the last reply).
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ read(inotify, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Arrival times (monotonic ms) of the reads of x, until `stop` holds for them or
    /// `deadlineMs` passes.
    func timesOfXReads(until deadlineMs: Int64, stop: ([Int64]) -> Bool) -> [Int64] {
        var times: [Int64] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !stop(times), MonotonicClock.milliseconds() < deadlineMs {
            var pending = pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)
            guard poll(&pending, 1, 200) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            let now = MonotonicClock.milliseconds()
            var index = 0
            while index + 16 <= n {
                let wd = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: index, as: Int32.self) }
                let length = buffer.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: index + 12, as: UInt32.self)) }
                if wd == xWatch { times.append(now) }
                index += 16 + length
            }
        }
        return times
    }
}
