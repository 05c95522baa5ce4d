import Posix

/// What every real backend is given when it is opened.
public struct SensorEnvironment {
    public var loop: EventLoop
    public var logger: Logger
    public var settings: SensorSettings
    /// Called (on the loop, never re-entrantly) when the backend stops working: the
    /// device vanished, or a buffer turned out to be unusable.
    public var failed: (String) -> Void

    public init(loop: EventLoop, logger: Logger, settings: SensorSettings, failed: @escaping (String) -> Void) {
        self.loop = loop
        self.logger = logger
        self.settings = settings
        self.failed = failed
    }
}

/// A backend's failure, said once: one warning in the log, then `failed` on the loop
/// (never re-entrantly), however often the broken device is touched afterwards.
struct FailureReport {
    private var reported = false

    mutating func report(_ message: String, reason: String, _ environment: SensorEnvironment) {
        guard !reported else { return }
        reported = true
        environment.logger.warning(message)
        let failed = environment.failed
        environment.loop.post { failed(reason) }
    }
}
