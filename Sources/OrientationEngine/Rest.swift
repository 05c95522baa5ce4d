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

    /// Takes a reading `a` of length `length` at `t`, `creditMs` after the run may have
    /// begun if it begins here.
    mutating func observe(_ a: Vector3, length: Double, at t: Double, creditMs: Double) {
        let m = mean
        let meanLength = m.length
        if readings > 0 && a.within(cosine: cosAngle, of: m) && abs(length - meanLength) <= band * meanLength {
            sum += a
            readings += 1
        } else {
            sum = a
            readings = 1
            sinceMs = t - creditMs
        }
    }

    /// The mean of the run's readings.
    var mean: Vector3 { readings > 0 ? sum * (1 / Double(readings)) : .zero }
}
