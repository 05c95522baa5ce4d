import Glibc
import OrientationEngine
import Posix

/// A simulated accelerometer for demos and tests of the whole chain.
///
/// It tells a story in a loop: held upright in each of the four orientations in turn,
/// then laid face-up on a table. Poses change by smooth rotations, and every sample gets
/// noise and hand tremor, so the engine has real filtering to do. Samples are produced
/// by a timer only while started.
public final class SimulatedSensor: SensorBackend {
    public let identity = SensorIdentity(name: "Simulated accelerometer", backend: .simulated, device: "")

    /// One step of the story: a pose (φ, θ in degrees, README frame) held for a while.
    struct Pose {
        var rollDeg: Double
        var elevationDeg: Double
        var holdMs: Int64
    }

    static let story: [Pose] = [
        Pose(rollDeg: 0, elevationDeg: 10, holdMs: 4000),      // normal
        Pose(rollDeg: -90, elevationDeg: 10, holdMs: 4000),    // left-up
        Pose(rollDeg: -180, elevationDeg: 10, holdMs: 4000),   // bottom-up
        Pose(rollDeg: -270, elevationDeg: 10, holdMs: 4000),   // right-up (φ = 90°)
        Pose(rollDeg: -360, elevationDeg: 88, holdMs: 4000),   // face-up on a table
    ]
    static let transitionMs: Int64 = 700

    private let loop: EventLoop
    private let rateHz: Int
    private let originMs: Int64
    private var timer: Posix.Timer?
    private var handler: ((Sample) -> Void)?
    private var random: UInt64 = 0x9E37_79B9_7F4A_7C15

    public init(loop: EventLoop, rateHz: Int = 50) {
        self.loop = loop
        self.rateHz = max(1, min(rateHz, 1000))
        originMs = MonotonicClock.milliseconds()
    }

    public func start(handler: @escaping (Sample) -> Void) throws(SensorError) {
        self.handler = handler
        if timer == nil {
            do {
                timer = try Posix.Timer(loop: loop) { [weak self] in self?.tick() }
            } catch {
                throw SensorError("cannot create the simulation timer: \(error)")
            }
        }
        let period = Int64(1000 / rateHz)
        timer?.arm(afterMs: period, intervalMs: period)
    }

    /// The simulation ticks at its own rate; it simulates no gyroscope.
    public func requestReading(atMs: Int64) {}
    /// Samples on a timer, still or not.
    public var delivery: SensorDelivery { .stream }
    public var gyroscopeName: String? { nil }
    public func startGyroscope(handler: @escaping (GyroscopeSample) -> Void) {}
    public func stopGyroscope() {}

    public func stop() {
        timer?.disarm()
        handler = nil
    }

    public func currentSample() -> Sample? { sample(at: MonotonicClock.milliseconds()) }

    private func tick() {
        guard let handler else { return }
        handler(sample(at: MonotonicClock.milliseconds()))
    }

    /// The gravity reading at monotonic time `nowMs`, with noise and tremor.
    func sample(at nowMs: Int64) -> Sample {
        let (roll, elevation) = Self.pose(atMs: nowMs - originMs)
        let φ = roll * .pi / 180, θ = elevation * .pi / 180
        let g = 9.81
        let tremor = 0.08 * sin(Double(nowMs) * 2 * .pi * 7 / 1000)
        return Sample(
            timeMs: nowMs,
            x: -sin(φ) * cos(θ) * g + noise() + tremor,
            y: -cos(φ) * cos(θ) * g + noise(),
            z: sin(θ) * g + noise())
    }

    /// The scripted pose (roll, elevation in degrees) at `elapsedMs` into the loop.
    static func pose(atMs elapsedMs: Int64) -> (Double, Double) {
        let cycle = story.reduce(0) { $0 + $1.holdMs + transitionMs }
        var t = ((elapsedMs % cycle) + cycle) % cycle
        for (index, pose) in story.enumerated() {
            if t < pose.holdMs { return (pose.rollDeg, pose.elevationDeg) }
            t -= pose.holdMs
            let next = index + 1 < story.count ? story[index + 1] : Pose(rollDeg: 0, elevationDeg: 10, holdMs: 0)
            if t < transitionMs {
                // Smoothstep between the two poses: a hand-like start and stop.
                let u = Double(t) / Double(transitionMs)
                let s = u * u * (3 - 2 * u)
                let fromRoll = index + 1 < story.count ? pose.rollDeg : pose.rollDeg.truncatingRemainder(dividingBy: 360)
                return (fromRoll + (next.rollDeg - fromRoll) * s,
                        pose.elevationDeg + (next.elevationDeg - pose.elevationDeg) * s)
            }
            t -= transitionMs
        }
        return (0, 10)
    }

    /// Roughly Gaussian noise (sum of uniforms), σ ≈ 0.05 m/s², from a xorshift generator.
    private func noise() -> Double {
        var sum = 0.0
        for _ in 0..<4 {
            random ^= random << 13
            random ^= random >> 7
            random ^= random << 17
            sum += Double(random % 10_000) / 10_000 - 0.5
        }
        return sum * 0.087
    }
}

extension BackendKind {
    public static let simulated = BackendKind(rawValue: "simulated")
}
