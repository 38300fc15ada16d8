#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TasksVisionKernels

/// A convolution's or fully connected layer's product on an FMA kernel set: the weights packed
/// once at load with the bias first (`PackedWeights`), the set's GEMM microkernel, and the
/// epilogue (residual, clamp, PReLU) applied while each tile is in registers. Each output is one
/// fused multiply-add chain from the bias in k order, XNNPACK's sum (on arm64, some layers sum in lane
/// chains or two chains instead, and on the first Zen in rotated quads, as XNNPACK there: `Microkernels.plainGEMM`,
/// `windowGEMM`), so any split of the rows (tiles, threads, interleaving) or of the columns gives the same bits.
final class PackedGEMM {
    /// The columns in whole tiles of the chosen GEMM, and its kernel.
    let weights: PackedWeights
    let kernel: (GEMMArguments) -> Void
    /// Columns past the last whole wide tile that fit a narrower one (80 channels on AVX-512: 64 in two-vector
    /// tiles, 16 in one-vector tiles, not a third wide tile half padding): their own weights and kernel.
    let tail: (weights: PackedWeights, kernel: (GEMMArguments) -> Void)?
    let k: Int
    let columns: Int
    /// Columns in `weights` (all of them without a tail).
    let wideColumns: Int
    let epilogue: Epilogue
    /// The floats of one tap for a kernel that restarts its sum's pattern at each (`GEMMArguments.tapLength`).
    let tapLength: Int

    /// `weights` is [columns, k] row-major; `epilogue.bias` is packed with them. `instead`: the GEMM that runs all
    /// the columns in place of the set's tiles, where XNNPACK sums otherwise (arm64, the first Zen:
    /// `Microkernels.plainGEMM`, `windowGEMM`); `tapLength`: a KxK convolution's input channels, for it.
    init(weights: UnsafePointer<Float>, k: Int, columns: Int, epilogue: Epilogue, kernels: Microkernels,
         instead: Microkernels.GEMM? = nil, tapLength: Int = 0) {
        self.k = k
        self.columns = columns
        self.epilogue = epilogue
        self.tapLength = tapLength
        if let instead {
            wideColumns = columns
            tail = nil
            self.weights = instead.rotatedQuads
                ? PackedWeights(rotatedQuadsOf: weights, bias: epilogue.bias, n: columns, k: k, tapLength: tapLength,
                                nr: instead.nr)
                : PackedWeights(weights: weights, bias: epilogue.bias, n: columns, k: k, nr: instead.nr)
            kernel = instead.run
            return
        }
        let table = kernels.gemms(columns: columns)
        guard let gemm = Microkernels.gemm(columns: columns, in: table) else {
            preconditionFailure("PackedGEMM needs an FMA kernel set")
        }
        let rest = columns % gemm.nr
        let narrow = table.filter { $0.nr < gemm.nr && $0.nr >= rest }.min { $0.nr < $1.nr }
        if rest > 0, columns > gemm.nr, let narrow {
            let wide = columns - rest
            wideColumns = wide
            tail = (PackedWeights(weights: weights + wide * k, bias: epilogue.bias.map { $0 + wide }, n: rest, k: k,
                                  nr: narrow.nr), narrow.run)
        } else {
            wideColumns = columns
            tail = nil
        }
        self.weights = PackedWeights(weights: weights, bias: epilogue.bias, n: wideColumns, k: k, nr: gemm.nr)
        kernel = gemm.run
    }

    /// `out[r, :]` for `rows` rows of `a` (k floats each, `lda` apart), written `ldc` apart;
    /// `firstRow` is the first row's index in the whole output (for the residual).
    /// With `segments` > 1, each row of A is that many runs of k / segments floats, `segmentStride`
    /// apart (a convolution window read in place, see `GEMMArguments.segments`).
    /// `slice` (column blocks `slice`, by default all; the tail is the last block) computes only those
    /// columns: threads that share a short layer split its weights instead of each reading them all.
    @inline(__always)
    func multiply(_ a: UnsafePointer<Float>, lda: Int, rows: Int, into out: UnsafeMutablePointer<Float>, ldc: Int,
                  firstRow: Int, segments: Int = 1, segmentStride: Int = 0, slice: Range<Int>? = nil) {
        let nr = weights.nr, wideBlocks = (wideColumns + nr - 1) / nr
        let first = slice?.lowerBound ?? 0, last = slice?.upperBound ?? blocks
        let j0 = min(first * nr, wideColumns), j1 = min(wideColumns, min(last, wideBlocks) * nr)
        if j0 < j1 {
            product(kernel, weights, from: j0, to: j1, a, lda, rows, out, ldc, firstRow, segments, segmentStride)
        }
        let withTail = tail != nil && last > wideBlocks
        if let tail, withTail {
            product(tail.kernel, tail.weights, from: wideColumns, to: columns, a, lda, rows, out, ldc, firstRow,
                    segments, segmentStride)
        }
        if epilogue.activation == .tanh {
            let end = withTail ? columns : j1
            for r in 0..<rows { let row = out + r * ldc; for c in j0..<max(j0, end) { row[c] = tanhf(row[c]) } }
        }
    }

    /// Columns j0..<j1 on `kernel` with `packed` (whose first column is j0).
    @inline(__always)
    private func product(_ kernel: (GEMMArguments) -> Void, _ packed: PackedWeights, from j0: Int, to j1: Int,
                         _ a: UnsafePointer<Float>, _ lda: Int, _ rows: Int, _ out: UnsafeMutablePointer<Float>,
                         _ ldc: Int, _ firstRow: Int, _ segments: Int, _ segmentStride: Int) {
        let (lo, hi) = epilogue.bounds
        let rc = epilogue.residualChannels > 0 ? min(epilogue.residualChannels, columns) : columns
        let start = j0 < wideColumns ? j0 : j0 - wideColumns
        kernel(GEMMArguments(m: rows, n: j1 - j0, k: k, a: a, lda: lda, packed: packed.data + start * packed.depth,
                             c: out + j0, ldc: ldc, residual: epilogue.residual.map { $0 + firstRow * rc + j0 },
                             residualStride: rc, residualChannels: rc - j0, lo: lo, hi: hi,
                             alpha: epilogue.alpha.map { $0 + j0 }, segments: segments, segmentStride: segmentStride,
                             tapLength: tapLength))
    }

    /// Column blocks: the wide tiles' and the tail.
    var blocks: Int { (wideColumns + weights.nr - 1) / weights.nr + (tail == nil ? 0 : 1) }

    /// Bytes of packed weights.
    var byteCount: Int { (weights.count + (tail?.weights.count ?? 0)) * 4 }
}
