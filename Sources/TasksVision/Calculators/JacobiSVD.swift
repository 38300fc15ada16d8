/// Eigen's `JacobiSVD<Matrix3f>` with `ComputeFullU | ComputeFullV`, in float, step by step, as the Eigen linked
/// into MediaPipe 1.2.3's libmediapipe.so computes it (read from its machine code; newer than Eigen 3.4): a square
/// matrix takes no QR preconditioner; the matrix is scaled by a power of two (`scale_binary_bits_by_exponent`:
/// exact); sweeps over the pairs (p, q) = (1, 0), (2, 0), (2, 1) run `real_2x2_jacobi_svd` (a rotation making the
/// 2x2 block symmetric, c = u * (1 / sqrt(u^2 + 1)), then the right rotation from the ratio of |x - z| and 2|y|,
/// the smaller over the larger, which never overflows) wherever an off-diagonal coefficient exceeds
/// max(FLT_MIN, 2 * FLT_EPSILON * the largest diagonal magnitude so far), until a sweep changes nothing; negative
/// diagonal entries flip their column of U; the singular values are sorted in decreasing order with their columns.
/// Matrices are row-major 3x3 arrays here (`m[3 * row + column]`).
struct JacobiSVD3 {
    private(set) var u: [Float] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
    private(set) var v: [Float] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
    private(set) var singularValues: [Float] = [0, 0, 0]

    /// A plane rotation (Eigen's `JacobiRotation`: c, s).
    struct Rotation {
        var c: Float, s: Float
        var transposed: Rotation { Rotation(c: c, s: -s) }
        /// Eigen's `operator*`: (c1 c2 - s1 s2, c1 s2 + s1 c2).
        static func * (a: Rotation, b: Rotation) -> Rotation {
            Rotation(c: a.c * b.c - a.s * b.s, s: a.c * b.s + a.s * b.c)
        }
    }

    /// nil when a coefficient is not finite (Eigen reports `InvalidInput`).
    init?(_ matrix: [Float]) {
        guard matrix.count == 9 else { return nil }
        var scale: Float = 0
        for x in matrix {
            guard x.isFinite else { return nil }
            scale = max(scale, abs(x))
        }
        // A power of two near the largest magnitude: dividing by it is exact.
        scale = scale == 0 ? 1 : Float(sign: .plus, exponent: scale.exponent, significand: 1)
        var w = matrix.map { $0 / scale }
        let considerAsZero = Float.leastNormalMagnitude
        let precision = 2 * Float.ulpOfOne
        var maxDiagEntry = max(abs(w[0]), abs(w[4]), abs(w[8]))
        var finished = false
        var sweeps = 0
        while !finished && sweeps < 100 {
            finished = true
            sweeps += 1
            for p in 1..<3 {
                for q in 0..<p {
                    let threshold = max(considerAsZero, precision * maxDiagEntry)
                    guard abs(w[3 * p + q]) > threshold || abs(w[3 * q + p]) > threshold else { continue }
                    finished = false
                    let (left, right) = Self.real2x2JacobiSVD(w, p, q)
                    Self.applyOnTheLeft(&w, p, q, left)
                    Self.applyOnTheRight(&u, p, q, left.transposed)
                    Self.applyOnTheRight(&w, p, q, right)
                    Self.applyOnTheRight(&v, p, q, right)
                    maxDiagEntry = max(maxDiagEntry, max(abs(w[4 * p]), abs(w[4 * q])))
                }
            }
        }
        for i in 0..<3 {
            let a = w[4 * i]
            singularValues[i] = abs(a)
            if a < 0 { for r in 0..<3 { u[3 * r + i] = -u[3 * r + i] } }
        }
        for i in 0..<3 { singularValues[i] *= scale }
        for i in 0..<3 {
            // The largest remaining value, the first of equals (Eigen's maxCoeff).
            var pos = i
            for j in (i + 1)..<3 where singularValues[j] > singularValues[pos] { pos = j }
            if singularValues[pos] == 0 { break }
            if pos != i {
                singularValues.swapAt(i, pos)
                for r in 0..<3 { u.swapAt(3 * r + i, 3 * r + pos); v.swapAt(3 * r + i, 3 * r + pos) }
            }
        }
    }

    /// `internal::real_2x2_jacobi_svd`: the left and right rotations that diagonalize block (p, q).
    static func real2x2JacobiSVD(_ w: [Float], _ p: Int, _ q: Int) -> (Rotation, Rotation) {
        var m = [w[4 * p], w[3 * p + q], w[3 * q + p], w[4 * q]]  // m00, m01, m10, m11
        let t = m[0] + m[3], d = m[2] - m[1]
        var rot1 = Rotation(c: 1, s: 0)
        if abs(d) >= Float.leastNormalMagnitude {
            let u = t / d
            let s = 1 / (u * u + 1).squareRoot()
            rot1 = Rotation(c: u * s, s: s)
        }
        // m.applyOnTheLeft(0, 1, rot1): rows 0 and 1.
        let (a0, a1, b0, b1) = (m[0], m[1], m[2], m[3])
        m[0] = rot1.c * a0 + rot1.s * b0; m[1] = rot1.c * a1 + rot1.s * b1
        m[2] = -rot1.s * a0 + rot1.c * b0; m[3] = -rot1.s * a1 + rot1.c * b1
        let right = makeJacobi(x: m[0], y: m[1], z: m[3])
        return (rot1 * right.transposed, right)
    }

    /// The right rotation of the symmetric block [[x, y], [y, z]] (`makeJacobi` in MediaPipe's Eigen): with
    /// a = |x - z|, b = 2|y| and r = min(a, b) / max(a, b), the rotation (c, s) is (q, p) / sqrt(q^2 + p^2) for
    /// q = (1 if a > b, else r) + sqrt(r^2 + 1) and p = (r if a > b, else 1), s negative where x > z, then negated
    /// where y < 0: Eigen 3.4's tau = (x - z) / 2|y| formulas, rescaled.
    static func makeJacobi(x: Float, y: Float, z: Float) -> Rotation {
        let b = abs(y) + abs(y)
        guard b >= Float.leastNormalMagnitude else { return Rotation(c: 1, s: 0) }
        let difference = x - z, a = abs(difference)
        let r = min(b, a) / max(a, b)
        let p: Float = a > b ? r : 1
        let q = (b < a ? 1 : r) + (r * r + 1).squareRoot()
        let n = 1 / (q * q + p * p).squareRoot()
        var s = p * n
        if difference > 0 { s = -s }
        if y < 0 { s = -s }
        return Rotation(c: q * n, s: s)
    }

    /// Rows p and q of `m` by `j` (`apply_rotation_in_the_plane`: x' = c x + s y, y' = -s x + c y).
    static func applyOnTheLeft(_ m: inout [Float], _ p: Int, _ q: Int, _ j: Rotation) {
        for k in 0..<3 {
            let x = m[3 * p + k], y = m[3 * q + k]
            m[3 * p + k] = j.c * x + j.s * y
            m[3 * q + k] = -j.s * x + j.c * y
        }
    }

    /// Columns p and q of `m` by `j` (Eigen applies the transpose in the plane of the columns).
    static func applyOnTheRight(_ m: inout [Float], _ p: Int, _ q: Int, _ j: Rotation) {
        let t = j.transposed
        for k in 0..<3 {
            let x = m[3 * k + p], y = m[3 * k + q]
            m[3 * k + p] = t.c * x + t.s * y
            m[3 * k + q] = -t.s * x + t.c * y
        }
    }
}
