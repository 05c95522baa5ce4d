import Glibc

/// CLOCK_MONOTONIC readings: the only clock the daemon measures time with.
public enum MonotonicClock {
    public static func nanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    public static func milliseconds() -> Int64 { nanoseconds() / 1_000_000 }
}
