import COpenBLAS
import TasksVisionFormat

/// Geometry of a 2-D convolution or pool over NHWC tensors.
struct ConvGeometry: Equatable {
    var batch: Int
    var inH: Int, inW: Int, inC: Int
    var outH: Int, outW: Int, outC: Int
    var kH: Int, kW: Int
    var strideH: Int, strideW: Int
    var dilationH: Int = 1, dilationW: Int = 1
    var padTop: Int, padLeft: Int

    /// TFLite's padding rule: SAME pads `max((out-1)*stride + k_eff - in, 0)`, the smaller half first.
    static func padding(_ p: Padding, input: Int, kernel: Int, stride: Int, dilation: Int) -> (out: Int, before: Int, after: Int) {
        let effective = (kernel - 1) * dilation + 1
        switch p {
        case .same:
            let out = (input + stride - 1) / stride
            let total = max((out - 1) * stride + effective - input, 0)
            return (out, total / 2, total - total / 2)
        case .valid:
            return ((input - effective + stride) / stride, 0, 0)
        }
    }
}

/// CONV_2D through OpenBLAS `sgemm` on NHWC data.
///
/// A 1x1 stride-1 unpadded convolution is one GEMM straight on the input
/// (pixels x Cin times Cin x Cout); any other shape gathers a tile of output
/// pixels' receptive fields (im2col, zeros for padding) into scratch first.
/// Output pixels are processed in fixed tiles so that the bias/activation
/// epilogue runs while the tile is still in cache and so that threads split the
/// work the same way at any thread count.
///
/// Layers with few weights (Cout x K up to about 10,000, Cout at least 16: the wide early
/// layers with 8 to 144 input channels) keep a transposed copy of their weights and call
/// `sgemm` untransposed on tiles of at most a million multiply-adds: OpenBLAS then takes
/// its small-matrix kernels, which read the operands in place instead of packing them,
/// 1.1x to 1.8x faster on these shapes (measured on Zen 4 against the packed path; with
/// 8 output channels or fewer they are slower, so those stay packed).
final class Conv2DLayer: Layer, CustomStringConvertible {
    var description: String { "\(g.inH)x\(g.inW)x\(g.inC) k\(g.kH)x\(g.kW) s\(g.strideH) -> \(g.outH)x\(g.outW)x\(g.outC) tile \(tileRows)" }
    let kind = "CONV_2D"
    let g: ConvGeometry
    let input: UnsafeMutablePointer<Float>
    let output: UnsafeMutablePointer<Float>
    /// [Cout, kH, kW, Cin] as in the model: exactly the transposed B of the GEMM.
    let weights: UnsafePointer<Float>
    let epilogue: Epilogue
    /// What of the epilogue remains after the GEMM (without the bias when it is preset).
    let afterGEMM: Epilogue
    /// Whether the bias is written into the output before a beta-1 GEMM (see `presetBiasMinimumDepth`).
    let presetsBias: Bool
    let pointwise: Bool
    let k: Int
    let tileRows: Int
    let pixels: Int
    /// [K, Cout]: the weights transposed, for the small-matrix path (nil on the packed path).
    let transposedWeights: UnsafeMutablePointer<Float>?
    /// Output channels per small-matrix call (all of them except on small maps, see
    /// `smallMatrixMaximumColumnBlocks`).
    let columnBlock: Int

    static let tileRows = 256
    /// OpenBLAS's limit for its small-matrix kernels (`sgemm_small_matrix_permit`): M*N*K.
    static let smallMatrixLimit = 1_000_000
    /// Tiles shorter than this lose more to the per-call cost than the kernels gain; longer
    /// than the maximum, the tile and its epilogue fall out of cache. (At 32 rather than 96,
    /// the 14x14 layers of the hand models, 48-384 channels, join the small-matrix path in
    /// tiles of 32-72 rows: their 1x1 convolutions take 4-6% less time than packed, measured
    /// on an AVX-512 Xeon; below 32, the 7x7 layers' tiles of 8-16 rows gain nothing.)
    static let smallMatrixMinimumRows = 32, smallMatrixMaximumRows = 512
    /// A pointwise layer on a small map (7x7) whose weights are too many for row tiles can still
    /// take the small-matrix kernels in blocks of output channels, each call reading the whole
    /// input again (from cache). Up to 4 blocks this beats packing the operands (the 7x7 layers
    /// of hand_landmark_lite: 3% of the model); at 7 to 12 blocks the re-reads cost more.
    static let smallMatrixMaximumColumnBlocks = 4
    /// Below 16 output channels the small-matrix kernels are slower than the packed ones.
    static let smallMatrixMinimumChannels = 16
    /// GEMMs at least this deep (K) get the bias preset into their output and add to it with
    /// beta 1, so that the sums round as XNNPACK's do, whose accumulators start at the bias
    /// (adding the bias after the product in every layer moved borderline pose results away
    /// from MediaPipe's: one turned photo's landmarks by 0.10, the pose count on 78 video
    /// frames). Shallower GEMMs add the bias in the epilogue pass instead: the preset is a pass
    /// of its own over the output, a store stream with nothing to hide its cache misses behind,
    /// read back by the GEMM, and costs up to a quarter of a GEMM this shallow (4-5% of
    /// hand_landmark_lite). With this split every task result against MediaPipe stays as it
    /// was at the printed precision.
    static let presetBiasMinimumDepth = 65

    init(geometry: ConvGeometry, input: UnsafeMutablePointer<Float>, output: UnsafeMutablePointer<Float>,
         weights: UnsafePointer<Float>, epilogue: Epilogue) {
        g = geometry
        self.input = input
        self.output = output
        self.weights = weights
        self.epilogue = epilogue
        k = g.kH * g.kW * g.inC
        presetsBias = epilogue.bias != nil && k >= Self.presetBiasMinimumDepth
        afterGEMM = presetsBias ? epilogue.withoutBias : epilogue
        pointwise = g.kH == 1 && g.kW == 1 && g.strideH == 1 && g.strideW == 1 && g.padTop == 0 && g.padLeft == 0
            && g.inH == g.outH && g.inW == g.outW
        pixels = g.outH * g.outW
        // Each sgemm call packs the whole weight matrix, so tiles must be tall enough to
        // amortize that (>= 256 rows); im2col tiles are also capped at ~1 MiB of scratch.
        // The tiling never depends on the thread count, so neither do the results.
        let smallRows = Self.smallMatrixLimit / max(k * g.outC, 1) / 8 * 8
        let blockColumns = Self.smallMatrixLimit / max(pixels * k, 1) / 16 * 16
        if smallRows >= Self.smallMatrixMinimumRows && g.outC >= Self.smallMatrixMinimumChannels {
            transposedWeights = transposedCopy(weights, rows: g.outC, columns: k)
            tileRows = min(pixels, smallRows, Self.smallMatrixMaximumRows)
            columnBlock = g.outC
        } else if pointwise && g.batch == 1 && blockColumns >= 16 && g.outC > blockColumns
                    && (g.outC + blockColumns - 1) / blockColumns <= Self.smallMatrixMaximumColumnBlocks {
            transposedWeights = transposedCopy(weights, rows: g.outC, columns: k)
            tileRows = pixels
            columnBlock = blockColumns
        } else {
            columnBlock = g.outC
            transposedWeights = nil
            var rows = Self.tileRows
            if !pointwise { rows = max(64, min(rows, (256 * 1024) / max(k, 1))) }
            tileRows = pixels <= rows + rows / 2 ? pixels : rows
        }
    }

    deinit { transposedWeights?.deallocate() }

    var flops: Double { 2.0 * Double(g.batch * pixels * g.outC * k) }
    var scratchFloatsPerWorker: Int { pointwise || g.outC == 1 ? 0 : tileRows * k }

    func run(_ context: RunContext) {
        if g.outC == 1 {
            singleChannel(context)
            return
        }
        parallelFor(tileCount, context: context) { item, worker in tile(item, worker: worker, context) }
    }

    /// Output tiles per run (over all images).
    var tileCount: Int { g.batch * ((pixels + tileRows - 1) / tileRows) }

    /// Computes output tile `item`: rows of output pixels in order, image by image.
    @inline(__always)
    func tile(_ item: Int, worker: Int, _ context: RunContext) {
        let tilesPerImage = (pixels + tileRows - 1) / tileRows
        let n = item / tilesPerImage
        let p0 = (item % tilesPerImage) * tileRows
        compute(image: n, firstPixel: p0, count: min(tileRows, pixels - p0), into: output + (n * pixels + p0) * g.outC,
                worker: worker, context)
    }

    /// Whether `compute` gives the same values for any run of pixels as for whole tiles: one
    /// small-matrix call per run (the kernels' sums do not depend on where a run starts).
    var computesAnyRun: Bool { pointwise && transposedWeights != nil && columnBlock == g.outC }

    /// Output pixels `p0..<p0 + rows` of image `n`, written to `out` (`g.outC` floats per pixel),
    /// bias and epilogue included.
    @inline(__always)
    func compute(image n: Int, firstPixel p0: Int, count rows: Int, into out: UnsafeMutablePointer<Float>,
                 worker: Int, _ context: RunContext) {
        let a: UnsafePointer<Float>
        if pointwise {
            a = UnsafePointer(input + (n * pixels + p0) * g.inC)
        } else {
            let scratch = context.scratch(forWorker: worker)
            im2col(image: n, firstPixel: p0, rows: rows, into: scratch)
            a = UnsafePointer(scratch)
        }
        // Deep enough GEMMs: the bias goes in first and the GEMM adds to it (beta 1); the
        // residual and activation are left for afterwards.
        let preset = presetsBias
        if preset { epilogue.presetBias(out, rows: rows, channels: g.outC, stride: g.outC) }
        if let wT = transposedWeights {
            var n0 = 0
            while n0 < g.outC {
                let width = min(columnBlock, g.outC - n0)
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(rows), Int32(width), Int32(k),
                            1, a, Int32(k), wT + n0, Int32(g.outC), preset ? 1 : 0, out + n0, Int32(g.outC))
                n0 += width
            }
        } else {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Int32(rows), Int32(g.outC), Int32(k),
                        1, a, Int32(k), weights, Int32(k), preset ? 1 : 0, out, Int32(g.outC))
        }
        afterGEMM.apply(out, rows: rows, channels: g.outC, stride: g.outC, firstRow: n * pixels + p0)
    }

    /// One output channel (the pose models' segmentation head): each output is the dot product
    /// of its receptive field with the weights, read straight from the input. Through im2col
    /// and a GEMM of one column, the gathered rows (K floats per output) cost more memory
    /// traffic than the arithmetic. Taps outside the image are skipped (zero padding).
    func singleChannel(_ context: RunContext) {
        let c = g.inC
        let tapStep = g.dilationW * c, rowStep = g.dilationH * g.inW * c
        // Every shape takes the checked walk below except the pose heads' 3x3 over 8 channels
        // away from the border, unrolled; both sum the taps in the same order.
        parallelFor(g.batch * g.outH, context: context) { item, _ in
            let n = item / g.outH, oy = item % g.outH
            let image = input + n * g.inH * g.inW * c
            let row = (n * g.outH + oy) * g.outW
            let iy0 = oy * g.strideH - g.padTop
            let rowsInside = iy0 >= 0 && iy0 + (g.kH - 1) * g.dilationH < g.inH
            for ox in 0..<g.outW {
                let ix0 = ox * g.strideW - g.padLeft
                var acc = SIMD8<Float>()
                var rest: Float = 0
                if rowsInside && ix0 >= 0 && ix0 + (g.kW - 1) * g.dilationW < g.inW && c == 8 && g.kH == 3 && g.kW == 3 {
                    // The pose heads' shape (3x3 over 8 channels), unrolled: 9 taps of one vector each.
                    let p = image + (iy0 * g.inW + ix0) * 8
                    for t in 0..<9 {
                        acc = acc + load8(p + (t / 3) * rowStep + (t % 3) * tapStep) * load8(weights + t * 8)
                    }
                } else {
                    for ky in 0..<g.kH {
                        let iy = iy0 + ky * g.dilationH
                        if iy < 0 || iy >= g.inH { continue }
                        for kx in 0..<g.kW {
                            let ix = ix0 + kx * g.dilationW
                            if ix < 0 || ix >= g.inW { continue }
                            let p = image + (iy * g.inW + ix) * c, w = weights + (ky * g.kW + kx) * c
                            var ch = 0
                            while ch &+ 8 <= c { acc = acc + load8(p + ch) * load8(w + ch); ch &+= 8 }
                            while ch < c { rest += p[ch] * w[ch]; ch &+= 1 }
                        }
                    }
                }
                let h = acc.lowHalf + acc.highHalf
                output[row + ox] = ((h[0] + h[2]) + (h[1] + h[3])) + rest
            }
            epilogue.apply(output + row, rows: g.outW, channels: 1, stride: 1, firstRow: row)
        }
    }

    /// Gathers the receptive fields of `rows` output pixels into rows of `k` floats.
    /// Pixels whose window lies inside the image copy kH runs of kW * C floats;
    /// the others fill taps outside the image with zeros.
    @inline(__always)
    func im2col(image n: Int, firstPixel p0: Int, rows: Int, into dst: UnsafeMutablePointer<Float>) {
        let c = g.inC
        let base = input + n * g.inH * g.inW * c
        let run = g.kW * c
        let rowStep = g.dilationH * g.inW * c
        var oy = p0 / g.outW, ox = p0 % g.outW
        var d = dst
        for _ in 0..<rows {
            let iy0 = oy * g.strideH - g.padTop, ix0 = ox * g.strideW - g.padLeft
            if g.dilationW == 1 && iy0 >= 0 && iy0 + (g.kH - 1) * g.dilationH < g.inH && ix0 >= 0 && ix0 + g.kW <= g.inW {
                // All taps inside: kH contiguous runs. A run's last partial vector is copied as the
                // vector ending at the run's end (overlapping the one before), not float by float.
                var src = base + (iy0 &* g.inW &+ ix0) &* c
                for _ in 0..<g.kH {
                    if run >= 8 {
                        var i = 0
                        while i &+ 8 <= run { store8(load8(src + i), d + i); i &+= 8 }
                        if i < run { store8(load8(src + (run &- 8)), d + (run &- 8)) }
                    } else {
                        for i in 0..<run { d[i] = src[i] }
                    }
                    src += rowStep
                    d += run
                }
            } else {
                for ky in 0..<g.kH {
                    let iy = iy0 + ky * g.dilationH
                    for kx in 0..<g.kW {
                        let ix = ix0 + kx * g.dilationW
                        if iy < 0 || iy >= g.inH || ix < 0 || ix >= g.inW {
                            for i in 0..<c { d[i] = 0 }
                        } else {
                            let src = base + (iy * g.inW + ix) * c
                            for i in 0..<c { d[i] = src[i] }
                        }
                        d += c
                    }
                }
            }
            ox += 1
            if ox == g.outW { ox = 0; oy += 1 }
        }
    }
}

/// A [columns, rows] copy of a row-major [rows, columns] matrix: weights laid out as the B of an
/// untransposed `sgemm`, which OpenBLAS's small-matrix kernels read in place.
func transposedCopy(_ m: UnsafePointer<Float>, rows: Int, columns: Int) -> UnsafeMutablePointer<Float> {
    let t = UnsafeMutablePointer<Float>.allocate(capacity: max(rows * columns, 1))
    for r in 0..<rows { for c in 0..<columns { t[c * rows + r] = m[r * columns + c] } }
    return t
}
