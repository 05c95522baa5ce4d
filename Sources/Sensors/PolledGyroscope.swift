import OrientationEngine
import Posix

/// A gyroscope read beside its accelerometer (at each poll tick, or once per batch of
/// buffer frames), and when it stops being one: its device gone, or no usable reading
/// for ``givingUpMs``. Either way it is given up with one warning, `gyroscopeName`
/// becomes nil (GyroscopeName "") and the accelerometer decides alone; a reading missing
/// now and then (a driver busy for a tick) is skipped, said once.
struct PolledGyroscope {
    /// How long a gyroscope may give no usable reading (attributes that vanished or hold
    /// no number) before it is given up: long enough for a driver's passing error, short
    /// enough that GyroscopeName does not name a gyroscope that is not fused.
    static let givingUpMs: Int64 = 1000

    let device: IIOGyroscope
    /// Set once it is given up: it is not read again.
    private(set) var givenUp = false
    private var problems = ProblemLog()
    /// The time of the first of the unusable readings in a row.
    private var failingSinceMs: Int64?

    init(_ device: IIOGyroscope) { self.device = device }

    /// Its name while it is read.
    var name: String? { givenUp ? nil : device.name }

    /// Its reading stamped `timeMs`, nil when there is none (said in the log of
    /// `sensor`, the accelerometer's name).
    mutating func read(at timeMs: Int64, sensor: String, logger: Logger) -> GyroscopeSample? {
        guard !givenUp else { return nil }
        if let rate = device.read(at: timeMs) {
            problems.clear("\(sensor): gyroscope", logger: logger)
            failingSinceMs = nil
            return rate
        }
        if !device.isPresent {
            givenUp = true
            logger.warning("\(sensor): the gyroscope \(device.name) went away: the accelerometer decides alone")
            return nil
        }
        let since = failingSinceMs ?? timeMs
        failingSinceMs = since
        if timeMs - since >= Self.givingUpMs {
            givenUp = true
            logger.warning("\(sensor): the gyroscope \(device.name) gave no usable reading for \(timeMs - since) ms: not used, the accelerometer decides alone")
        } else {
            problems.report("missing", "\(sensor): gyroscope reading missing or malformed: skipped", logger: logger)
        }
        return nil
    }

    /// Closes its attribute files (the sensor stopped).
    func close() { device.close() }
}
