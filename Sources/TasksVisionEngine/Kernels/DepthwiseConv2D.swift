import COpenBLAS
import TasksVisionFormat
import TasksVisionKernels

/// DEPTHWISE_CONV_2D, summed as XNNPACK's kernels sum it: from the bias, column by column
/// (kx outer, ky inner), each tap one fused multiply-add, so the output is MediaPipe's bit for
/// bit. On an FMA kernel set, rows go to the set's microkernel (`rowKernel`; one channel per
/// input channel, no dilation). On the portable set, two ways to get there:
///
/// - Where OpenBLAS's `saxpy` fuses (`PlaneGeometry`), channel plane by channel plane, one
///   `saxpy` per tap over a whole plane (`runPlanes`); blocks of channels are the unit of
///   parallel work.
/// - Otherwise a direct NHWC kernel, vectorized over channels: for each output pixel and each
///   block of eight channels the accumulator stays in registers across all taps (the
///   clamp/PReLU epilogue last), taps outside the image are skipped (zero padding), and each tap
///   is `fusedMultiplyAdd` (exact in Double, since Swift cannot emit the instruction for
///   baseline x86-64). Rows of output are the unit of parallel work.
final class DepthwiseConv2DLayer: Layer, CustomStringConvertible {
    var description: String { "\(g.inH)x\(g.inW)x\(g.inC) k\(g.kH)x\(g.kW) s\(g.strideH) -> \(g.outH)x\(g.outW)x\(g.outC)" }
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

    /// When padding is needed, the input is first copied into a zero-bordered buffer so
    /// that every output pixel takes the unclipped fast path (this matters on the small
    /// feature maps where most pixels touch a border).
    let padded: ConvGeometry?
    /// When set, the layer runs channel plane by channel plane through OpenBLAS (`runPlanes`).
    let planes: PlaneGeometry?
    /// The FMA kernel set's row microkernel, when it can run this layer.
    let rowKernel: ((DepthwiseRowArguments) -> Void)?

    /// `planar: false` keeps the layer on the Swift kernel even where OpenBLAS could run it (tests).
    init(geometry: ConvGeometry, multiplier: Int, input: UnsafeMutablePointer<Float>, output: UnsafeMutablePointer<Float>,
         weights: UnsafePointer<Float>, epilogue: Epilogue, planar: Bool = true, kernels: Microkernels = .portable) {
        g = geometry
        self.multiplier = multiplier
        let needH = (geometry.outH - 1) * geometry.strideH + geometry.kH
        let needW = (geometry.outW - 1) * geometry.strideW + geometry.kW
        rowKernel = multiplier == 1 && geometry.dilationH == 1 && geometry.dilationW == 1
            ? kernels.depthwiseRow(channels: geometry.inC) : nil
        planes = planar && rowKernel == nil ? PlaneGeometry(geometry, multiplier: multiplier) : nil
        // Only small maps: on large ones the border is a small share and the copy costs more than it saves.
        if planes == nil && multiplier == 1 && geometry.dilationH == 1 && geometry.dilationW == 1 && geometry.outH * geometry.outW <= 32 * 32
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
    var scratchFloatsPerWorker: Int { planes?.floatsPerBlock ?? padded.map { $0.batch * $0.inH * $0.inW * $0.inC } ?? 0 }

    func run(_ context: RunContext) {
        if let pl = planes {
            let blocks = (g.outC + pl.block - 1) / pl.block
            parallelFor(g.batch * blocks, context: context) { item, worker in
                runPlanes(image: item / blocks, firstChannel: (item % blocks) * pl.block, pl, scratch: context.scratch(forWorker: worker))
            }
            return
        }
        if padded != nil {
            // Copy into the zero-bordered buffer (worker 0's scratch), then run unclipped.
            let dst = context.scratch(forWorker: 0)
            zeroPaddedBorders(dst)
            copyIntoPadded(rows: 0..<(g.batch * g.inH), dst)
            let inner = paddedLayer(dst)
            parallelFor(g.batch * g.outH, context: context) { item, _ in inner.row(item) }
            return
        }
        parallelFor(g.batch * g.outH, context: context) { item, _ in
            if multiplier == 1 { row(item) } else { rowWithMultiplier(item) }
        }
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

    /// Copies input rows `rows` (image-major: n * inH + y) into the zero-bordered copy at `dst`.
    func copyIntoPadded(rows: Range<Int>, _ dst: UnsafeMutablePointer<Float>) {
        guard let p = padded else { return }
        let c = g.inC
        for r in rows {
            let n = r / g.inH, y = r % g.inH
            let row = dst + ((n * p.inH + y + g.padTop) * p.inW + g.padLeft) * c
            row.update(from: input + r * g.inW * c, count: g.inW * c)
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
        let layer = DepthwiseConv2DLayer(geometry: padded ?? g, multiplier: 1, input: dst, output: output, outputPixelStride: outputPixelStride,
                                         weights: weights, epilogue: epilogue, padded: nil, rowKernel: rowKernel)
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
        let layer = DepthwiseConv2DLayer(geometry: g, multiplier: 1, input: input, output: output, outputPixelStride: pixelStride,
                                         weights: weights, epilogue: epilogue, padded: padded, rowKernel: rowKernel)
        outputLayerCache = layer
        return layer
    }
    private var outputLayerCache: DepthwiseConv2DLayer?

    private init(geometry: ConvGeometry, multiplier: Int, input: UnsafeMutablePointer<Float>, output: UnsafeMutablePointer<Float>,
                 outputPixelStride: Int, weights: UnsafePointer<Float>, epilogue: Epilogue, padded: ConvGeometry?,
                 rowKernel: ((DepthwiseRowArguments) -> Void)?) {
        g = geometry
        self.rowKernel = rowKernel
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
                zeroBorder(inPlanes + j * pl.inputFloats, rows: pl.phaseRows, pitch: pl.phasePitch, top: g.padTop, left: g.padLeft,
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
                    let d0 = dst + j * pl.inputFloats, d1 = d0 + pl.inputFloats, d2 = d1 + pl.inputFloats, d3 = d2 + pl.inputFloats
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
        let length = Int32(pl.length)
        for j in 0..<count {
            let plane = outPlanes + j * pl.length, x = inPlanes + j * pl.inputFloats
            plane.update(repeating: epilogue.bias?[first + j] ?? 0, count: pl.length)
            for kx in 0..<g.kW {
                for ky in 0..<g.kH {
                    let tap = x + ((ky % s) * s + kx % s) * pl.phaseFloats + (ky / s) * pl.phasePitch + kx / s
                    cblas_saxpy(length, weights[(ky * g.kW + kx) * g.outC + first + j], tap, 1, plane, 1)
                }
            }
        }
        writeBack(outPlanes, pl, image: n, firstChannel: first, count: count)
    }

    /// The output planes of channels `first..<first + count` back into pixels, through the
    /// activation: four channels of four pixels at a time, transposed in registers.
    func writeBack(_ planes: UnsafeMutablePointer<Float>, _ pl: PlaneGeometry, image n: Int, firstChannel first: Int, count: Int) {
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

    /// One output row. Pixels whose taps all fall inside the image run four at a time
    /// with the kernel width a constant (so the tap loop unrolls and each weight
    /// vector loaded serves four accumulators); the border pixels clip their taps.
    @inline(__always)
    func row(_ item: Int) {
        if let rowKernel {
            let n = item / g.outH, oy = item % g.outH, os = outputPixelStride
            let (lo, hi) = epilogue.bounds
            let out = output + (n * g.outH + oy) * g.outW * os
            rowKernel(DepthwiseRowArguments(input: input + n * g.inH * g.inW * g.inC, inH: g.inH, inW: g.inW, channels: g.inC,
                                            kH: g.kH, kW: g.kW, strideW: g.strideW, padLeft: g.padLeft,
                                            iy0: oy * g.strideH - g.padTop, weights: weights, bias: epilogue.bias, output: out,
                                            outW: g.outW, outputPixelStride: os, lo: lo, hi: hi, alpha: epilogue.alpha))
            if epilogue.activation == .tanh {
                for x in 0..<g.outW { for i in 0..<g.inC { out[x * os + i] = tanhf(out[x * os + i]) } }
            }
            return
        }
        switch (g.kW, g.dilationW) {
        case (3, 1): row3(item)
        case (5, 1): row5(item)
        default: row(item, kW: g.kW)
        }
    }

    // One copy of the row kernel per kernel width, so that the tap loop is unrolled with
    // constant offsets (a shared copy with a runtime width runs the loop with its counter).
    @inline(never) func row3(_ item: Int) { row(item, kW: 3) }
    @inline(never) func row5(_ item: Int) { row(item, kW: 5) }

    @inline(__always)
    func row(_ item: Int, kW: Int) {
        let n = item / g.outH, oy = item % g.outH
        let c = g.inC
        let inBase = input + n * g.inH * g.inW * c
        let os = outputPixelStride
        let outRow = output + (n * g.outH + oy) * g.outW * os
        let iy0 = oy * g.strideH - g.padTop
        var kyLo = 0, kyHi = g.kH
        while kyLo < kyHi && iy0 + kyLo * g.dilationH < 0 { kyLo += 1 }
        while kyHi > kyLo && iy0 + (kyHi - 1) * g.dilationH >= g.inH { kyHi -= 1 }
        // Output columns whose taps are all inside the image.
        let dil = g.dilationW, sw = g.strideW
        var interiorLo = 0
        while interiorLo < g.outW && interiorLo * sw - g.padLeft < 0 { interiorLo += 1 }
        var interiorHi = g.outW
        while interiorHi > interiorLo && (interiorHi - 1) * sw - g.padLeft + (kW - 1) * dil >= g.inW { interiorHi -= 1 }
        if dil != 1 { interiorLo = g.outW; interiorHi = g.outW }

        var ox = 0
        while ox < interiorLo { clippedPixel(outRow, inBase, ox, iy0, kyLo, kyHi); ox += 1 }
        let (lo, hi) = epilogue.bounds
        let lo8 = SIMD8<Float>(repeating: lo), hi8 = SIMD8<Float>(repeating: hi), zero8 = SIMD8<Float>(repeating: 0)
        let alpha = epilogue.alpha, bias = epilogue.bias
        let step = sw * c
        let rowStride = g.dilationH * g.inW * c
        while ox + 4 <= interiorHi {
            let out = outRow + ox * os
            let inPix = inBase + (iy0 * g.inW + ox * sw - g.padLeft) * c
            var ch = 0
            while ch + 8 <= c {
                let b = bias.map { load8($0 + ch) } ?? zero8
                var a0 = b, a1 = b, a2 = b, a3 = b
                for kx in 0..<kW {
                    let p = inPix + (kx &* c &+ ch)
                    let w = weights + (kx &* c &+ ch)
                    for ky in kyLo..<kyHi {
                        let wv = load8(w + ky &* kW &* c)
                        let q = p + ky &* rowStride
                        a0 = fusedMultiplyAdd(load8(q), wv, a0)
                        a1 = fusedMultiplyAdd(load8(q + step), wv, a1)
                        a2 = fusedMultiplyAdd(load8(q + 2 &* step), wv, a2)
                        a3 = fusedMultiplyAdd(load8(q + 3 &* step), wv, a3)
                    }
                }
                if let al = alpha {
                    let av = load8(al + ch)
                    a0 = preluLanes(a0, av)
                    a1 = preluLanes(a1, av)
                    a2 = preluLanes(a2, av)
                    a3 = preluLanes(a3, av)
                } else if lo > -.infinity {
                    a0 = clampLanes(a0, lo8, hi8)
                    a1 = clampLanes(a1, lo8, hi8)
                    a2 = clampLanes(a2, lo8, hi8)
                    a3 = clampLanes(a3, lo8, hi8)
                }
                store8(a0, out + ch)
                store8(a1, out + os + ch)
                store8(a2, out + 2 * os + ch)
                store8(a3, out + 3 * os + ch)
                ch += 8
            }
            if ch + 4 <= c {
                let lo4 = SIMD4<Float>(repeating: lo), hi4 = SIMD4<Float>(repeating: hi), zero4 = SIMD4<Float>(repeating: 0)
                let b = bias.map { load4($0 + ch) } ?? zero4
                var a0 = b, a1 = b, a2 = b, a3 = b
                for kx in 0..<kW {
                    let p = inPix + (kx &* c &+ ch)
                    let w = weights + (kx &* c &+ ch)
                    for ky in kyLo..<kyHi {
                        let wv = load4(w + ky &* kW &* c)
                        let q = p + ky &* rowStride
                        a0 = fusedMultiplyAdd(load4(q), wv, a0)
                        a1 = fusedMultiplyAdd(load4(q + step), wv, a1)
                        a2 = fusedMultiplyAdd(load4(q + 2 &* step), wv, a2)
                        a3 = fusedMultiplyAdd(load4(q + 3 &* step), wv, a3)
                    }
                }
                if let al = alpha {
                    let av = load4(al + ch)
                    a0 = preluLanes(a0, av)
                    a1 = preluLanes(a1, av)
                    a2 = preluLanes(a2, av)
                    a3 = preluLanes(a3, av)
                } else if lo > -.infinity {
                    a0 = clampLanes(a0, lo4, hi4)
                    a1 = clampLanes(a1, lo4, hi4)
                    a2 = clampLanes(a2, lo4, hi4)
                    a3 = clampLanes(a3, lo4, hi4)
                }
                store4(a0, out + ch)
                store4(a1, out + os + ch)
                store4(a2, out + 2 * os + ch)
                store4(a3, out + 3 * os + ch)
                ch += 4
            }
            if ch < c {
                for j in 0..<4 { channelTail(out + j * os, inPix + j * step, from: ch, kyLo, kyHi, kW: kW) }
            }
            if epilogue.activation == .tanh { for j in 0..<4 { for i in 0..<c { out[j * os + i] = tanhf(out[j * os + i]) } } }
            ox += 4
        }
        while ox < interiorHi {
            let out = outRow + ox * os
            let inPix = inBase + (iy0 * g.inW + ox * sw - g.padLeft) * c
            var ch = 0
            while ch + 8 <= c {
                var a0 = bias.map { load8($0 + ch) } ?? zero8
                for kx in 0..<kW {
                    let p = inPix + (kx &* c &+ ch)
                    let w = weights + (kx &* c &+ ch)
                    for ky in kyLo..<kyHi { a0 = fusedMultiplyAdd(load8(p + ky &* rowStride), load8(w + ky &* kW &* c), a0) }
                }
                if let al = alpha {
                    a0 = preluLanes(a0, load8(al + ch))
                } else if lo > -.infinity {
                    a0 = clampLanes(a0, lo8, hi8)
                }
                store8(a0, out + ch)
                ch += 8
            }
            if ch < c { channelTail(out, inPix, from: ch, kyLo, kyHi, kW: kW) }
            if epilogue.activation == .tanh { for i in 0..<c { out[i] = tanhf(out[i]) } }
            ox += 1
        }
        while ox < g.outW { clippedPixel(outRow, inBase, ox, iy0, kyLo, kyHi); ox += 1 }
    }

    /// Channels from `first` on, scalar, for a pixel whose taps are all inside the image.
    @inline(__always)
    func channelTail(_ out: UnsafeMutablePointer<Float>, _ inPix: UnsafeMutablePointer<Float>, from first: Int,
                     _ kyLo: Int, _ kyHi: Int, kW: Int) {
        let c = g.inC
        let rowStride = g.dilationH * g.inW * c
        let (lo, hi) = epilogue.bounds
        for ch in first..<c {
            var acc = epilogue.bias?[ch] ?? 0
            for kx in 0..<kW {
                let p = inPix + (kx &* c &+ ch)
                let w = weights + (kx &* c &+ ch)
                for ky in kyLo..<kyHi { acc = fusedMultiplyAdd(p[ky &* rowStride], w[ky &* kW &* c], acc) }
            }
            if let a = epilogue.alpha { if acc < 0 { acc *= a[ch] } } else { acc = min(max(acc, lo), hi) }
            out[ch] = acc
        }
    }

    /// One output pixel near the border: taps outside the image are skipped (zero padding).
    @inline(__always)
    func clippedPixel(_ outRow: UnsafeMutablePointer<Float>, _ inBase: UnsafeMutablePointer<Float>, _ ox: Int,
                      _ iy0: Int, _ kyLo: Int, _ kyHi: Int) {
        let c = g.inC
        let ix0 = ox * g.strideW - g.padLeft
        var kxLo = 0, kxHi = g.kW
        while kxLo < kxHi && ix0 + kxLo * g.dilationW < 0 { kxLo += 1 }
        while kxHi > kxLo && ix0 + (kxHi - 1) * g.dilationW >= g.inW { kxHi -= 1 }
        let out = outRow + ox * outputPixelStride
        let (lo, hi) = epilogue.bounds
        let lo8 = SIMD8<Float>(repeating: lo), hi8 = SIMD8<Float>(repeating: hi), zero8 = SIMD8<Float>(repeating: 0)
        let bias = epilogue.bias, alpha = epilogue.alpha
        var ch = 0
        while ch + 8 <= c {
            var acc = bias.map { load8($0 + ch) } ?? zero8
            for kx in kxLo..<kxHi {
                for ky in kyLo..<kyHi {
                    let inRow = inBase + ((iy0 + ky * g.dilationH) * g.inW + ix0) * c + ch
                    acc = fusedMultiplyAdd(load8(inRow + kx * g.dilationW * c), load8(weights + (ky * g.kW + kx) * c + ch), acc)
                }
            }
            if let a = alpha {
                acc = preluLanes(acc, load8(a + ch))
            } else {
                acc = clampLanes(acc, lo8, hi8)
            }
            store8(acc, out + ch)
            ch += 8
        }
        while ch < c {
            var acc = bias?[ch] ?? 0
            for kx in kxLo..<kxHi {
                for ky in kyLo..<kyHi {
                    let inRow = inBase + ((iy0 + ky * g.dilationH) * g.inW + ix0) * c + ch
                    acc = fusedMultiplyAdd(inRow[kx * g.dilationW * c], weights[(ky * g.kW + kx) * c + ch], acc)
                }
            }
            if let a = alpha { if acc < 0 { acc *= a[ch] } } else { acc = min(max(acc, lo), hi) }
            out[ch] = acc
            ch += 1
        }
        if epilogue.activation == .tanh { for i in 0..<c { out[i] = tanhf(out[i]) } }
    }

    /// General depth multiplier: output channel `o` reads input channel `o / multiplier`.
    func rowWithMultiplier(_ item: Int) {
        let n = item / g.outH, oy = item % g.outH
        for ox in 0..<g.outW {
            let out = output + ((n * g.outH + oy) * g.outW + ox) * g.outC
            for o in 0..<g.outC {
                var acc = epilogue.bias?[o] ?? 0
                for kx in 0..<g.kW {
                    let ix = ox * g.strideW - g.padLeft + kx * g.dilationW
                    if ix < 0 || ix >= g.inW { continue }
                    for ky in 0..<g.kH {
                        let iy = oy * g.strideH - g.padTop + ky * g.dilationH
                        if iy < 0 || iy >= g.inH { continue }
                        acc = fusedMultiplyAdd(input[((n * g.inH + iy) * g.inW + ix) * g.inC + o / multiplier], weights[(ky * g.kW + kx) * g.outC + o], acc)
                    }
                }
                out[o] = acc
            }
            Epilogue(bias: nil, activation: epilogue.activation, alpha: epilogue.alpha).apply(out, rows: 1, channels: g.outC, stride: g.outC)
        }
    }
}

/// Zeroes what surrounds an inner block of `innerRows` x `innerWidth` floats that starts `top`
/// rows and `left` floats into a buffer of `rows` rows of `pitch` floats.
func zeroBorder(_ p: UnsafeMutablePointer<Float>, rows: Int, pitch: Int, top: Int, left: Int, innerRows: Int, innerWidth: Int) {
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
    (SIMD4(a[0], b[0], c[0], d[0]), SIMD4(a[1], b[1], c[1], d[1]), SIMD4(a[2], b[2], c[2], d[2]), SIMD4(a[3], b[3], c[3], d[3]))
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
        guard multiplier == 1, g.dilationH == 1, g.dilationW == 1, g.strideH == g.strideW, g.strideW >= 1, g.outH > 0, g.outW > 0,
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
