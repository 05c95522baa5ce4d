/// A run of readings that did not change: each within `RestAngleDeg` of the run's mean so
/// far and its length within `RestBandG` of the mean's (the mean, not the first reading:
/// one noisy reading must not decide where the run is measured from).
///
/// A device held still reads the same vector again and again, whatever the filters are
/// still doing: once that has gone on for `RestMs` (and been seen by two readings, or
/// one and then a silent sensor), its mean *is* gravity if its length is the sensor's
/// 1 g, and the new 1 g if such a steady reading lasts `RelearnMs` at another length.
/// A swinging arm's pull is steady in direction but not in length, a turning hand in
/// neither: neither is a rest.
struct Rest: Sendable {
    private let cosAngle: Double
    private let band: Double
    private var sum = Vector3.zero
    /// How many readings the run holds.
    private(set) var readings = 0
    /// When the run began: its first reading, less half the interval before it (the
    /// device came to rest somewhere in that interval).
    private(set) var sinceMs = 0.0

    init(angleDeg: Double, band: Double) {
        cosAngle = EngineMath.cosDegrees(angleDeg)
        self.band = band
    }

    /// The mean of the run's readings, and its length: worked out once a reading (the
    /// next reading and the estimate both read them; a square root and a division each
    /// time were a measurable part of the engine's time).
    private(set) var mean = Vector3.zero
    private(set) var meanLength = 0.0

    /// Takes a reading `a` of length `length`; a run that begins with it began at `began`.
    mutating func observe(_ a: Vector3, length: Double, since began: Double) {
        if readings > 0 && a.within(cosine: cosAngle, of: mean) && abs(length - meanLength) <= band * meanLength {
            sum += a
            readings += 1
        } else {
            sum = a
            readings = 1
            sinceMs = began
        }
        mean = sum * (1 / Double(readings))
        meanLength = mean.length
    }
}
