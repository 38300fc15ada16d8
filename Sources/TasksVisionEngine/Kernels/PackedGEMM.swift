import TasksVisionKernels

/// A convolution's or fully connected layer's product on an FMA kernel set: the weights packed
/// once at load with the bias first (`PackedWeights`), the set's GEMM microkernel, and the
/// epilogue (residual, clamp, PReLU) applied while each tile is in registers. Each output is one
/// fused multiply-add chain from the bias in k order, XNNPACK's sum, so any split of the rows
/// (tiles, threads, interleaving) gives the same bits on every CPU.
struct PackedGEMM {
    let weights: PackedWeights
    let kernel: (GEMMArguments) -> Void
    let k: Int
    let columns: Int
    let epilogue: Epilogue

    /// `weights` is [columns, k] row-major; `epilogue.bias` is packed with them.
    init(weights: UnsafePointer<Float>, k: Int, columns: Int, epilogue: Epilogue, kernels: Microkernels) {
        guard let gemm = kernels.gemm(columns: columns) else { preconditionFailure("PackedGEMM needs an FMA kernel set") }
        self.weights = PackedWeights(weights: weights, bias: epilogue.bias, n: columns, k: k, nr: gemm.nr)
        kernel = gemm.run
        self.k = k
        self.columns = columns
        self.epilogue = epilogue
    }

    /// `out[r, :]` for `rows` rows of `a` (k floats each, `lda` apart), written `ldc` apart;
    /// `firstRow` is the first row's index in the whole output (for the residual).
    /// With `segments` > 1, each row of A is that many runs of k / segments floats, `segmentStride`
    /// apart (a convolution window read in place, see `GEMMArguments.segments`).
    /// `slice` (column blocks `slice` of `weights.nr` columns, by default all) computes only those
    /// columns: threads that share a short layer split its weights instead of each reading them all.
    @inline(__always)
    func multiply(_ a: UnsafePointer<Float>, lda: Int, rows: Int, into out: UnsafeMutablePointer<Float>, ldc: Int, firstRow: Int,
                  segments: Int = 1, segmentStride: Int = 0, slice: Range<Int>? = nil) {
        let (lo, hi) = epilogue.bounds
        let rc = epilogue.residualChannels > 0 ? min(epilogue.residualChannels, columns) : columns
        let nr = weights.nr
        let j0 = (slice?.lowerBound ?? 0) * nr, j1 = min(columns, (slice?.upperBound ?? blocks) * nr)
        guard j0 < j1 else { return }
        kernel(GEMMArguments(m: rows, n: j1 - j0, k: k, a: a, lda: lda, packed: weights.data + j0 * (k + 1), c: out + j0, ldc: ldc,
                             residual: epilogue.residual.map { $0 + firstRow * rc + j0 }, residualStride: rc,
                             residualChannels: rc - j0, lo: lo, hi: hi, alpha: epilogue.alpha.map { $0 + j0 },
                             segments: segments, segmentStride: segmentStride))
        if epilogue.activation == .tanh {
            for r in 0..<rows { let row = out + r * ldc; for c in j0..<j1 { row[c] = tanhf(row[c]) } }
        }
    }

    /// Column blocks of the packed weights.
    var blocks: Int { (columns + weights.nr - 1) / weights.nr }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
