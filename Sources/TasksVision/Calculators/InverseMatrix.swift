/// MediaPipe's `InverseMatrixCalculator` (inverse_matrix_calculator.cc): the inverse of a
/// row-major 4x4 float matrix by Eigen's `computeInverseWithCheck`.
///
/// On x86-64 Eigen inverts a 4x4 float matrix with its SSE block algorithm
/// (Eigen/src/LU/arch/InverseSize4.h: 2x2 blocks, their adjugates and determinants, one
/// reciprocal of the determinant); it is reproduced lane for lane here, every operation a float
/// one, so the result has the same rounding.
enum InverseMatrix {
    /// The inverse, or nil when the determinant's magnitude is at most double's epsilon (the
    /// calculator's `kAbsDeterminantThreshold`) or `m` has not 16 values.
    static func invert(_ m: [Float]) -> [Float]? {
        guard m.count == 16 else { return nil }
        // The check only decides invertibility; a Double cofactor expansion suffices for it.
        guard abs(determinant(m)) > Double.ulpOfOne else { return nil }
        typealias V = SIMD4<Float>
        // _mm_shuffle_ps(a, b, p, q, r, s) as Eigen's vec4f_swizzle2: (a[p], a[q], b[r], b[s]).
        func sw(_ a: V, _ b: V, _ p: Int, _ q: Int, _ r: Int, _ s: Int) -> V { V(a[p], a[q], b[r], b[s]) }
        func movelh(_ a: V, _ b: V) -> V { V(a[0], a[1], b[0], b[1]) }
        func movehl(_ a: V, _ b: V) -> V { V(b[2], b[3], a[2], a[3]) }
        func lane(_ a: V, _ p: Int) -> V { V(repeating: a[p]) }
        let l1 = V(m[0], m[1], m[2], m[3]), l2 = V(m[4], m[5], m[6], m[7])
        let l3 = V(m[8], m[9], m[10], m[11]), l4 = V(m[12], m[13], m[14], m[15])
        // Input and result are both row-major (StorageOrdersMatch).
        let a = movelh(l1, l2), b = movehl(l2, l1), c = movelh(l3, l4), d = movehl(l4, l3)
        // AB = A# * B, DC = D# * C.
        let ab = sw(a, a, 3, 3, 0, 0) * b - sw(a, a, 1, 1, 2, 2) * sw(b, b, 2, 3, 0, 1)
        let dc = sw(d, d, 3, 3, 0, 0) * c - sw(d, d, 1, 1, 2, 2) * sw(c, c, 2, 3, 0, 1)
        // Determinants of the blocks, in lane 0.
        func det2(_ x: V) -> V {
            let p = sw(x, x, 3, 3, 1, 1) * x
            return p - movehl(p, p)
        }
        let dA = det2(a), dB = det2(b), dC = det2(c), dD = det2(d)
        var t = sw(dc, dc, 0, 2, 1, 3) * ab
        t = t + movehl(t, t)
        t = t + sw(t, t, 1, 0, 0, 0)
        // det = |A||D| + |B||C| - trace(A#*B*D#*C)
        let det = lane((dA * dD + dB * dC) - t, 0)
        var rd = V(repeating: 1) / det
        var iD = sw(c, c, 0, 0, 2, 2) * movelh(ab, ab)
        iD = iD + sw(c, c, 1, 1, 3, 3) * movehl(ab, ab)
        iD = d * lane(dA, 0) - iD
        var iA = sw(b, b, 0, 0, 2, 2) * movelh(dc, dc)
        iA = iA + sw(b, b, 1, 1, 3, 3) * movehl(dc, dc)
        iA = a * lane(dD, 0) - iA
        var iB = d * sw(ab, ab, 3, 0, 3, 0)
        iB = iB - sw(d, d, 1, 0, 3, 2) * sw(ab, ab, 2, 1, 2, 1)
        iB = c * lane(dB, 0) - iB
        var iC = a * sw(dc, dc, 3, 0, 3, 0)
        iC = iC - sw(a, a, 1, 0, 3, 2) * sw(dc, dc, 2, 1, 2, 1)
        iC = b * lane(dC, 0) - iC
        // The sign mask (+, -, -, +) is an xor of sign bits: exact.
        rd = rd * V(1, -1, -1, 1)
        iA = iA * rd; iB = iB * rd; iC = iC * rd; iD = iD * rd
        let rows = [sw(iA, iB, 3, 1, 3, 1), sw(iA, iB, 2, 0, 2, 0), sw(iC, iD, 3, 1, 3, 1), sw(iC, iD, 2, 0, 2, 0)]
        return rows.flatMap { [$0[0], $0[1], $0[2], $0[3]] }
    }

    /// The determinant by cofactors along the first row, in Double.
    static func determinant(_ m: [Float]) -> Double {
        func e(_ r: Int, _ c: Int) -> Double { Double(m[r * 4 + c]) }
        func minor(_ skip: Int) -> Double {
            let cols = (0..<4).filter { $0 != skip }
            func f(_ r: Int, _ i: Int) -> Double { e(r, cols[i]) }
            return f(1, 0) * (f(2, 1) * f(3, 2) - f(2, 2) * f(3, 1)) - f(1, 1) * (f(2, 0) * f(3, 2) - f(2, 2) * f(3, 0))
                + f(1, 2) * (f(2, 0) * f(3, 1) - f(2, 1) * f(3, 0))
        }
        return e(0, 0) * minor(0) - e(0, 1) * minor(1) + e(0, 2) * minor(2) - e(0, 3) * minor(3)
    }
}
