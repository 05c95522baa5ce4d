// Small, dependency-free math for the engine.
//
// The engine module imports nothing (not even Glibc), so the few transcendental
// functions it needs are implemented here. They are accurate to far better than the
// sensor (atan2 ≈ 1e-9 rad, exp ≈ 1e-12 relative) and fast enough for the
// 5 M samples/s budget.

enum EngineMath {
    static let degreesPerRadian = 180.0 / Double.pi
    static let radiansPerDegree = Double.pi / 180.0

    /// When what a reading at `t` is the first to show began: halfway back to the reading
    /// before it, `intervalMs` earlier, since the change happened somewhere in between.
    static func firstSeen(at t: Double, intervalMs: Double) -> Double { t - intervalMs / 2 }

    /// atan(x) for |x| <= 1.
    static func atanUnit(_ x: Double) -> Double {
        // One argument halving: atan(x) = 2 atan(x / (1 + sqrt(1 + x²))), |x'| <= tan(π/8).
        let r = x / (1.0 + (1.0 + x * x).squareRoot())
        let r2 = r * r
        // Taylor series of atan to r^21; |r| <= 0.4143 so the error is below 2e-10.
        var q = 1.0 / 21.0
        q = q * -r2 + 1.0 / 19.0
        q = q * -r2 + 1.0 / 17.0
        q = q * -r2 + 1.0 / 15.0
        q = q * -r2 + 1.0 / 13.0
        q = q * -r2 + 1.0 / 11.0
        q = q * -r2 + 1.0 / 9.0
        q = q * -r2 + 1.0 / 7.0
        q = q * -r2 + 1.0 / 5.0
        q = q * -r2 + 1.0 / 3.0
        q = q * -r2 + 1.0
        return 2.0 * r * q
    }

    /// atan2(y, x) in radians, in (−π, π]. atan2(0, 0) is 0.
    static func atan2(_ y: Double, _ x: Double) -> Double {
        let ax = abs(x), ay = abs(y)
        if ax == 0 && ay == 0 { return 0 }
        var a: Double
        if ay <= ax {
            a = atanUnit(ay / ax)
        } else {
            a = Double.pi / 2 - atanUnit(ax / ay)
        }
        if x < 0 { a = Double.pi - a }
        return y < 0 ? -a : a
    }

    /// atan2 in degrees.
    static func atan2Degrees(_ y: Double, _ x: Double) -> Double {
        atan2(y, x) * degreesPerRadian
    }

    /// e^(−x) for x >= 0 (returns 1 for x <= 0, 0 for very large x).
    static func expNeg(_ x: Double) -> Double {
        if !(x > 0) { return 1 }
        if x > 700 { return 0 }
        // Range reduction: e^(−x) = (e^(−x/2^k))^(2^k) with x/2^k < 1/16.
        var k = 0
        var r = x
        while r > 0.0625 {
            r *= 0.5
            k += 1
        }
        // Taylor series of e^(−r) to r^8 (error < 1e-13 for r < 1/16).
        var p = 1.0 / 40320.0
        p = p * -r + 1.0 / 5040.0
        p = p * -r + 1.0 / 720.0
        p = p * -r + 1.0 / 120.0
        p = p * -r + 1.0 / 24.0
        p = p * -r + 1.0 / 6.0
        p = p * -r + 0.5
        p = p * -r + 1.0
        p = p * -r + 1.0
        for _ in 0..<k { p *= p }
        return p
    }

    /// The natural logarithm of x > 0 (−infinity for 0, nan for a negative or nan x).
    static func log(_ x: Double) -> Double {
        guard x > 0 else { return x == 0 ? -.infinity : .nan }
        guard x.isFinite else { return x }
        // x = s · 2^e with s in [√½, √2): ln x = e ln 2 + ln s, and
        // ln s = 2 atanh(y) = 2 (y + y³/3 + y⁵/5 + …) with y = (s − 1)/(s + 1), |y| < 0.172.
        var e = Double(x.exponent)
        var s = x.significand
        if s > 1.4142135623730951 {
            s *= 0.5
            e += 1
        }
        let y = (s - 1) / (s + 1)
        let y2 = y * y
        var q = 1.0 / 19.0
        q = q * y2 + 1.0 / 17.0
        q = q * y2 + 1.0 / 15.0
        q = q * y2 + 1.0 / 13.0
        q = q * y2 + 1.0 / 11.0
        q = q * y2 + 1.0 / 9.0
        q = q * y2 + 1.0 / 7.0
        q = q * y2 + 1.0 / 5.0
        q = q * y2 + 1.0 / 3.0
        q = q * y2 + 1.0
        return e * 0.6931471805599453 + 2 * y * q
    }

    /// cos and sin of an angle in degrees (used for precomputing thresholds, not per sample).
    static func cosDegrees(_ deg: Double) -> Double { cosRadians(deg * radiansPerDegree) }
    static func sinDegrees(_ deg: Double) -> Double { cosRadians((90 - deg) * radiansPerDegree) }

    static func cosRadians(_ x0: Double) -> Double {
        // Reduce to [−π, π], then Taylor series with halving.
        var x = x0.truncatingRemainder(dividingBy: 2 * Double.pi)
        if x > Double.pi { x -= 2 * Double.pi }
        if x < -Double.pi { x += 2 * Double.pi }
        // cos(x) = 2cos²(x/2) − 1, applied k times.
        var k = 0
        while abs(x) > 0.125 {
            x *= 0.5
            k += 1
        }
        let x2 = x * x
        var c = 1 - x2 / 2 * (1 - x2 / 12 * (1 - x2 / 30 * (1 - x2 / 56 * (1 - x2 / 90))))
        for _ in 0..<k { c = 2 * c * c - 1 }
        return c
    }

    /// Wrap an angle in degrees to (−180, 180].
    static func wrapDegrees(_ a: Double) -> Double {
        var d = a
        if d > 180 || d <= -180 {
            d = d.truncatingRemainder(dividingBy: 360)
            if d > 180 { d -= 360 }
            if d <= -180 { d += 360 }
        }
        return d
    }
}
