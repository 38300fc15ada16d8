import TasksVisionFormat
import TasksVisionKernels

/// DEPTHWISE_CONV_2D, summed as XNNPACK's kernels sum it: from the bias, column by column
/// (kx outer, ky inner), each tap one fused multiply-add, so the output is MediaPipe's bit for
/// bit (on arm64, windows of 10 to 25 taps in two chains, as XNNPACK's arm64 25-tap kernel:
/// `Microkernels.depthwiseTwoChainTaps`). Three ways there, chosen at load:
///
/// - the kernel set's row microkernel (`rowKernel`, from `Microkernels`: FMA instructions on the
///   FMA sets, exact emulation on the portable one), for one output channel per input channel,
///   dilated or not (XNNPACK's indirection buffer lists a dilated window's taps in the same order):
///   rows of output are the unit of parallel work;
/// - on the portable set where OpenBLAS's `saxpy` fuses (`PlaneGeometry`), channel plane by
///   channel plane, one `saxpy` per tap over a whole plane (faster than the emulation), undilated;
/// - depth multipliers: `rowWithMultiplier`, scalar, each tap `fusedMultiplyAdd`.
final class DepthwiseConv2DLayer: Layer, CustomStringConvertible {
    var description: String {
        let dilation = g.dilationH == 1 && g.dilationW == 1 ? "" : " d\(g.dilationH)x\(g.dilationW)"
        return "\(g.inH)x\(g.inW)x\(g.inC) k\(g.kH)x\(g.kW) s\(g.strideH)\(dilation) -> \(g.outH)x\(g.outW)x\(g.outC)"
    }
    let kind = "DEPTHWISE_CONV_2D"
    let g: ConvGeometry
    let multiplier: Int
    let input: UnsafeMutablePointer<Float>
    let output: UnsafeMutablePointer<Float>
    /// Floats from one output pixel to the next: the channels, or more when the output is
    /// written into rows led by a 1 for a bias-first GEMM (`withOutput`).
    let outputPixelStride: Int
    /// [1, kH, kW, Cout]
    let weights: UnsafePointer<Float>
    let epilogue: Epilogue

    /// The same convolution on a zero-bordered copy of the input, where every output pixel's
    /// window lies inside (small maps that need padding). Only a convolution that writes its
    /// output straight into such a copy uses it (`ConvolutionThenDepthwiseLayer`): there the
    /// border pixels join the interior ones at no cost. Copying the input for a layer alone
    /// costs more than the row kernel loses at the borders (on 7x7 to 56x56 maps).
    let padded: ConvGeometry?
    /// When set, the layer runs channel plane by channel plane through OpenBLAS (`runPlanes`).
    let planes: PlaneGeometry?
    /// The kernel set's row microkernel, when it can run this layer.
    let rowKernel: ((DepthwiseRowArguments) -> Void)?
    /// The windows the set sums in two chains (`Microkernels.depthwiseTwoChainTaps`), for `rowWithMultiplier`.
    let twoChainTaps: ClosedRange<Int>?
    /// The taps' order where XNNPACK's arm64 build runs the layer in its sparse inference's NCHW layout
    /// (`SparseInferenceOrders`), on a set that follows it; nil: column by column.
    let tapOrder: DepthwiseTapOrder?

    /// `planar: false` keeps a portable layer on the row kernel even where OpenBLAS could run it (tests);
    /// `sparseInference`: XNNPACK's arm64 build runs the layer NCHW (`Graph.Node.sparseInference`).
    init(geometry: ConvGeometry, multiplier: Int, input: UnsafeMutablePointer<Float>,
         output: UnsafeMutablePointer<Float>,
         weights: UnsafePointer<Float>, epilogue: Epilogue, planar: Bool = true, kernels: Microkernels = .portable,
         sparseInference: Bool = false) {
        g = geometry
        self.multiplier = multiplier
        tapOrder = sparseInference && kernels.followsSparseInference && multiplier == 1
            && geometry.strideH == geometry.strideW && geometry.kH == geometry.kW
            ? SparseInferenceOrders.depthwise(kernel: geometry.kH, stride: geometry.strideH) : nil
        let needH = (geometry.outH - 1) * geometry.strideH + (geometry.kH - 1) * geometry.dilationH + 1
        let needW = (geometry.outW - 1) * geometry.strideW + (geometry.kW - 1) * geometry.dilationW + 1
        planes = planar && !kernels.set.fusesMultiplyAdd ? PlaneGeometry(geometry, multiplier: multiplier) : nil
        rowKernel = planes == nil && multiplier == 1 ? kernels.depthwiseRow(channels: geometry.inC) : nil
        twoChainTaps = kernels.depthwiseTwoChainTaps
        // Only small maps: on large ones the border is a small share and the copy costs more than it saves.
        if rowKernel != nil && geometry.outH * geometry.outW <= 32 * 32
            && (geometry.padTop > 0 || geometry.padLeft > 0
            || needH > geometry.inH + geometry.padTop || needW > geometry.inW + geometry.padLeft) {
            var p = geometry
            p.inH = max(needH, geometry.inH + geometry.padTop)
            p.inW = max(needW, geometry.inW + geometry.padLeft)
            p.padTop = 0
            p.padLeft = 0
            padded = p
        } else {
            padded = nil
        }
        self.input = input
        self.output = output
        outputPixelStride = geometry.outC
        self.weights = weights
        self.epilogue = epilogue
    }

    var flops: Double { 2.0 * Double(g.batch * g.outH * g.outW * g.outC * g.kH * g.kW) }
    /// A depthwise flop costs about three of a convolution's (each input is used by one output channel, not
    /// reused across many), so a 12x12x96 layer is worth splitting like a convolution three times its size.
    var parallelWork: Double { flops * 3 }
    var scratchFloatsPerWorker: Int { planes?.floatsPerBlock ?? 0 }
    /// Floats of the zero-bordered copy (`padded`).
    var paddedFloats: Int { padded.map { $0.batch * $0.inH * $0.inW * $0.inC } ?? 0 }

    func run(_ context: RunContext) {
        if let pl = planes {
            let blocks = (g.outC + pl.block - 1) / pl.block
            parallelFor(g.batch * blocks, context: context) { item, worker in
                runPlanes(image: item / blocks, firstChannel: (item % blocks) * pl.block, pl,
                          scratch: context.scratch(forWorker: worker))
            }
            return
        }
        let rows = g.batch * g.outH, split = channelBlocks(threads: context.threads)
        guard split > 1 else {
            parallelFor(rows, context: context) { item, _ in row(item) }
            return
        }
        // Few rows for the threads (a 7x7 map has 7): rows x blocks of channels, so the threads
        // share the work evenly. Each output is the same chain whichever call computes it.
        let units = g.inC / Self.channelBlockUnit
        parallelFor(rows * split, context: context) { item, _ in
            let b = item % split
            let first = b * units / split * Self.channelBlockUnit
            let end = b == split - 1 ? g.inC : (b + 1) * units / split * Self.channelBlockUnit
            if let rowKernel { row(item / split, channels: first..<end, rowKernel) }
        }
    }

    /// The channels a block is made of (a multiple of every set's vector).
    static let channelBlockUnit = 16

    /// Blocks of channels each output row is split into on `threads` threads: 1 (whole rows)
    /// unless the rows are too few to share evenly and the row kernel can take a block.
    func channelBlocks(threads: Int) -> Int {
        let rows = g.batch * g.outH
        guard threads > 1, rowKernel != nil, epilogue.activation != .tanh, rows < itemsPerThread * threads else {
            return 1
        }
        let wanted = (itemsPerThread * threads + rows - 1) / rows
        let most = g.inC / (2 * Self.channelBlockUnit)
        return most >= 2 ? min(wanted, most) : 1
    }

    /// Zeroes the border of the zero-bordered copy at `dst` (the copy overwrites the rest).
    func zeroPaddedBorders(_ dst: UnsafeMutablePointer<Float>) {
        guard let p = padded else { return }
        let c = g.inC
        for n in 0..<g.batch {
            zeroBorder(dst + n * p.inH * p.inW * c, rows: p.inH, pitch: p.inW * c, top: g.padTop, left: g.padLeft * c,
                       innerRows: g.inH, innerWidth: g.inW * c)
        }
    }

    /// Where input row `y` of image 0 starts in the zero-bordered copy at `dst`.
    func paddedRow(_ y: Int, in dst: UnsafeMutablePointer<Float>) -> UnsafeMutablePointer<Float> {
        let p = padded ?? g
        return dst + ((y + g.padTop) * p.inW + g.padLeft) * g.inC
    }

    /// The same convolution reading the zero-bordered copy at `dst`, with no padding left to clip.
    /// Made once per scratch buffer (an interpreter's never moves), so runs allocate nothing.
    func paddedLayer(_ dst: UnsafeMutablePointer<Float>) -> DepthwiseConv2DLayer {
        if let cached = paddedLayerCache, cached.input == dst { return cached }
        let layer = DepthwiseConv2DLayer(geometry: padded ?? g, multiplier: 1, input: dst, output: output,
                                         outputPixelStride: outputPixelStride,
                                         weights: weights, epilogue: epilogue, padded: nil, rowKernel: rowKernel,
                                         twoChainTaps: twoChainTaps, tapOrder: tapOrder)
        paddedLayerCache = layer
        return layer
    }
    /// Guarded like the rest of the layer: one thread at a time runs an interpreter's layers.
    private var paddedLayerCache: DepthwiseConv2DLayer?

    /// The same convolution writing output pixel `i` at `output + i * pixelStride` (one channel
    /// per input channel): with a stride of channels + 1 and `output` one float into a buffer
    /// whose pixels start with a 1, the rows a bias-first GEMM reads (see
    /// `ConvolutionThenDepthwiseLayer`). Made once per destination, like `paddedLayer`.
    func withOutput(_ output: UnsafeMutablePointer<Float>, pixelStride: Int) -> DepthwiseConv2DLayer {
        if let cached = outputLayerCache, cached.output == output { return cached }
        let layer = DepthwiseConv2DLayer(geometry: g, multiplier: 1, input: input, output: output,
                                         outputPixelStride: pixelStride,
                                         weights: weights, epilogue: epilogue, padded: padded, rowKernel: rowKernel,
                                         twoChainTaps: twoChainTaps, tapOrder: tapOrder)
        outputLayerCache = layer
        return layer
    }
    private var outputLayerCache: DepthwiseConv2DLayer?

    private init(geometry: ConvGeometry, multiplier: Int, input: UnsafeMutablePointer<Float>,
                 output: UnsafeMutablePointer<Float>,
                 outputPixelStride: Int, weights: UnsafePointer<Float>, epilogue: Epilogue, padded: ConvGeometry?,
                 rowKernel: ((DepthwiseRowArguments) -> Void)?, twoChainTaps: ClosedRange<Int>?,
                 tapOrder: DepthwiseTapOrder?) {
        g = geometry
        self.rowKernel = rowKernel
        self.twoChainTaps = twoChainTaps
        self.tapOrder = tapOrder
        self.multiplier = multiplier
        self.input = input
        self.output = output
        self.outputPixelStride = outputPixelStride
        self.weights = weights
        self.epilogue = epilogue
        self.padded = padded
        planes = nil
    }

    /// One image's channels `first..<first + block` through OpenBLAS. Each channel is copied
    /// into a zero-bordered plane, split by stride phase (with stride 2, four planes of the even
    /// and odd rows and columns), so that every tap reads one phase plane contiguously; its
    /// output plane starts at the bias, and one `saxpy` per tap runs over the whole plane
    /// (column by column, kx outer, ky inner: each output is the chain of fused multiply-adds
    /// XNNPACK computes, taps in the padding included as products with zero). The output plane
    /// has the phase planes' row pitch, so one call covers every row (the columns past the
    /// output width are computed and dropped). The planes go back as pixels with the activation.
    func runPlanes(image n: Int, firstChannel first: Int, _ pl: PlaneGeometry, scratch: UnsafeMutablePointer<Float>) {
        let c = g.inC, count = min(pl.block, c - first), s = g.strideW
        let inPlanes = scratch, outPlanes = scratch + pl.block * pl.inputFloats
        if s == 1 {
            // Only the border: the image rows overwrite the rest.
            for j in 0..<count {
                zeroBorder(inPlanes + j * pl.inputFloats, rows: pl.phaseRows, pitch: pl.phasePitch, top: g.padTop,
                           left: g.padLeft,
                           innerRows: g.inH, innerWidth: g.inW)
            }
        } else {
            inPlanes.update(repeating: 0, count: count * pl.inputFloats)
        }
        let image = input + n * g.inH * g.inW * c
        for y in 0..<g.inH {
            let Y = y + g.padTop
            let row = image + y * g.inW * c + first
            if s == 1 {
                // Four channels of four pixels at a time, transposed in registers.
                let dst = inPlanes + Y * pl.phasePitch + g.padLeft
                var j = 0
                while j + 4 <= count {
                    let d0 = dst + j * pl.inputFloats, d1 = d0 + pl.inputFloats, d2 = d1 + pl.inputFloats,
                        d3 = d2 + pl.inputFloats
                    var x = 0
                    while x + 4 <= g.inW {
                        let p = row + x * c + j
                        let (q0, q1, q2, q3) = transpose(load4(p), load4(p + c), load4(p + 2 * c), load4(p + 3 * c))
                        store4(q0, d0 + x); store4(q1, d1 + x); store4(q2, d2 + x); store4(q3, d3 + x)
                        x += 4
                    }
                    while x < g.inW {
                        let p = row + x * c + j
                        d0[x] = p[0]; d1[x] = p[1]; d2[x] = p[2]; d3[x] = p[3]
                        x += 1
                    }
                    j += 4
                }
                while j < count {
                    let d = dst + j * pl.inputFloats
                    for x in 0..<g.inW { d[x] = row[x * c + j] }
                    j += 1
                }
                continue
            }
            for px in 0..<s {
                // Input columns whose padded column falls in phase px, in order.
                let x0 = (px - g.padLeft % s + s) % s
                if x0 >= g.inW { continue }
                let phase = ((Y % s) * s + px) * pl.phaseFloats + (Y / s) * pl.phasePitch + (x0 + g.padLeft) / s
                let columns = (g.inW - x0 + s - 1) / s
                for j in 0..<count {
                    let src = row + x0 * c + j, dst = inPlanes + j * pl.inputFloats + phase
                    for q in 0..<columns { dst[q] = src[q &* s &* c] }
                }
            }
        }
        let length = pl.length
        for j in 0..<count {
            let plane = outPlanes + j * pl.length, x = inPlanes + j * pl.inputFloats
            plane.update(repeating: epilogue.bias?[first + j] ?? 0, count: pl.length)
            for kx in 0..<g.kW {
                for ky in 0..<g.kH {
                    let tap = x + ((ky % s) * s + kx % s) * pl.phaseFloats + (ky / s) * pl.phasePitch + kx / s
                    PlatformBLAS.saxpy(count: length, alpha: weights[(ky * g.kW + kx) * g.outC + first + j], x: tap,
                                       incX: 1, y: plane, incY: 1)
                }
            }
        }
        writeBack(outPlanes, pl, image: n, firstChannel: first, count: count)
    }

    /// The output planes of channels `first..<first + count` back into pixels, through the
    /// activation: four channels of four pixels at a time, transposed in registers.
    func writeBack(_ planes: UnsafeMutablePointer<Float>, _ pl: PlaneGeometry, image n: Int, firstChannel first: Int,
                   count: Int) {
        let os = outputPixelStride
        let outImage = output + n * g.outH * g.outW * os + first
        let (lo, hi) = epilogue.bounds
        let lo4 = SIMD4<Float>(repeating: lo), hi4 = SIMD4<Float>(repeating: hi)
        let alpha = epilogue.alpha.map { $0 + first }, tanh = epilogue.activation == .tanh
        @inline(__always) func activate(_ v: SIMD4<Float>, _ j: Int) -> SIMD4<Float> {
            if let alpha { return preluLanes(v, load4(alpha + j)) }
            if tanh { return SIMD4(tanhf(v[0]), tanhf(v[1]), tanhf(v[2]), tanhf(v[3])) }
            return clampLanes(v, lo4, hi4)
        }
        @inline(__always) func activate(_ v: Float, _ j: Int) -> Float {
            if let alpha { return v < 0 ? v * alpha[j] : v }
            if tanh { return tanhf(v) }
            return Swift.min(Swift.max(v, lo), hi)
        }
        for oy in 0..<g.outH {
            let out = outImage + oy * g.outW * os
            let from = planes + oy * pl.phasePitch
            var j = 0
            while j + 4 <= count {
                let f0 = from + j * pl.length, f1 = f0 + pl.length, f2 = f1 + pl.length, f3 = f2 + pl.length
                var x = 0
                while x + 4 <= g.outW {
                    let (q0, q1, q2, q3) = transpose(load4(f0 + x), load4(f1 + x), load4(f2 + x), load4(f3 + x))
                    let o = out + x * os + j
                    store4(activate(q0, j), o); store4(activate(q1, j), o + os)
                    store4(activate(q2, j), o + 2 * os); store4(activate(q3, j), o + 3 * os)
                    x += 4
                }
                while x < g.outW {
                    let o = out + x * os + j
                    store4(activate(SIMD4(f0[x], f1[x], f2[x], f3[x]), j), o)
                    x += 1
                }
                j += 4
            }
            while j < count {
                let f = from + j * pl.length
                for x in 0..<g.outW { out[x * os + j] = activate(f[x], j) }
                j += 1
            }
        }
    }

    /// One output row (image-major index `n * outH + oy`), on the row kernel where the layer has
    /// one, else on the general path.
    @inline(__always)
    func row(_ item: Int) {
        guard let rowKernel else {
            rowWithMultiplier(item)
            return
        }
        row(item, channels: 0..<g.inC, rowKernel)
        if epilogue.activation == .tanh {
            let n = item / g.outH, oy = item % g.outH
            let out = output + (n * g.outH + oy) * g.outW * outputPixelStride
            let os = outputPixelStride
            for x in 0..<g.outW { for i in 0..<g.inC { out[x * os + i] = tanhf(out[x * os + i]) } }
        }
    }

    /// Channels `channels` of output row `item` (the row kernel on one block of channels).
    func row(_ item: Int, channels: Range<Int>, _ rowKernel: (DepthwiseRowArguments) -> Void) {
        let n = item / g.outH, oy = item % g.outH, c0 = channels.lowerBound
        let out = output + (n * g.outH + oy) * g.outW * outputPixelStride + c0
        var args = rowArguments(input: input + n * g.inH * g.inW * g.inC + c0, inH: g.inH, inW: g.inW,
                                padLeft: g.padLeft,
                                iy0: oy * g.strideH - g.padTop, output: out)
        args.window.channels = channels.count
        args.pixelStride = g.inC
        args.weights += c0
        args.bias = args.bias.map { $0 + c0 }
        args.alpha = args.alpha.map { $0 + c0 }
        rowKernel(args)
    }

    /// The row kernel's arguments for one output row written at `output`, read from an image of
    /// `inH` x `inW` pixels at `input` (the layer's own, or a zero-bordered copy of part of it)
    /// whose kernel row 0 is image row `iy0`.
    func rowArguments(input: UnsafePointer<Float>, inH: Int, inW: Int, padLeft: Int, iy0: Int,
                      output: UnsafeMutablePointer<Float>) -> DepthwiseRowArguments {
        let (lo, hi) = epilogue.bounds
        let window = RowWindow(input: input, inH: inH, inW: inW, channels: g.inC, kH: g.kH, kW: g.kW,
                               strideW: g.strideW, padLeft: padLeft, iy0: iy0, dilationH: g.dilationH,
                               dilationW: g.dilationW)
        var arguments = DepthwiseRowArguments(window: window, weights: weights, bias: epilogue.bias,
                                              output: output, outW: g.outW, outputPixelStride: outputPixelStride,
                                              lo: lo, hi: hi, alpha: epilogue.alpha)
        arguments.tapOrder = tapOrder
        return arguments
    }

    /// The general path (any depth multiplier, dilated or not): output channel `o` reads input
    /// channel `o / multiplier`, each tap `fusedMultiplyAdd` (in two chains where the set sums so).
    func rowWithMultiplier(_ item: Int) {
        let n = item / g.outH, oy = item % g.outH
        let split = twoChainTaps?.contains(g.kH * g.kW) ?? false
        for ox in 0..<g.outW {
            let out = output + ((n * g.outH + oy) * g.outW + ox) * g.outC
            for o in 0..<g.outC {
                var acc = epilogue.bias?[o] ?? 0, acc2: Float = 0
                for kx in 0..<g.kW {
                    let ix = ox * g.strideW - g.padLeft + kx * g.dilationW
                    if ix < 0 || ix >= g.inW { continue }
                    for ky in 0..<g.kH {
                        let iy = oy * g.strideH - g.padTop + ky * g.dilationH
                        if iy < 0 || iy >= g.inH { continue }
                        let x = input[((n * g.inH + iy) * g.inW + ix) * g.inC + o / multiplier],
                            w = weights[(ky * g.kW + kx) * g.outC + o]
                        if split && (kx * g.kH + ky) % 2 == 1 {
                            acc2 = fusedMultiplyAdd(x, w, acc2)
                        } else {
                            acc = fusedMultiplyAdd(x, w, acc)
                        }
                    }
                }
                out[o] = split ? acc + acc2 : acc
            }
            Epilogue(bias: nil, activation: epilogue.activation,
                     alpha: epilogue.alpha).apply(out, rows: 1, channels: g.outC, stride: g.outC)
        }
    }
}

/// Zeroes what surrounds an inner block of `innerRows` x `innerWidth` floats that starts `top`
/// rows and `left` floats into a buffer of `rows` rows of `pitch` floats.
func zeroBorder(_ p: UnsafeMutablePointer<Float>, rows: Int, pitch: Int, top: Int, left: Int, innerRows: Int,
                innerWidth: Int) {
    p.update(repeating: 0, count: top * pitch)
    let below = top + innerRows
    (p + below * pitch).update(repeating: 0, count: (rows - below) * pitch)
    let right = pitch - left - innerWidth
    for y in top..<below {
        (p + y * pitch).update(repeating: 0, count: left)
        (p + y * pitch + left + innerWidth).update(repeating: 0, count: right)
    }
}

/// Rows of a 4x4 block as its columns.
@inline(__always) func transpose(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ c: SIMD4<Float>, _ d: SIMD4<Float>)
    -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
    (SIMD4(a[0], b[0], c[0], d[0]), SIMD4(a[1], b[1], c[1], d[1]), SIMD4(a[2], b[2], c[2], d[2]),
     SIMD4(a[3], b[3], c[3], d[3]))
}

/// The planes a depthwise layer runs on through OpenBLAS (`DepthwiseConv2DLayer.runPlanes`):
/// per channel, the zero-bordered input split into stride x stride phase planes (`phaseRows` x
/// `phasePitch` each), and the output at the phase planes' pitch.
struct PlaneGeometry {
    /// Floats per row of a phase plane and of an output plane.
    let phasePitch: Int
    /// Rows of a phase plane.
    let phaseRows: Int
    /// Floats of an output plane: `(outH - 1) * phasePitch + outW`.
    let length: Int
    /// Floats of a channel's phase planes.
    let inputFloats: Int
    /// Channels per block (a block's planes are one worker's scratch).
    let block: Int
    var phaseFloats: Int { phaseRows * phasePitch }
    var floatsPerBlock: Int { block * (inputFloats + length) }

    /// Planes for a layer OpenBLAS can run exactly: one output channel per input channel,
    /// equal strides, no dilation, and an `saxpy` that fuses its multiply-adds as XNNPACK does
    /// (`BLASConfiguration.axpyIsFused`); nil otherwise.
    init?(_ g: ConvGeometry, multiplier: Int) {
        guard multiplier == 1, g.dilationH == 1, g.dilationW == 1, g.strideH == g.strideW, g.strideW >= 1, g.outH > 0,
            g.outW > 0,
              BLASConfiguration.axpyIsFused else { return nil }
        let s = g.strideW
        // The padded image, and as far as the last output's taps reach.
        let width = Swift.max((g.outW - 1) * s + g.kW, g.inW + g.padLeft)
        let height = Swift.max((g.outH - 1) * s + g.kH, g.inH + g.padTop)
        phasePitch = (width + s - 1) / s
        phaseRows = (height + s - 1) / s
        length = (g.outH - 1) * phasePitch + g.outW
        inputFloats = s * s * phaseRows * phasePitch
        block = Swift.min(16, g.outC)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
