import Posix

/// An auxiliary sensor read by polling an attribute: once when started (so that a claim
/// returns with the value), then every `intervalMs` until stopped. `read` gets the
/// previous reading, for the sensors whose answer depends on it (proximity's
/// hysteresis).
final class PolledAuxiliarySensor: AuxiliarySensor {
    let kind: AuxiliaryKind
    let identity: SensorIdentity
    let syspath: String
    let intervalMs: Int64
    private let loop: EventLoop
    private let read: (AuxiliaryReading?) -> Result<AuxiliaryReading, SensorError>
    private var timer: Posix.Timer?
    private var last: AuxiliaryReading?
    private var onReading: ((AuxiliaryReading) -> Void)?
    private var onProblem: ((SensorError) -> Void)?

    init(kind: AuxiliaryKind, identity: SensorIdentity, syspath: String, intervalMs: Int64, loop: EventLoop,
         read: @escaping (AuxiliaryReading?) -> Result<AuxiliaryReading, SensorError>) {
        self.kind = kind
        self.identity = identity
        self.syspath = syspath
        self.intervalMs = intervalMs
        self.loop = loop
        self.read = read
    }

    func start(reading: @escaping (AuxiliaryReading) -> Void, problem: @escaping (SensorError) -> Void,
               vanished: @escaping (String) -> Void) throws(SensorError) {
        onReading = reading
        onProblem = problem
        guard timer == nil else { return }
        do {
            let timer = try Posix.Timer(loop: loop) { [weak self] in self?.poll() }
            timer.arm(afterMs: intervalMs, intervalMs: intervalMs)
            self.timer = timer
        } catch {
            throw SensorError("\(identity.name): cannot poll: \(error)")
        }
        poll()
    }

    func stop() {
        timer?.disarm()
        timer = nil
        onReading = nil
        onProblem = nil
    }

    private func poll() {
        switch read(last) {
        case .success(let value):
            last = value
            onReading?(value)
        case .failure(let error):
            onProblem?(error)
        }
    }
}
