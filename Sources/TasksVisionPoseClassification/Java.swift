// The few java.lang semantics the classifier's results depend on, for float32.
enum Java {
    /// `Math.max(float, float)`: NaN if either is NaN; +0 beats -0.
    static func max(_ a: Float, _ b: Float) -> Float {
        if a.isNaN { return a }
        if a == 0, b == 0, a.bitPattern == (-0.0 as Float).bitPattern { return b }
        return a >= b ? a : b
    }

    /// `Math.min(float, float)`: NaN if either is NaN; -0 beats +0.
    static func min(_ a: Float, _ b: Float) -> Float {
        if a.isNaN { return a }
        if a == 0, b == 0, b.bitPattern == (-0.0 as Float).bitPattern { return b }
        return a <= b ? a : b
    }

    /// `Float.compare`: a total order with -0 below +0 and every NaN equal, above +infinity.
    static func compare(_ a: Float, _ b: Float) -> Int {
        if a < b { return -1 }
        if a > b { return 1 }
        let x = Int32(bitPattern: a.isNaN ? 0x7fc0_0000 : a.bitPattern)
        let y = Int32(bitPattern: b.isNaN ? 0x7fc0_0000 : b.bitPattern)
        return x == y ? 0 : (x < y ? -1 : 1)
    }

    /// The `(int)` cast of a float: truncates toward zero, saturates, NaN gives 0.
    static func toInt(_ f: Float) -> Int32 {
        if f.isNaN { return 0 }
        if f >= 0x1p31 { return Int32.max }
        if f <= -0x1p31 { return Int32.min }
        return Int32(f.rounded(.towardZero))
    }

    /// `String.hashCode()`: 31-fold over the UTF-16 code units, wrapping in 32 bits.
    static func hashCode(_ s: String) -> Int32 {
        var h: Int32 = 0
        for unit in s.utf16 { h = h &* 31 &+ Int32(unit) }
        return h
    }
}
