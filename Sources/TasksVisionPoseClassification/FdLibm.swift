// fdlibm's hypot as java.lang.StrictMath (and so Math.hypot) computes it: ML Kit's 2-D norm is
// `(float) Math.hypot(x, y)`, and the narrowing of a result within one double ulp can differ from a
// correctly rounded one, so the same steps are taken here.
enum FdLibm {
    private static func hi(_ d: Double) -> Int32 { Int32(truncatingIfNeeded: Int64(bitPattern: d.bitPattern >> 32)) }

    private static func withHi(_ hi: Int32) -> Double { Double(bitPattern: UInt64(UInt32(bitPattern: hi)) << 32) }

    static func hypot(_ x: Double, _ y: Double) -> Double {
        var a = abs(x), b = abs(y)
        if !a.isFinite || !b.isFinite {
            if a == .infinity || b == .infinity { return .infinity }
            return a + b
        }
        if b > a { swap(&a, &b) }
        var ha = hi(a), hb = hi(b)
        if ha &- hb > 0x3c0_0000 { return a + b }
        var k = 0
        if a > 0x1.00000ffffffffp500 {
            ha = ha &- 0x2580_0000; hb = hb &- 0x2580_0000
            a *= 0x1p-600; b *= 0x1p-600
            k += 600
        }
        var t1: Double, t2: Double
        if b < 0x1p-500 {
            if b < Double.leastNormalMagnitude {
                if b == 0 { return a }
                t1 = 0x1p1022
                b *= t1; a *= t1
                k -= 1022
                // fdlibm keeps ha, hb from before this scaling, as the Java port does.
            } else {
                ha = ha &+ 0x2580_0000; hb = hb &+ 0x2580_0000
                a *= 0x1p600; b *= 0x1p600
                k -= 600
            }
        }
        var w = a - b
        if w > b {
            t1 = withHi(ha)
            t2 = a - t1
            w = (t1 * t1 - (b * (-b) - t2 * (a + t1))).squareRoot()
        } else {
            a = a + a
            let y1 = withHi(hb)
            let y2 = b - y1
            t1 = withHi(ha &+ 0x0010_0000)
            t2 = a - t1
            w = (t1 * y1 - (w * (-w) - (t1 * y2 + t2 * b))).squareRoot()
        }
        if k != 0 { return Double(sign: .plus, exponent: k, significand: 1) * w }
        return w
    }
}
