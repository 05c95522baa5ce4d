import Posix
import Sensors

/// One of the facade's sensors besides the accelerometer (ambient light, proximity,
/// compass): the sensor, who claims it, and its last reading. As iio-sensor-proxy does,
/// claims are per connection (a second claim by the same one is a no-op), a claim of a
/// sensor that is not there is accepted and takes effect when one appears, and the
/// sensor is read only while claimed.
final class ClaimedSensor {
    let kind: AuxiliaryKind
    private let logger: Logger
    private(set) var sensor: AuxiliarySensor?
    private(set) var claimers: Set<String> = []
    /// The last reading of the current sensor; nil before its first or without one.
    private(set) var reading: AuxiliaryReading?
    /// Bad readings in a row: the first said, the rest counted, their end said.
    private var problems = ProblemLog()
    /// A new reading (different from the last), for the claimers.
    var onReading: () -> Void = {}
    /// The sensor came or went, for everyone.
    var onPresence: () -> Void = {}
    /// The sensor's device ended under its reader.
    var onVanished: () -> Void = {}

    init(kind: AuxiliaryKind, logger: Logger) {
        self.kind = kind
        self.logger = logger
    }

    var isPresent: Bool { sensor != nil }
    /// Whether the sensor is being read.
    private(set) var isReading = false

    /// Puts `new` in place of the current sensor (nil: none), read at once while claimed.
    func replace(_ new: AuxiliarySensor?) {
        let had = isPresent
        stopReading(because: new == nil ? "it is gone" : "another takes its place")
        sensor = new
        reading = nil
        problems = ProblemLog()
        if had != isPresent || new != nil { onPresence() }
        if !claimers.isEmpty { startReading() }
    }

    /// Stops reading at exit (buffers disabled), saying nothing: the sensor is still
    /// there, the service is going.
    func shutdown() { stopReading(because: "the service is stopping") }

    func claim(_ owner: String) {
        guard claimers.insert(owner).inserted else { return }
        logger.debug("\(owner) claimed the \(kind.rawValue) sensor (net.hadess.SensorProxy)")
        if claimers.count == 1 { startReading() }
    }

    func release(_ owner: String) {
        guard claimers.remove(owner) != nil else { return }
        logger.debug("\(owner) released the \(kind.rawValue) sensor (net.hadess.SensorProxy)")
        if claimers.isEmpty { stopReading(because: "no claimer left") }
    }

    private func startReading() {
        guard let sensor, !isReading else { return }
        do {
            isReading = true
            try sensor.start(
                reading: { [weak self] value in self?.received(value) },
                problem: { [weak self] error in self?.problem(error) },
                vanished: { [weak self] why in
                    guard let self else { return }
                    self.logger.warning("\(sensor.identity.name): \(why)")
                    self.isReading = false
                    self.onVanished()
                })
            logger.debug("reading \(sensor.identity.name) for its \(claimers.count) claimer(s)")
        } catch {
            isReading = false
            problem(error)
        }
    }

    private func stopReading(because reason: String) {
        guard let sensor, isReading else { return }
        sensor.stop()
        isReading = false
        logger.debug("stopped reading \(sensor.identity.name): \(reason)")
    }

    private func received(_ value: AuxiliaryReading) {
        if let sensor { problems.clear(sensor.identity.name, logger: logger) }
        guard value != reading else { return }
        reading = value
        onReading()
    }

    /// Kept: the last good reading stands. Said once for a run of bad readings, however
    /// their values differ; the good reading that ends the run says how many were ignored.
    private func problem(_ error: SensorError) {
        problems.report("reading", "\(error.message); reading ignored", logger: logger)
    }
}
