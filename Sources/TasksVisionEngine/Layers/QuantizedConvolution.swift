import TasksVisionFormat
import TasksVisionKernels

/// An int8 CONV_2D or FULLY_CONNECTED as XNNPACK's QS8 operators compute it (`qs8-qc8w-gemm/igemm ... fp32`): per
/// output, the int32 bias plus the products of the inputs less their zero point with the int8 weights (an exact
/// integer sum, in any order), times `inputScale * weightScale[channel] / outputScale` in float, rounded to nearest
/// even, plus the output zero point, clamped to the fused activation's bounds.
///
/// A 1x1 stride-1 unpadded convolution and a fully connected layer run the GEMM on the input rows in place; any
/// other convolution gathers a tile of output pixels' windows first (im2col, the input zero point outside the image,
/// which adds nothing: the packed bias is corrected for it over every tap).
final class QuantizedConvolutionLayer: Layer, CustomStringConvertible {
    let kind: String
    let g: ConvGeometry
    let weights: QS8PackedWeights
    let input: UnsafePointer<Int8>
    let output: UnsafeMutablePointer<Int8>
    let quantization: QS8Output
    let inputZeroPoint: Int8
    let gemm: (QS8GEMMArguments) -> Void
    /// Whether A is the input itself (1x1, stride 1, no padding; fully connected).
    let direct: Bool
    /// Channels of a gathered window (kH * kW * inC) before the padding to the kernel's k groups.
    let windowBytes: Int
    /// Output pixels gathered and multiplied at a time.
    static let tileRows = 32

    var description: String {
        "\(g.inH)x\(g.inW)x\(g.inC) -> \(g.outH)x\(g.outW)x\(g.outC) k\(g.kH)x\(g.kW) s\(g.strideH)"
            + (direct ? " direct" : " im2col")
    }

    init(kind: String, geometry: ConvGeometry, weights: QS8PackedWeights, input: UnsafePointer<Int8>,
         output: UnsafeMutablePointer<Int8>, quantization: QS8Output, inputZeroPoint: Int8,
         gemm: @escaping (QS8GEMMArguments) -> Void) {
        self.kind = kind
        g = geometry
        self.weights = weights
        self.input = input
        self.output = output
        self.quantization = quantization
        self.inputZeroPoint = inputZeroPoint
        self.gemm = gemm
        direct = g.kH == 1 && g.kW == 1 && g.strideH == 1 && g.strideW == 1 && g.padTop == 0 && g.padLeft == 0
            && g.outH == g.inH && g.outW == g.inW
        windowBytes = g.kH * g.kW * g.inC
    }

    var flops: Double { 2 * Double(g.batch * g.outH * g.outW) * Double(g.outC) * Double(windowBytes) }
    var scratchFloatsPerWorker: Int { direct ? 0 : (Self.tileRows * weights.view.k + 16 + 3) / 4 }
    var packedWeightBytes: Int { weights.byteCount }

    func run(_ context: RunContext) {
        let pixels = g.batch * g.outH * g.outW
        // Items of up to 32 rows; with several threads, enough of them (`itemsPerThread` each) that none waits long
        // for the last: fewer rows an item (a multiple of 8, the tiles' height), then column blocks split too.
        var rowsPerItem = Self.tileRows, columnSplit = 1
        if context.threads > 1 {
            let wanted = context.threads * itemsPerThread
            while rowsPerItem > 8 && (pixels + rowsPerItem - 1) / rowsPerItem < wanted { rowsPerItem /= 2 }
            let tiles = (pixels + rowsPerItem - 1) / rowsPerItem
            if tiles < wanted { columnSplit = min(weights.view.blocks, (wanted + tiles - 1) / tiles) }
        }
        let tiles = (pixels + rowsPerItem - 1) / rowsPerItem
        let packed = weights.view
        parallelFor(tiles * columnSplit, context: context) { item, worker in
            let tile = item / columnSplit, part = item % columnSplit
            let first = tile * rowsPerItem, rows = min(rowsPerItem, pixels - first)
            let blocks = packed.blocks
            let firstBlock = blocks * part / columnSplit, endBlock = blocks * (part + 1) / columnSplit
            let a: UnsafePointer<Int8>, lda: Int
            if direct {
                a = input + first * g.inC
                lda = g.inC
            } else {
                let scratch = UnsafeMutableRawPointer(context.scratch(forWorker: worker)).assumingMemoryBound(
                    to: Int8.self)
                gather(first, rows, into: scratch)
                a = UnsafePointer(scratch)
                lda = packed.k
            }
            gemm(QS8GEMMArguments(m: rows, k: packed.k, a: a, lda: lda, weights: packed, firstBlock: firstBlock,
                                  endBlock: endBlock, c: output + first * g.outC, ldc: g.outC, output: quantization))
        }
    }

    /// The windows of output pixels first..<first + rows, one row of `weights.k` bytes each (tap by tap, channels
    /// within a tap, as the filter is laid out), the input zero point outside the image and in the padding. A window
    /// inside the image (no dilation) copies each kernel row's `kW * inC` contiguous bytes in 8-byte words.
    private func gather(_ first: Int, _ rows: Int, into rowsOut: UnsafeMutablePointer<Int8>) {
        let k = weights.view.k, c = g.inC, span = g.kW * c
        let raw = UnsafeRawPointer(input)
        // The first pixel's coordinates by division, the others by counting (a division per pixel cost more than
        // the copy on the 3-channel first layers).
        var n = first / (g.outH * g.outW), oy = (first % (g.outH * g.outW)) / g.outW, ox = first % g.outW
        let plain = g.dilationH == 1 && g.dilationW == 1, kH = g.kH, kW = g.kW, inH = g.inH, inW = g.inW
        let rowBytes = inW * c, words = (span + 7) / 8
        let zeroPointWord = UInt32(UInt8(bitPattern: inputZeroPoint)) &* 0x0101_0101
        for r in 0..<rows {
            defer {
                ox += 1
                if ox == g.outW {
                    ox = 0; oy += 1
                    if oy == g.outH { oy = 0; n += 1 }
                }
            }
            let row = rowsOut + r * k
            let iy0 = oy * g.strideH - g.padTop, ix0 = ox * g.strideW - g.padLeft
            if plain && iy0 >= 0 && iy0 &+ kH <= inH && ix0 >= 0 && ix0 &+ kW <= inW {
                // Whole 8-byte words of each kernel row, the last one running past the span (into the next kernel
                // row's place, written next, or the padding, written after; the input's arena slack and the
                // scratch's 16 spare bytes cover a word past their ends).
                let out = UnsafeMutableRawPointer(row)
                let base = ((n &* inH &+ iy0) &* inW &+ ix0) &* c
                for ky in 0..<kH {
                    let source = base &+ ky &* rowBytes, target = ky &* span
                    // Spans of up to 16 bytes (3x3 windows of 3 to 5 channels) without an inner loop.
                    let first = raw.loadUnaligned(fromByteOffset: source, as: UInt64.self)
                    out.storeBytes(of: first, toByteOffset: target, as: UInt64.self)
                    if words == 2 {
                        out.storeBytes(of: raw.loadUnaligned(fromByteOffset: source &+ 8, as: UInt64.self),
                                       toByteOffset: target &+ 8, as: UInt64.self)
                    } else if words > 2 {
                        for w in 1..<words {
                            out.storeBytes(of: raw.loadUnaligned(fromByteOffset: source &+ w &* 8, as: UInt64.self),
                                           toByteOffset: target &+ w &* 8, as: UInt64.self)
                        }
                    }
                }
                // The padding to k (under 4 bytes) as whole words of zero points, not a call to memset.
                var j = kH &* span
                while j < k { out.storeBytes(of: zeroPointWord, toByteOffset: j, as: UInt32.self); j &+= 4 }
                continue
            }
            var offset = 0
            for ky in 0..<g.kH {
                let iy = iy0 + ky * g.dilationH
                for kx in 0..<g.kW {
                    let ix = ix0 + kx * g.dilationW
                    if iy >= 0 && iy < g.inH && ix >= 0 && ix < g.inW {
                        (row + offset).update(from: input + ((n * g.inH + iy) * g.inW + ix) * c, count: c)
                    } else {
                        (row + offset).update(repeating: inputZeroPoint, count: c)
                    }
                    offset += c
                }
            }
            if offset < k { (row + offset).update(repeating: inputZeroPoint, count: k - offset) }
        }
    }
}

/// An int8 DEPTHWISE_CONV_2D as XNNPACK's `qs8-qc8w-dwconv ... fp32` computes it: per channel the corrected bias
/// plus the window's products, requantized as the convolutions are. One output row per item. A depth multiplier above
/// 1 (output channel c reads input channel c / multiplier) runs a scalar loop over the same packed weights.
final class QuantizedDepthwiseLayer: Layer, CustomStringConvertible {
    let kind = "DEPTHWISE_CONV_2D"
    let g: ConvGeometry
    let multiplier: Int
    let weights: QS8PackedDepthwiseWeights
    let input: UnsafePointer<Int8>
    let output: UnsafeMutablePointer<Int8>
    let quantization: QS8Output
    let zeroRow: UnsafeMutablePointer<Int8>
    let row: (QS8DepthwiseRowArguments) -> Void

    var description: String { "\(g.inH)x\(g.inW)x\(g.inC) k\(g.kH)x\(g.kW) s\(g.strideH)" }

    init(geometry: ConvGeometry, multiplier: Int, weights: QS8PackedDepthwiseWeights, input: UnsafePointer<Int8>,
         output: UnsafeMutablePointer<Int8>, quantization: QS8Output, inputZeroPoint: Int8,
         row: @escaping (QS8DepthwiseRowArguments) -> Void) {
        g = geometry
        self.multiplier = multiplier
        self.weights = weights
        self.input = input
        self.output = output
        self.quantization = quantization
        self.row = row
        // The kernels read whole blocks of channels: the row covers the last block and a vector more.
        let bytes = max(weights.view.blocks * weights.view.cr, geometry.inC) + 64
        zeroRow = UnsafeMutablePointer<Int8>.allocate(capacity: bytes)
        zeroRow.initialize(repeating: inputZeroPoint, count: bytes)
    }

    deinit { zeroRow.deallocate() }

    var flops: Double { 2 * Double(g.batch * g.outH * g.outW * g.outC * g.kH * g.kW) }
    var packedWeightBytes: Int { weights.byteCount }

    func run(_ context: RunContext) {
        // Rows, and with several threads blocks of channels too when the rows are few (7x7 and 14x14 maps).
        let rows = g.batch * g.outH
        let wanted = context.threads > 1 ? context.threads * itemsPerThread : 1
        let packed = weights.view
        let split = multiplier == 1 && rows < wanted ? min(packed.blocks, (wanted + rows - 1) / rows) : 1
        parallelFor(rows * split, context: context) { item, _ in
            let row = item / split, part = item % split
            let n = row / g.outH, oy = row % g.outH
            var arguments = QS8DepthwiseRowArguments(
                input: input + n * g.inH * g.inW * g.inC, inH: g.inH, inW: g.inW, channels: g.inC, kH: g.kH, kW: g.kW,
                strideW: g.strideW, dilationH: g.dilationH, dilationW: g.dilationW, padLeft: g.padLeft,
                iy0: oy * g.strideH - g.padTop, zeroRow: zeroRow, weights: packed,
                output: output + (n * g.outH + oy) * g.outW * g.outC, outW: g.outW, quantization: quantization)
            arguments.firstBlock = packed.blocks * part / split
            arguments.endBlock = packed.blocks * (part + 1) / split
            if multiplier == 1 { self.row(arguments) } else { multipliedRow(arguments) }
        }
    }

    /// One output row with a depth multiplier: each output channel from its input channel, channel by channel.
    private func multipliedRow(_ p: QS8DepthwiseRowArguments) {
        let w = p.weights, q = p.quantization
        for ox in 0..<p.outW {
            for oc in 0..<g.outC {
                let block = oc / w.cr, j = oc % w.cr
                var acc = w.bias(block)[j]
                var t = 0
                for ky in 0..<p.kH {
                    for kx in 0..<p.kW {
                        acc &+= Int32(p.tap(ky, kx, ox)[oc / multiplier]) &* Int32(w.weights(block)[t * w.cr + j])
                        t += 1
                    }
                }
                p.output[ox * g.outC + oc] = requantizeQS8(acc, scale: w.scales(block)[j], zeroPoint: q.zeroPoint,
                                                           min: q.min, max: q.max)
            }
        }
    }
}
