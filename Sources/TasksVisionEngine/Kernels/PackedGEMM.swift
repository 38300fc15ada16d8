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
    @inline(__always)
    func multiply(_ a: UnsafePointer<Float>, lda: Int, rows: Int, into out: UnsafeMutablePointer<Float>, ldc: Int, firstRow: Int,
                  segments: Int = 1, segmentStride: Int = 0) {
        let (lo, hi) = epilogue.bounds
        let rc = epilogue.residualChannels > 0 ? min(epilogue.residualChannels, columns) : columns
        kernel(GEMMArguments(m: rows, n: columns, k: k, a: a, lda: lda, packed: weights.data, c: out, ldc: ldc,
                             residual: epilogue.residual.map { $0 + firstRow * rc }, residualStride: rc, residualChannels: rc,
                             lo: lo, hi: hi, alpha: epilogue.alpha, segments: segments, segmentStride: segmentStride))
        if epilogue.activation == .tanh {
            for r in 0..<rows { let row = out + r * ldc; for c in 0..<columns { row[c] = tanhf(row[c]) } }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
