import Posix

/// An auxiliary sensor read by polling one attribute of its device: once when started
/// (so that a claim returns with the value), then every `intervalMs` until stopped. The
/// attribute stays open while started (``HeldAttributes``: one `pread` a poll). `parse`
/// turns the attribute's text into a reading; a sensor whose answer depends on the
/// previous reading (proximity's margin) keeps that in its closure.
final class PolledAuxiliarySensor: AuxiliarySensor {
    let kind: AuxiliaryKind
    let identity: SensorIdentity
    let syspath: String
    let intervalMs: Int64
    private let loop: EventLoop
    private let attribute: HeldAttributes
    private let parse: (String) -> Result<AuxiliaryReading, SensorError>
    private var timer: Posix.Timer?
    private var onReading: ((AuxiliaryReading) -> Void)?
    private var onProblem: ((SensorError) -> Void)?

    /// `attribute`: the file in the device directory `syspath` that holds the reading.
    init(kind: AuxiliaryKind, identity: SensorIdentity, syspath: String, attribute: String, intervalMs: Int64,
         loop: EventLoop, parse: @escaping (String) -> Result<AuxiliaryReading, SensorError>) {
        self.kind = kind
        self.identity = identity
        self.syspath = syspath
        self.intervalMs = intervalMs
        self.loop = loop
        self.attribute = HeldAttributes(directory: syspath, names: [attribute], loop: loop)
        self.parse = parse
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
        attribute.close()
    }

    private func poll() {
        let reading = attribute.text(0).mapError { SensorError("\(identity.name): cannot read \(attribute.paths[0]): \($0)") }
        switch reading.flatMap(parse) {
        case .success(let value):
            onReading?(value)
        case .failure(let error):
            onProblem?(error)
        }
    }
}
