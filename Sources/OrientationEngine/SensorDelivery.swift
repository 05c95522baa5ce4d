/// How a sensor delivers its readings, which is what its silence means.
///
/// The engine completes a pending decision between readings only where silence is news.
public enum SensorDelivery: String, Sendable {
    /// Readings only when something changes: evdev (the kernel's input core drops a
    /// repeated value), IIO buffers on a data-ready or motion trigger, a live FIFO. A
    /// device lying still sends nothing, so once the sensor has been silent for half as
    /// long again as it took to send its last reading, that reading still holds: a turn
    /// seen as one burst completes at the engine's deadline.
    case onChange = "on-change"
    /// Readings at a rate whatever the device does: a poll, a recording. A gap between
    /// them is a dropout that tells nothing (a run goes on through it), so decisions wait
    /// for the next reading: the last reading before a gap is no rest, nor is the
    /// proposal it makes confirmed by the gap.
    case stream
}
