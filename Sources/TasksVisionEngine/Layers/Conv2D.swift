import TasksVisionFormat
import TasksVisionKernels

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
    static func padding(_ p: Padding, input: Int, kernel: Int, stride: Int,
                        dilation: Int) -> (out: Int, before: Int, after: Int) {
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
/// A 1x1 stride-1 unpadded convolution is one GEMM on the input pixels (pixels x Cin times
/// Cin x Cout); any other shape gathers a tile of output pixels' receptive fields (im2col,
/// zeros for padding) into scratch first. Each output is summed from its bias through the
/// taps in XNNPACK's order (`BiasFirstGEMM`): the gathered rows start with the 1 that
/// multiplies the bias, and a 1x1 convolution with a bias copies its input rows behind a 1.
/// Output pixels are processed in fixed tiles so that the activation/residual epilogue runs
/// while the tile is still in cache; no value depends on the tiling or the thread count.
///
/// Layers with few weights (Cout x K up to about 10,000, Cout at least 16: the wide early
/// layers with 8 to 144 input channels) take tiles of at most a million multiply-adds:
/// OpenBLAS then runs its small-matrix kernels, which read the operands in place instead of
/// packing them, 1.1x to 1.8x faster on these shapes (measured on Zen 4 against the packed
/// path; with 8 output channels or fewer they are slower, so those stay packed).
final class Conv2DLayer: Layer, CustomStringConvertible {
    var description: String {
        "\(g.inH)x\(g.inW)x\(g.inC) k\(g.kH)x\(g.kW) s\(g.strideH) -> \(g.outH)x\(g.outW)x\(g.outC) tile \(tileRows)"
    }
    let kind = "CONV_2D"
    let g: ConvGeometry
    let input: UnsafeMutablePointer<Float>
    let output: UnsafeMutablePointer<Float>
    /// [Cout, kH, kW, Cin] as in the model, for the portable set's direct one-channel path; nil on
    /// FMA sets, whose packed copy replaces the model's (the filter may be freed after load).
    let weights: UnsafePointer<Float>?
    let epilogue: Epilogue
    /// What of the epilogue remains after the GEMM (the bias is summed in it).
    let afterGEMM: Epilogue
    let pointwise: Bool
    let k: Int
    let tileRows: Int
    let pixels: Int
    /// The product on OpenBLAS (the portable kernel set), or nil for a single output channel
    /// over a large map (`singleChannel`) and on FMA kernel sets.
    let gemm: BiasFirstGEMM?
    /// The product on an FMA kernel set (XNNPACK's sums on every CPU), or nil for a single output channel over a
    /// large map (`oneChannel`).
    let packed: PackedGEMM?
    /// On an FMA set, one output channel over a large map (`takesOneChannelRows`): the set's row kernel, and the
    /// bias then the weights, copied (the model's filter may be freed after load).
    let oneChannel: (row: (OneChannelConvRowArguments) -> Void, filter: UnsafeMutablePointer<Float>)?
    /// The window's positions in the order the layer sums them when not ky, kx, channel (XNNPACK's arm64 NCHW
    /// first convolution, `SparseInferenceOrders`): its weights are packed and its windows gathered in that order.
    let windowOrder: [Int]?
    /// Whether a GEMM computes the layer (tiles, interleaving), not `singleChannel`.
    var hasProduct: Bool { gemm != nil || packed != nil }
    /// Whether the GEMM reads its input rows led by a 1 (OpenBLAS's bias-first product).
    var readsLedRows: Bool { gemm?.hasBias == true }

    static let tileRows = 256
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
    /// One output channel over at least this many pixels takes the direct kernel
    /// (`singleChannel`), unless OpenBLAS sums as XNNPACK; a GEMM of one column is padded to 16.
    static let singleChannelMinimumPixels = 4096

    /// Rows per tile on an FMA kernel set: a multiple of the microkernel's 6 rows, short enough
    /// for the tile's output (and its im2col rows) to stay in L2 for the next layer.
    static let packedTileRows = 96
    /// Work from which a layer on the packed GEMM splits finer than its tiles over the threads.
    static let splitMinimumFlops: Double = 1e6
    /// The fewest rows in one item of the finer split (two 7-row tiles).
    static let minimumItemRows = 14

    /// `sparseInference`: XNNPACK's arm64 build runs the layer in its NCHW layout (`Graph.Node.sparseInference`),
    /// which on a set that follows it sums in one chain, the first convolution of 3 channels in its own order.
    init(geometry: ConvGeometry, input: UnsafeMutablePointer<Float>, output: UnsafeMutablePointer<Float>,
         weights: UnsafePointer<Float>, epilogue: Epilogue, kernels: Microkernels = .portable,
         sparseInference: Bool = false) {
        g = geometry
        self.input = input
        self.output = output
        self.weights = kernels.gemms.isEmpty ? weights : nil
        self.epilogue = epilogue
        k = g.kH * g.kW * g.inC
        pointwise = g.kH == 1 && g.kW == 1 && g.strideH == 1 && g.strideW == 1 && g.padTop == 0 && g.padLeft == 0
            && g.inH == g.outH && g.inW == g.outW
        pixels = g.outH * g.outW
        let nchw = sparseInference && kernels.followsSparseInference && !kernels.gemms.isEmpty
        let order = nchw && !pointwise
            ? SparseInferenceOrders.intoNCHWConvolution(kH: geometry.kH, kW: geometry.kW, channels: geometry.inC) : nil
        windowOrder = order
        let depth = k + (epilogue.bias != nil ? 1 : 0)
        // Each packed sgemm call packs the whole weight matrix, so tiles must be tall enough to
        // amortize that (>= 256 rows); im2col tiles are also capped at ~1 MiB of scratch.
        let limit = BiasFirstGEMM.smallMatrixLimit
        let smallRows = limit / max(depth * ((g.outC + 15) / 16 * 16), 1) / 8 * 8
        let blockColumns = limit / max(pixels * depth, 1) / 16 * 16
        var columnBlock = g.outC, rows: Int
        if smallRows >= Self.smallMatrixMinimumRows && g.outC >= Self.smallMatrixMinimumChannels {
            rows = min(pixels, smallRows, Self.smallMatrixMaximumRows)
        } else if pointwise && g.batch == 1 && blockColumns >= 16 && g.outC > blockColumns
                    && (g.outC + blockColumns - 1) / blockColumns <= Self.smallMatrixMaximumColumnBlocks {
            rows = pixels
            columnBlock = blockColumns
        } else {
            rows = Self.tileRows
            if !pointwise { rows = max(64, min(rows, (256 * 1024) / max(depth, 1))) }
            rows = pixels <= rows + rows / 2 ? pixels : rows
        }
        if let row = kernels.oneChannelConvRow, Self.takesOneChannelRows(g, epilogue: epilogue, pixels: pixels),
           !nchw, !(pointwise && kernels.plainGEMM(columns: g.outC, rows: g.batch * pixels) != nil) {
            let filter = allocateAlignedFloats(k + 1)
            filter[0] = epilogue.bias?[0] ?? 0
            (filter + 1).update(from: weights, count: k)
            oneChannel = (row, filter)
            tileRows = pixels
            gemm = nil
            packed = nil
            afterGEMM = Epilogue()
            return
        }
        oneChannel = nil
        if !kernels.gemms.isEmpty {
            // A KxK tile spans several output rows, so the padded pixels at their ends go in one call (`windows`).
            let packedRows = pointwise ? Self.packedTileRows
                : max(Self.packedTileRows, min(4 * g.outW, (256 * 1024) / max(k + g.outC, 1)))
            tileRows = pixels <= packedRows * 3 / 2 ? pixels : packedRows
            gemm = nil
            let rows = g.batch * pixels
            let instead = nchw ? nil : pointwise ? kernels.plainGEMM(columns: g.outC, rows: rows)
                : kernels.windowGEMM(columns: g.outC, rows: rows)
            if let order {
                let k = self.k, columns = geometry.outC
                var reordered = [Float](repeating: 0, count: columns * k)
                for o in 0..<columns { for (j, i) in order.enumerated() { reordered[o * k + j] = weights[o * k + i] } }
                packed = reordered.withUnsafeBufferPointer { w in
                    PackedGEMM(weights: w.baseAddress ?? weights, k: k, columns: columns, epilogue: epilogue,
                               kernels: kernels)
                }
            } else {
                packed = PackedGEMM(weights: weights, k: k, columns: g.outC, epilogue: epilogue, kernels: kernels,
                                    instead: instead, tapLength: g.inC)
            }
            afterGEMM = Epilogue()
            return
        }
        packed = nil
        tileRows = rows
        // The direct kernel sums in 8 lanes, not XNNPACK's chain: where OpenBLAS's kernels sum as
        // XNNPACK does, the padded product keeps that guarantee.
        if g.outC == 1 && pixels >= Self.singleChannelMinimumPixels && !KernelSet.portable.sumsAsXNNPACK {
            gemm = nil
            afterGEMM = epilogue
        } else {
            gemm = BiasFirstGEMM(weights: weights, bias: epilogue.bias, k: k, columns: g.outC, rowsPerCall: rows,
                                 columnBlock: columnBlock)
            afterGEMM = epilogue.withoutBias
        }
    }

    deinit {
        gemm?.deallocate()
        if let oneChannel { deallocateAlignedFloats(oneChannel.filter) }
    }

    /// One output channel over a large map, stride 1 across, no dilation, at most a clamp after the sum: on an FMA
    /// set, the one-channel row kernel (`planarRows`) instead of a GEMM of one column padded to a whole tile.
    static func takesOneChannelRows(_ g: ConvGeometry, epilogue: Epilogue, pixels: Int) -> Bool {
        let clampOnly = [FusedActivation.none, .relu, .relu6, .reluN1To1].contains(epilogue.activation)
        return g.outC == 1 && pixels >= singleChannelMinimumPixels && g.strideW == 1 && g.dilationH == 1
            && g.dilationW == 1 && epilogue.residual == nil && epilogue.alpha == nil && clampOnly
    }

    /// Floats per plane of a planar input row (`OneChannelConvRowArguments.rows`), a multiple of 16.
    var planeStride: Int { ((g.outW + 15) / 16 * 16 + g.kW - 1 + 15) / 16 * 16 }

    var flops: Double { 2.0 * Double(g.batch * pixels * g.outC * k) }
    var packedWeightBytes: Int {
        if oneChannel != nil { return (k + 1) * 4 }
        return packed?.byteCount ?? (gemm.map { $0.depth * $0.paddedColumns } ?? 0) * 4
    }
    /// A tile's gathered rows (im2col) or 1-led input rows, then the GEMM's own scratch.
    var scratchFloatsPerWorker: Int {
        // A ring of kH planar input rows.
        if oneChannel != nil { return g.kH * g.inC * planeStride }
        // Gathered rows, then their products (`windows`).
        if packed != nil { return pointwise ? 0 : tileRows * (k + g.outC) }
        guard let gemm else { return 0 }
        return pointwise ? gemm.scratchFloats(ledRows: tileRows) : tileRows * gemm.depth + gemm.scratchFloats
    }

    func run(_ context: RunContext) {
        if let oneChannel {
            planarRows(oneChannel.row, filter: oneChannel.filter, context: context)
            return
        }
        guard hasProduct else {
            singleChannel(context)
            return
        }
        if let packed, context.threads > 1 && g.batch == 1 && flops >= Self.splitMinimumFlops {
            // On the packed GEMM any split gives the same values; items are about `itemsPerThread`
            // per thread, so the last thread to finish waits for a fraction of a small item, not
            // of a 96-row tile. A pointwise layer with too few tiles for the threads (a 7x7 map is
            // one) splits its columns too, so each thread reads its share of the weights (on small
            // maps, more bytes than the input), in as many row parts as keep 14 rows or more in
            // each (3 column blocks alone would leave one thread twice the other's work).
            let target = itemsPerThread * context.threads
            if pointwise && tileCount < 2 * context.threads && packed.blocks >= 2 {
                let blocks = packed.blocks, columnParts = min(blocks, target)
                let rowParts = max(1, min((target + columnParts - 1) / columnParts, pixels / Self.minimumItemRows))
                parallelFor(rowParts * columnParts, context: context) { item, _ in
                    let r = item / columnParts, c = item % columnParts
                    let r0 = r * pixels / rowParts, r1 = (r + 1) * pixels / rowParts
                    packed.multiply(input + r0 * g.inC, lda: g.inC, rows: r1 - r0, into: output + r0 * g.outC,
                                    ldc: g.outC,
                                    firstRow: r0, slice: (c * blocks / columnParts)..<((c + 1) * blocks / columnParts))
                }
                return
            }
            let wanted = (pixels + target - 1) / target
            let rows = min(tileRows, max(Self.minimumItemRows, wanted))
            parallelFor((pixels + rows - 1) / rows, context: context) { item, worker in
                let p0 = item * rows
                compute(image: 0, firstPixel: p0, count: min(rows, pixels - p0), into: output + p0 * g.outC,
                        scratch: context.scratch(forWorker: worker))
            }
            return
        }
        parallelFor(tileCount, context: context) { item, worker in
            tile(item, scratch: context.scratch(forWorker: worker))
        }
    }

    /// Whether calls for short runs of pixels (an image row) cost no more than tiles: each tile is
    /// one small-matrix call, which packs nothing (a packed call packs all the weights, per call).
    var runsCostLikeTiles: Bool {
        if packed != nil { return pointwise }
        guard let gemm, pointwise else { return false }
        return gemm.columnBlock == g.outC
            && tileRows * gemm.paddedColumns * gemm.depth <= BiasFirstGEMM.smallMatrixLimit
    }

    /// Output tiles per run (over all images).
    var tileCount: Int { g.batch * ((pixels + tileRows - 1) / tileRows) }

    /// Computes output tile `item`: rows of output pixels in order, image by image.
    /// `ledInput`, for a pointwise layer with a bias, is its input already in rows led by a 1.
    @inline(__always)
    func tile(_ item: Int, scratch: UnsafeMutablePointer<Float>, ledInput: UnsafePointer<Float>? = nil) {
        let tilesPerImage = (pixels + tileRows - 1) / tileRows
        let n = item / tilesPerImage
        let p0 = (item % tilesPerImage) * tileRows
        compute(image: n, firstPixel: p0, count: min(tileRows, pixels - p0), into: output + (n * pixels + p0) * g.outC,
                scratch: scratch,
                ledInput: ledInput)
    }

    /// Output pixels `p0..<p0 + count` of image `n`, written to `out` (`g.outC` floats per pixel),
    /// epilogue included; any run of pixels gives the same values as whole tiles.
    @inline(__always)
    func compute(image n: Int, firstPixel p0: Int, count: Int, into out: UnsafeMutablePointer<Float>,
                 scratch: UnsafeMutablePointer<Float>,
                 ledInput: UnsafePointer<Float>? = nil) {
        if let packed {
            var done = 0
            while done < count {
                let rows = min(tileRows, count - done), p = p0 + done, first = n * pixels + p
                if pointwise {
                    packed.multiply(input + first * g.inC, lda: g.inC, rows: rows, into: out + done * g.outC,
                                    ldc: g.outC, firstRow: first)
                } else {
                    windows(packed, image: n, firstPixel: p, count: rows, into: out + done * g.outC, scratch: scratch)
                }
                done += rows
            }
            return
        }
        guard let gemm else { return }
        var done = 0
        while done < count {
            let rows = min(tileRows, count - done), p = p0 + done
            let o = out + done * g.outC
            if !pointwise {
                im2col(image: n, firstPixel: p, rows: rows, into: scratch, leadingOne: gemm.hasBias)
                gemm.multiply(scratch, lda: gemm.depth, rows: rows, into: o, ldc: g.outC,
                              scratch: scratch + rows * gemm.depth)
            } else if gemm.hasBias, let ledInput {
                gemm.multiply(ledInput + (n * pixels + p) * gemm.depth, lda: gemm.depth, rows: rows, into: o,
                              ldc: g.outC, scratch: scratch)
            } else {
                gemm.multiply(rowsOf: input + (n * pixels + p) * g.inC, stride: g.inC, rows: rows, into: o, ldc: g.outC,
                              scratch: scratch)
            }
            afterGEMM.apply(o, rows: rows, channels: g.outC, stride: g.outC, firstRow: n * pixels + p)
            done += rows
        }
    }

    /// Output columns whose window lies inside the image horizontally (dilation 1).
    var interiorColumns: Range<Int> {
        guard g.dilationW == 1 else { return 0..<0 }
        var lo = 0
        while lo < g.outW && lo * g.strideW - g.padLeft < 0 { lo += 1 }
        var hi = g.outW
        while hi > lo && (hi - 1) * g.strideW - g.padLeft + g.kW > g.inW { hi -= 1 }
        return lo..<hi
    }

    /// A KxK convolution's pixels `p0..<p0 + count` of image `n` on the packed GEMM: runs of
    /// pixels whose window lies inside the image read it in place (one segment per kernel row,
    /// as XNNPACK's IGEMM reads through its indirection buffer), the others through im2col rows
    /// with zeros for the padding. Both give each output the same chain. Without a residual (read
    /// by row index), the im2col rows of the whole call go in one product, then to their pixels:
    /// under SAME padding every output row ends in such a pixel, one call each otherwise.
    @inline(__always)
    func windows(_ packed: PackedGEMM, image n: Int, firstPixel p0: Int, count: Int,
                 into out: UnsafeMutablePointer<Float>,
                 scratch: UnsafeMutablePointer<Float>) {
        let c = g.inC, interior = interiorColumns
        let base = input + n * g.inH * g.inW * c
        let gathers = packed.epilogue.residual == nil
        withUnsafeTemporaryAllocation(of: Int.self, capacity: max(count, 1)) { gatheredPixels in
            guard let gatheredAt = gatheredPixels.baseAddress else { return }
            var gathered = 0
            var done = 0
            while done < count {
                let p = p0 + done, oy = p / g.outW, ox = p % g.outW
                let rowLeft = min(count - done, g.outW - ox)
                let iy0 = oy * g.strideH - g.padTop
                let rowsInside = g.dilationH == 1 && iy0 >= 0 && iy0 + g.kH <= g.inH
                let o = out + done * g.outC, first = n * pixels + p
                if rowsInside && interior.contains(ox) && windowOrder == nil {
                    let run = min(rowLeft, interior.upperBound - ox)
                    packed.multiply(base + (iy0 * g.inW + ox * g.strideW - g.padLeft) * c, lda: g.strideW * c,
                                    rows: run,
                                    into: o, ldc: g.outC, firstRow: first, segments: g.kH, segmentStride: g.inW * c)
                    done += run
                    continue
                }
                let run = rowsInside && ox < interior.lowerBound ? min(rowLeft, interior.lowerBound - ox) : rowLeft
                if gathers {
                    im2col(image: n, firstPixel: p, rows: run, into: scratch + gathered * k, leadingOne: false)
                    reorderWindows(scratch + gathered * k, rows: run)
                    for j in 0..<run { gatheredAt[gathered + j] = done + j }
                    gathered += run
                } else {
                    im2col(image: n, firstPixel: p, rows: run, into: scratch, leadingOne: false)
                    reorderWindows(scratch, rows: run)
                    packed.multiply(scratch, lda: k, rows: run, into: o, ldc: g.outC, firstRow: first)
                }
                done += run
            }
            guard gathered > 0 else { return }
            let products = scratch + tileRows * k
            packed.multiply(scratch, lda: k, rows: gathered, into: products, ldc: g.outC, firstRow: 0)
            for j in 0..<gathered {
                (out + gatheredAt[j] * g.outC).update(from: products + j * g.outC, count: g.outC)
            }
        }
    }

    /// Gathered windows (`rows` of k floats at `p`) put in `windowOrder`, where the layer has one.
    @inline(__always)
    func reorderWindows(_ p: UnsafeMutablePointer<Float>, rows: Int) {
        guard let windowOrder else { return }
        withUnsafeTemporaryAllocation(of: Float.self, capacity: k) { buffer in
            guard let row = buffer.baseAddress else { return }
            for r in 0..<rows {
                let q = p + r * k
                row.update(from: q, count: k)
                for (j, i) in windowOrder.enumerated() { q[j] = row[i] }
            }
        }
    }

    /// One output channel (the pose models' segmentation head): each output is the dot product
    /// of its receptive field with the weights, read straight from the input. Through im2col
    /// and a GEMM of one column, the gathered rows (K floats per output) cost more memory
    /// traffic than the arithmetic. Taps outside the image are skipped (zero padding).
    func singleChannel(_ context: RunContext) {
        guard let weights else { return }
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
                if rowsInside && ix0 >= 0 && ix0 + (g.kW - 1) * g.dilationW < g.inW && c == 8 && g.kH == 3
                    && g.kW == 3 {
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

    /// One output channel on an FMA set: bands of output rows, one per item (several per thread), each output row
    /// one call of the set's row kernel. The input rows a band reads go into a ring of kH planar rows in the
    /// worker's scratch, each transposed once per band, as its first output row needs it.
    func planarRows(_ row: (OneChannelConvRowArguments) -> Void, filter: UnsafePointer<Float>,
                    context: RunContext) {
        let c = g.inC, stride = planeStride, rowFloats = c * stride, kH = g.kH
        let (lo, hi) = epilogue.bounds
        let bands = context.threads > 1 ? min(g.outH, context.threads * 4) : 1
        parallelFor(g.batch * bands, context: context) { item, worker in
            let n = item / bands, band = item % bands
            let image = input + n * g.inH * g.inW * c
            let ring = context.scratch(forWorker: worker)
            withUnsafeTemporaryAllocation(of: Int.self, capacity: kH) { held in
                withUnsafeTemporaryAllocation(of: UnsafePointer<Float>.self, capacity: kH) { rows in
                    guard let heldAt = held.baseAddress, let rowsAt = rows.baseAddress else { return }
                    heldAt.initialize(repeating: Int.min, count: kH)
                    for oy in (band * g.outH / bands)..<((band + 1) * g.outH / bands) {
                        let iy0 = oy * g.strideH - g.padTop
                        for ky in 0..<kH {
                            // Consecutive image rows take consecutive slots: a row stays until kH rows later.
                            let iy = iy0 + ky, slot = (iy % kH + kH) % kH
                            let planes = ring + slot * rowFloats
                            if heldAt[slot] != iy {
                                fillPlanes(planes, image: image, row: iy)
                                heldAt[slot] = iy
                            }
                            rowsAt[ky] = UnsafePointer(planes)
                        }
                        row(OneChannelConvRowArguments(rows: UnsafePointer(rowsAt), kH: kH, kW: g.kW, channels: c,
                                                       planeStride: stride, filter: filter,
                                                       output: output + (n * g.outH + oy) * g.outW, outW: g.outW,
                                                       lo: lo, hi: hi))
                    }
                }
            }
        }
    }

    /// Image row `iy` as planes, one per channel, from the first output's leftmost tap on, zeros outside the image.
    func fillPlanes(_ planes: UnsafeMutablePointer<Float>, image: UnsafePointer<Float>, row iy: Int) {
        let c = g.inC, stride = planeStride
        guard iy >= 0 && iy < g.inH else {
            planes.update(repeating: 0, count: c * stride)
            return
        }
        let left = min(g.padLeft, stride), end = min(left + g.inW, stride)
        let source = image + iy * g.inW * c - left * c
        for ch in 0..<c {
            let plane = planes + ch * stride
            plane.update(repeating: 0, count: left)
            (plane + end).update(repeating: 0, count: stride - end)
        }
        // Blocks of 4 pixels x 4 channels transposed in registers (a few shuffles for 16 floats, not 16 moves).
        var x = left
        let quads = c / 4 * 4
        while x + 4 <= end {
            var ch = 0
            while ch < quads {
                let p = source + x * c + ch
                let r0 = load4(p), r1 = load4(p + c), r2 = load4(p + 2 * c), r3 = load4(p + 3 * c)
                let q = planes + ch * stride + x
                store4(SIMD4(r0[0], r1[0], r2[0], r3[0]), q)
                store4(SIMD4(r0[1], r1[1], r2[1], r3[1]), q + stride)
                store4(SIMD4(r0[2], r1[2], r2[2], r3[2]), q + 2 * stride)
                store4(SIMD4(r0[3], r1[3], r2[3], r3[3]), q + 3 * stride)
                ch += 4
            }
            for ch in quads..<c {
                for i in 0..<4 { planes[ch * stride + x + i] = source[(x + i) * c + ch] }
            }
            x += 4
        }
        for x in x..<end {
            for ch in 0..<c { planes[ch * stride + x] = source[x * c + ch] }
        }
    }

    /// Gathers the receptive fields of `rows` output pixels into rows of `k` floats, each led
    /// by a 1 when `leadingOne` (the bias's factor). Pixels whose window lies inside the image
    /// copy kH runs of kW * C floats; the others fill taps outside the image with zeros.
    @inline(__always)
    func im2col(image n: Int, firstPixel p0: Int, rows: Int, into dst: UnsafeMutablePointer<Float>, leadingOne: Bool) {
        let c = g.inC
        let base = input + n * g.inH * g.inW * c
        let run = g.kW * c
        let rowStep = g.dilationH * g.inW * c
        var oy = p0 / g.outW, ox = p0 % g.outW
        var d = dst
        for _ in 0..<rows {
            if leadingOne { d[0] = 1; d += 1 }
            let iy0 = oy * g.strideH - g.padTop, ix0 = ox * g.strideW - g.padLeft
            if g.dilationW == 1 && iy0 >= 0 && iy0 + (g.kH - 1) * g.dilationH < g.inH && ix0 >= 0
                && ix0 + g.kW <= g.inW {
                // All taps inside: kH contiguous runs. A run's last partial vector is copied as the
                // vector ending at the run's end (overlapping the one before), not float by float.
                var src = base + (iy0 &* g.inW &+ ix0) &* c
                for _ in 0..<g.kH {
                    copyFloats(src, d, count: run)
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
