import CLinux
import Glibc

/// The running executable's read-only pages, which a daemon can hand back once it has
/// started.
///
/// Why: a process's resident set counts every file page mapped into it, and the kernel
/// maps the cached pages around each one a process touches (fault-around, 64 KiB at a
/// time). Start-up — arguments, configuration, udev enumeration, the interface tables,
/// the Swift runtime's first metadata lookups — touches code spread over megabytes that
/// the daemon never runs again, and those pages stay mapped, and counted, for as long as
/// it runs: about 1.4 of the 1.9 MiB of code resident after start. The kernel frees its
/// own start-up code after boot for the same reason.
public enum CodePages {
    #if _pointerBitWidth(_64)
    private typealias ProgramHeader = Elf64_Phdr
    #else
    private typealias ProgramHeader = Elf32_Phdr
    #endif

    /// Unmaps the executable's segments that are not writable (its code and the
    /// read-only data and metadata before it) from this process, with MADV_DONTNEED.
    ///
    /// Nothing is lost: those pages are never written, so they are still the file's
    /// pages, and one the process runs again is mapped again from the page cache by a
    /// minor fault. Writable segments (data, relocated RELRO) are never touched: there
    /// MADV_DONTNEED would discard what the process wrote. Returns the bytes advised.
    public static func releaseExecutable() -> Result<Int, Errno> {
        // The kernel tells every process where its executable's program headers are.
        guard let headers = UnsafePointer<ProgramHeader>(bitPattern: UInt(getauxval(UInt(AT_PHDR)))) else { return .success(0) }
        let count = Int(getauxval(UInt(AT_PHNUM)))
        let table = UnsafeBufferPointer(start: headers, count: count)
        // A position-independent executable is loaded at an offset from its link addresses:
        // where the header table is against where PT_PHDR says it would be.
        guard let headerEntry = table.first(where: { $0.p_type == PT_PHDR }) else { return .success(0) }
        let bias = UInt(bitPattern: headers) &- UInt(headerEntry.p_vaddr)
        let ranges = table.filter { $0.p_type == PT_LOAD && $0.p_flags & UInt32(PF_W) == 0 }
            .map { (start: bias &+ UInt($0.p_vaddr), length: UInt($0.p_memsz)) }
        let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
        var advised = 0
        for (start, length) in ranges where length > 0 {
            // A read-only segment's pages are its own (segments never share a page in
            // memory), so rounding out to whole pages stays inside it.
            let first = start & ~(page - 1)
            let end = (start + length + page - 1) & ~(page - 1)
            guard let address = UnsafeMutableRawPointer(bitPattern: first) else { continue }
            if madvise(address, Int(end - first), MADV_DONTNEED) != 0 { return .failure(.current) }
            advised += Int(end - first)
        }
        return .success(advised)
    }
}

extension CodePages {
    /// When to release: at quiet moments, at most once per interval — a short one while
    /// the daemon has nothing periodic to do, a long one while it reads a sensor.
    ///
    /// Why: a release is cheap, but the next event faults the code it runs back in — about
    /// 140 µs for a bus signal on this project's benchmark machine, four times the cost of
    /// handling it. On a busy system bus (every peer that connects or leaves is a
    /// NameOwnerChanged the daemon follows) releasing after every one would cost that
    /// every time; at most one release per interval bounds it, and a quiet moment that
    /// comes sooner asks for a timer at the interval's end, so that what a burst touched
    /// is still given back once the burst is over. While a sensor is read there is a
    /// quiet moment after every tick: a release now and then gives back what a client's
    /// start and the calls touched, and costs the next tick its faults once, not every
    /// tick. Pure: the caller owns the clock and the timer.
    public struct Pacing: Sendable {
        public enum Action: Equatable, Sendable {
            /// Release now.
            case release
            /// Wake up in this many ms and look again (the caller arms a timer).
            case wake(afterMs: Int64)
            /// Nothing now: a wake-up is already asked for, or the periodic work will
            /// bring the next quiet moment.
            case wait
        }

        public let idleIntervalMs: Int64
        public let busyIntervalMs: Int64
        private var lastReleaseMs: Int64?
        private var wakeAskedForMs: Int64?

        public init(idleIntervalMs: Int64, busyIntervalMs: Int64) {
            self.idleIntervalMs = max(0, idleIntervalMs)
            self.busyIntervalMs = max(self.idleIntervalMs, busyIntervalMs)
        }

        /// The loop has fallen quiet at `nowMs` (monotonic); `busy`: it has periodic work
        /// (a sensor read), so another quiet moment is coming soon anyway.
        public mutating func quiet(nowMs: Int64, busy: Bool) -> Action {
            let interval = busy ? busyIntervalMs : idleIntervalMs
            if let last = lastReleaseMs, nowMs - last < interval {
                if busy { return .wait }
                let due = last + interval
                if let asked = wakeAskedForMs, asked <= due, asked > nowMs { return .wait }
                wakeAskedForMs = due
                return .wake(afterMs: due - nowMs)
            }
            lastReleaseMs = nowMs
            wakeAskedForMs = nil
            return .release
        }
    }
}
