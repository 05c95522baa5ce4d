import CLinux
import Glibc

/// A timerfd on the monotonic clock, registered with an event loop.
///
/// Disarmed timers cost nothing: no descriptor becomes ready, the loop stays asleep.
/// The timer unregisters and closes itself when released.
public final class Timer {
    private let descriptor: FileDescriptor
    /// The timerfd, for tests that check it is closed with the timer.
    @_spi(Testing) public var descriptorNumber: Int32 { descriptor.rawValue }
    private weak var loop: EventLoop?
    public private(set) var isArmed = false

    /// `handler` runs on the loop each time the timer expires.
    public init(loop: EventLoop, handler: @escaping () -> Void) throws(Errno) {
        descriptor = FileDescriptor(owning: try system_timerfd_create().get())
        self.loop = loop
        let fd = descriptor.rawValue
        // The handler holds the descriptor number only: the timer must not be kept alive
        // by its own registration.
        try loop.add(fd: fd, events: .readable) { _ in
            var expirations: UInt64 = 0
            let result = withUnsafeMutableBytes(of: &expirations) { system_read(fd, $0) }
            if case .success(8) = result { handler() }
        }
    }

    deinit {
        loop?.remove(fd: descriptor.rawValue)
    }

    /// Fires once after `afterMs`, then every `intervalMs` if given (> 0).
    public func arm(afterMs: Int64, intervalMs: Int64 = 0) {
        var spec = itimerspec()
        // A zero it_value disarms a timerfd: fire "now" as 1 ns instead.
        let first = max(afterMs * 1_000_000, 1)
        spec.it_value = timespec(tv_sec: Int(first / 1_000_000_000), tv_nsec: Int(first % 1_000_000_000))
        let interval = max(intervalMs, 0) * 1_000_000
        spec.it_interval = timespec(tv_sec: Int(interval / 1_000_000_000), tv_nsec: Int(interval % 1_000_000_000))
        _ = system_timerfd_settime(descriptor.rawValue, &spec)
        isArmed = true
    }

    public func disarm() {
        var spec = itimerspec()
        _ = system_timerfd_settime(descriptor.rawValue, &spec)
        isArmed = false
    }
}
