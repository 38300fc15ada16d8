import TasksVisionKernels

/// A matrix product summed as XNNPACK sums it: each output one chain of fused multiply-adds
/// that starts at the bias and takes k in order.
///
/// That is the order of XNNPACK's GEMM microkernels, so of MediaPipe's results (checked
/// against the TFLite XNNPACK delegate layer by layer: bit for bit). OpenBLAS's AVX-512
/// (SkylakeX) kernels sum each output in one such chain too, but from zero; the bias enters as
/// the first term of the product instead: the rows of A start with a 1, the weights with a row
/// holding the bias, and the chain begins fma(1, bias, 0) = bias. Two ways OpenBLAS would
/// still break the chain are kept out:
///
/// - its packed kernels split K into blocks of at most 448 (SkylakeX's SGEMM Q), each summed
///   from zero and then added; deeper products only take the small-matrix kernels (the calls
///   are cut to at most a million multiply-adds, OpenBLAS's limit for them);
/// - its small-matrix kernels sum a last partial vector of 1 to 8 columns as dot products
///   (when K >= 32); such a call is made 16-column wide on the zero-padded weights, into
///   scratch, and its columns copied out (faster than the dot products, too: 83 against 110 us
///   for 3136x24x65).
///
/// Under other OpenBLAS kernels (older CPUs) the product is as exact as any GEMM, just not
/// in XNNPACK's order. Any split of the rows gives the same values, so tiles, threads and
/// interleaving never change results.
struct BiasFirstGEMM {
    /// Columns of A: K, plus the leading 1 when there is a bias.
    let depth: Int
    let hasBias: Bool
    /// Output columns.
    let columns: Int
    /// [depth, paddedColumns]: the bias row (when there is one), then the weights transposed,
    /// columns beyond `columns` zero.
    let b: UnsafeMutablePointer<Float>
    let paddedColumns: Int
    /// Rows and columns per `sgemm` call (columns a multiple of 16, or all of them).
    let rowsPerCall: Int
    let columnBlock: Int

    /// OpenBLAS's limit for its small-matrix kernels (`sgemm_small_matrix_permit`): M*N*K.
    static let smallMatrixLimit = 1_000_000
    /// The deepest K OpenBLAS's SkylakeX packed kernels sum in one block (SGEMM_DEFAULT_Q).
    static let packedDepthLimit = 448
    /// Columns per call of products deeper than `packedDepthLimit` (small-matrix calls of up to
    /// a million multiply-adds: 32 to 64 columns measured best, 16 or 96 and up slower).
    static let deepColumnBlock = 48

    /// `weights` is [columns, k] row-major (a TFLite CONV_2D or FULLY_CONNECTED filter).
    /// `rowsPerCall` and `columnBlock` are the caller's preferred call shape; they shrink
    /// when the product is too deep for the packed kernels.
    init(weights: UnsafePointer<Float>, bias: UnsafePointer<Float>?, k: Int, columns: Int, rowsPerCall: Int,
         columnBlock: Int) {
        hasBias = bias != nil
        depth = k + (bias != nil ? 1 : 0)
        self.columns = columns
        paddedColumns = (columns + 15) / 16 * 16
        b = allocateAlignedFloats(depth * paddedColumns)
        b.initialize(repeating: 0, count: max(depth * paddedColumns, 1))
        let first = bias != nil ? 1 : 0
        if let bias { for c in 0..<columns { b[c] = bias[c] } }
        for c in 0..<columns { for i in 0..<k { b[(first + i) * paddedColumns + c] = weights[c * k + i] } }
        var rows = max(rowsPerCall, 1)
        var block = columnBlock >= columns ? columns : max(16, columnBlock / 16 * 16)
        if depth > Self.packedDepthLimit {
            // Every call on the small-matrix kernels: at most a million multiply-adds.
            block = min(block, Self.deepColumnBlock)
            rows = max(1, min(rows, Self.smallMatrixLimit / ((block + 15) / 16 * 16 * depth)))
        }
        self.rowsPerCall = rows
        self.columnBlock = block
    }

    func deallocate() { deallocateAlignedFloats(b) }

    /// Scratch floats `multiply` needs (one call's output, padded).
    var scratchFloats: Int { rowsPerCall * ((min(columnBlock, columns) + 15) / 16 * 16) }

    /// out[r, c] = bias[c] + sum_k a[r, k] * w[c, k] for `rows` rows: `a` rows hold `depth`
    /// floats (the leading 1 first when there is a bias), `lda` apart; outputs `ldc` apart.
    @inline(__always)
    func multiply(_ a: UnsafePointer<Float>, lda: Int, rows: Int, into out: UnsafeMutablePointer<Float>, ldc: Int,
                  scratch: UnsafeMutablePointer<Float>) {
        var r0 = 0
        while r0 < rows {
            let m = min(rowsPerCall, rows - r0)
            let aRows = a + r0 * lda, outRows = out + r0 * ldc
            var n0 = 0
            while n0 < columns {
                let width = min(columnBlock, columns - n0)
                let tail = width % 16
                if tail != 0 && tail <= 8 && depth >= 32 && m * width * depth <= Self.smallMatrixLimit {
                    // The small-matrix kernels' dot-product tail (see the type's documentation).
                    let padded = width - tail + 16
                    PlatformBLAS.sgemm(m: m, n: padded, k: depth, a: aRows, lda: lda, b: b + n0, ldb: paddedColumns,
                                       c: scratch, ldc: padded)
                    for r in 0..<m { copyFloats(scratch + r &* padded, outRows + r &* ldc + n0, count: width) }
                } else {
                    PlatformBLAS.sgemm(m: m, n: width, k: depth, a: aRows, lda: lda, b: b + n0, ldb: paddedColumns,
                                       c: outRows + n0, ldc: ldc)
                }
                n0 += width
            }
            r0 += m
        }
    }

    /// Scratch floats `multiply(rowsOf:)` needs for `rows` rows: their 1-led copy (with a bias)
    /// and one call's padded output.
    func scratchFloats(ledRows rows: Int) -> Int { (hasBias ? rows * depth : 0) + scratchFloats }

    /// The product for `rows` input rows of K floats, `stride` apart: read in place, or with a
    /// bias first copied behind their 1 into `scratch`.
    @inline(__always)
    func multiply(rowsOf src: UnsafePointer<Float>, stride: Int, rows: Int, into out: UnsafeMutablePointer<Float>,
                  ldc: Int,
                  scratch: UnsafeMutablePointer<Float>) {
        guard hasBias else {
            multiply(src, lda: stride, rows: rows, into: out, ldc: ldc, scratch: scratch)
            return
        }
        augment(src, stride: stride, rows: rows, into: scratch)
        multiply(scratch, lda: depth, rows: rows, into: out, ldc: ldc, scratch: scratch + rows * depth)
    }

    /// Copies `rows` rows of K floats (`stride` apart) into `dst` as rows of `depth` floats,
    /// each led by the 1 that multiplies the bias.
    @inline(__always)
    func augment(_ src: UnsafePointer<Float>, stride: Int, rows: Int, into dst: UnsafeMutablePointer<Float>) {
        let first = hasBias ? 1 : 0
        for r in 0..<rows {
            let d = dst + r &* depth
            if hasBias { d[0] = 1 }
            copyFloats(src + r &* stride, d + first, count: depth - first)
        }
    }
}

/// Copies `count` floats by 8-float vectors, the last partial one as the vector ending at the
/// end (overlapping the one before) when there are at least 8.
@inline(__always)
func copyFloats(_ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Float>, count: Int) {
    if count >= 8 {
        var i = 0
        while i &+ 8 <= count { store8(load8(src + i), dst + i); i &+= 8 }
        if i < count { store8(load8(src + (count &- 8)), dst + (count &- 8)) }
    } else {
        for i in 0..<count { dst[i] = src[i] }
    }
}
