/// MediaPipe's float-precision weighted orthogonal Procrustes solver (face_geometry/libs/procrustes_solver.cc):
/// the similarity transform (scale times rotation, then translation) that maps `sources` onto `targets` with the
/// least weighted squared error, as a 4x4 matrix, ROW-MAJOR. Points are three rows of coordinates (x, y, z).
///
/// The arithmetic follows the Eigen expressions it is written in, in the orders `EigenArithmetic` gives; the SVD
/// is `JacobiSVD3`.
enum ProcrustesSolver {
    /// Thresholds of the solver (`kAbsoluteErrorEps`).
    static let absoluteErrorEps: Float = 1e-9

    enum Failure: Error, Equatable, CustomStringConvertible {
        case totalWeightTooSmall, designMatrixNormTooSmall, scaleDenominatorTooSmall, scaleTooSmall, notFinite
        var description: String {
            switch self {
            case .totalWeightTooSmall: return "the total point weight is too small"
            case .designMatrixNormTooSmall: return "the design matrix norm is too small"
            case .scaleDenominatorTooSmall: return "the scale expression's denominator is too small"
            case .scaleTooSmall: return "the scale is too small"
            case .notFinite: return "the design matrix is not finite"
            }
        }
    }

    /// `SolveWeightedOrthogonalProblem(sources, targets, weights)`; `sqrtWeights` are the square roots of the
    /// weights (the solver takes them once per call; the pipeline computes them once).
    static func solve(sources: [[Float]], targets: [[Float]], sqrtWeights: [Float]) throws -> [Float] {
        let n = sqrtWeights.count
        func weighted(_ rows: [[Float]]) -> [[Float]] { rows.map { row in (0..<n).map { row[$0] * sqrtWeights[$0] } } }
        let weightedSources = weighted(sources), weightedTargets = weighted(targets)
        let totalWeight = EigenArithmetic.sum(n) { sqrtWeights[$0] * sqrtWeights[$0] }
        guard totalWeight > absoluteErrorEps else { throw Failure.totalWeightTooSmall }
        let twiceWeightedSources = weighted(weightedSources)
        let centerOfMass = twiceWeightedSources.map { EigenArithmetic.rowSum($0) / totalWeight }
        let centered = (0..<3).map { r in (0..<n).map { weightedSources[r][$0] - centerOfMass[r] * sqrtWeights[$0] } }

        // The design matrix weighted_targets * centered^T and its optimal rotation.
        var design = [Float](repeating: 0, count: 9)
        for i in 0..<3 { for j in 0..<3 { design[3 * i + j] = EigenArithmetic.dot(weightedTargets[i], centered[j]) } }
        let norm = EigenArithmetic.sum(9) { design[$0] * design[$0] }.squareRoot()
        guard norm > absoluteErrorEps else { throw Failure.designMatrixNormTooSmall }
        guard let svd = JacobiSVD3(design) else { throw Failure.notFinite }
        var post = svd.u
        let pre = transpose(svd.v)
        if determinant(post) * determinant(pre) < 0 { for r in 0..<3 { post[3 * r + 2] *= -1 } }
        let rotation = multiply3(post, pre)

        // The optimal scale.
        let rotatedCentered = apply(rotation, centered, n)
        let numerator = EigenArithmetic.sum(3 * n) { rotatedCentered[$0 % 3][$0 / 3] * weightedTargets[$0 % 3][$0 / 3] }
        let denominator = EigenArithmetic.sum(3 * n) { centered[$0 % 3][$0 / 3] * weightedSources[$0 % 3][$0 / 3] }
        guard denominator > absoluteErrorEps else { throw Failure.scaleDenominatorTooSmall }
        guard numerator / denominator > absoluteErrorEps else { throw Failure.scaleTooSmall }
        let scale = numerator / denominator
        let rotationAndScale = rotation.map { scale * $0 }

        // The translation: the weighted mean of what the scaled rotation leaves.
        let transformed = apply(rotationAndScale, weightedSources, n)
        let translation = (0..<3).map { r in
            EigenArithmetic.rowSum((0..<n).map { (weightedTargets[r][$0] - transformed[r][$0]) * sqrtWeights[$0] })
                / totalWeight
        }
        return [rotationAndScale[0], rotationAndScale[1], rotationAndScale[2], translation[0],
                rotationAndScale[3], rotationAndScale[4], rotationAndScale[5], translation[1],
                rotationAndScale[6], rotationAndScale[7], rotationAndScale[8], translation[2],
                0, 0, 0, 1]
    }

    static func transpose(_ m: [Float]) -> [Float] { [m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]] }

    /// Eigen's 3x3 determinant: m00 (m11 m22 - m12 m21) - m10 (m01 m22 - m02 m21) + m20 (m01 m12 - m02 m11).
    static func determinant(_ m: [Float]) -> Float {
        func helper(_ a: Int, _ b: Int, _ c: Int) -> Float {
            m[3 * 0 + a] * (m[3 * 1 + b] * m[3 * 2 + c] - m[3 * 1 + c] * m[3 * 2 + b])
        }
        return helper(0, 1, 2) - helper(1, 0, 2) + helper(2, 0, 1)
    }

    /// A 3x3 product (Eigen's lazy product: each coefficient a0 b0 + (a1 b1 + a2 b2), its unrolled sum).
    static func multiply3(_ a: [Float], _ b: [Float]) -> [Float] {
        var r = [Float](repeating: 0, count: 9)
        for i in 0..<3 { for j in 0..<3 {
            r[3 * i + j] = a[3 * i] * b[j] + (a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j])
        } }
        return r
    }

    /// A 3x3 matrix times 3 x n points (Eigen's lazy product of depth 3: a0 b0 + (a1 b1 + a2 b2)).
    static func apply(_ m: [Float], _ points: [[Float]], _ n: Int) -> [[Float]] {
        (0..<3).map { i in
            (0..<n).map { c in m[3 * i] * points[0][c] + (m[3 * i + 1] * points[1][c] + m[3 * i + 2] * points[2][c]) }
        }
    }
}

/// The order in which the Eigen of MediaPipe's wheel (mediapipe 1.2.3, libmediapipe.so, read from its machine code:
/// AVX, no fused multiply-add) sums: contiguous arrays in four 8-float packet accumulators, strided rows in eight
/// scalar accumulators, the 3 x N by N x 3 product as a GEMM whose depth is blocked at 240, depth-3 products as
/// a0 b0 + (a1 b1 + a2 b2).
enum EigenArithmetic {
    static let packet = 8
    /// `GEMM` depth blocking (`evaluateProductBlockingSizesHeuristic` with a 32 KB L1 for 3 x 468 x 3).
    static let gemmDepthBlock = 240

    /// `sum()` of `count` contiguous values (`redux_impl`, linear vectorized traversal, aligned data): fewer than
    /// 8 values in order; fewer than 32 whole packets' worth in one packet accumulator; otherwise four accumulators
    /// over 32-value chunks, the remaining whole packets into the first, second and third, combined
    /// (a0 + a1) + (a2 + a3); the packet's lanes halved (8 to 4 to 2 to 1); the values after the last whole packet
    /// in order.
    static func sum(_ count: Int, _ value: (Int) -> Float) -> Float {
        let p = packet, aligned = count / p * p
        guard count > 0 else { return 0 }
        guard aligned > 0 else {
            var r = value(0)
            for i in 1..<count { r += value(i) }
            return r
        }
        func load(_ i: Int) -> [Float] { (0..<p).map { value(i + $0) } }
        func add(_ a: inout [Float], _ i: Int) { for l in 0..<p { a[l] += value(i + l) } }
        var acc: [Float]
        if aligned < 4 * p {
            acc = load(0)
            for i in stride(from: p, to: aligned, by: p) { add(&acc, i) }
        } else {
            var a = [load(0), load(p), load(2 * p), load(3 * p)]
            let end4 = count / (4 * p) * (4 * p)
            for i in stride(from: 4 * p, to: end4, by: 4 * p) { for k in 0..<4 { add(&a[k], i + k * p) } }
            for k in 0..<((aligned - end4) / p) { add(&a[k], end4 + k * p) }
            acc = (0..<p).map { (a[0][$0] + a[1][$0]) + (a[2][$0] + a[3][$0]) }
        }
        var r = predux(acc)
        for i in aligned..<count { r += value(i) }
        return r
    }

    /// A packet's lanes added: halves onto the lower half down to two lanes, then lane 0 + lane 1.
    static func predux(_ lanes: [Float]) -> Float {
        var v = lanes
        while v.count > 2 {
            let h = v.count / 2
            v = (0..<h).map { v[$0] + v[$0 + h] }
        }
        return v.count == 2 ? v[0] + v[1] : v[0]
    }

    /// The sum of a Vector4f (one SSE packet): (x0 + x2) + (x1 + x3).
    static func sum4(_ x: [Float]) -> Float { (x[0] + x[2]) + (x[1] + x[3]) }

    /// A row of a column-major 3 x N matrix summed (strided: no packets): fewer than 32 values in order, else eight
    /// accumulators over groups of 8, combined ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)), then the rest.
    static func rowSum(_ row: [Float]) -> Float {
        let n = row.count
        guard n >= 32 else {
            guard var r = row.first else { return 0 }
            for x in row.dropFirst() { r += x }
            return r
        }
        var a = Array(row[0..<8])
        let end = n / 8 * 8
        for i in stride(from: 8, to: end, by: 8) { for j in 0..<8 { a[j] += row[i + j] } }
        var r = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]))
        for i in end..<n { r += row[i] }
        return r
    }

    /// One GEMM output: a chain from zero per depth block, k in order, the blocks' results added in order.
    static func dot(_ a: [Float], _ b: [Float]) -> Float {
        let n = min(a.count, b.count)
        var total: Float = 0
        for start in stride(from: 0, to: n, by: gemmDepthBlock) {
            var acc: Float = 0
            for k in start..<min(start + gemmDepthBlock, n) { acc += a[k] * b[k] }
            total += acc
        }
        return total
    }
}
