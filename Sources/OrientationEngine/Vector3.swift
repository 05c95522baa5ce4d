/// A 3-vector of doubles: a reading, a gravity estimate, a direction.
///
/// The engine's arithmetic on readings, written once: filters, the rest detector and the
/// judge hold `Vector3`s rather than x/y/z triples.
struct Vector3: Sendable, Equatable {
    var x: Double
    var y: Double
    var z: Double

    static let zero = Vector3(x: 0, y: 0, z: 0)

    init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    init(_ sample: Sample) {
        self.init(x: sample.x, y: sample.y, z: sample.z)
    }

    static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(x: a.x + b.x, y: a.y + b.y, z: a.z + b.z) }
    static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(x: a.x - b.x, y: a.y - b.y, z: a.z - b.z) }
    static func * (a: Vector3, k: Double) -> Vector3 { Vector3(x: a.x * k, y: a.y * k, z: a.z * k) }
    static func += (a: inout Vector3, b: Vector3) { a = a + b }

    func dot(_ b: Vector3) -> Double { x * b.x + y * b.y + z * b.z }
    func cross(_ b: Vector3) -> Vector3 {
        Vector3(x: y * b.z - z * b.y, y: z * b.x - x * b.z, z: x * b.y - y * b.x)
    }
    var lengthSquared: Double { dot(self) }
    var length: Double { lengthSquared.squareRoot() }

    /// The unit vector along this one; zero for the zero vector.
    var unit: Vector3 {
        let n = length
        return n > 0 ? self * (1 / n) : .zero
    }

    /// Whether the angle between the two is at most the one whose cosine is `cosLimit`
    /// (−1 ≤ cosLimit ≤ 1: any limit from 0 to 180°, as a configuration may set one);
    /// false if either is zero. No square root, no division.
    func within(cosine cosLimit: Double, of b: Vector3) -> Bool {
        let d = dot(b)
        let bound = cosLimit * cosLimit * lengthSquared * b.lengthSquared
        if cosLimit >= 0 { return d > 0 && d * d >= bound }
        // An obtuse limit: every angle up to 90° is within it, a wider one if no wider.
        return (d >= 0 || d * d <= bound) && lengthSquared > 0 && b.lengthSquared > 0
    }
}
