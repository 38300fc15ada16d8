import TasksVisionKernels

// Depthwise convolution, one output row per call, directly on NHWC (no indirection buffer):
// per output pixel and block of one vector of channels, the accumulator starts at the bias and
// takes the taps column by column (kx outer, ky inner) as one fused multiply-add chain, which is
// the order of XNNPACK's dwconv kernels over its indirection buffer. The taps a pixel uses are a
// table of offsets (input and weight, in that order), built per row on the stack: taps outside
// the image are left out of it (XNNPACK multiplies zeros there: the same sums). Pixels whose
// window lies inside the image share one table and run up to eight at a time (eight chains in
// flight, each weight vector loaded once for all of them, each input an operand of its fused
// multiply-add); border pixels run one by one with their own table. A last partial block of
// channels is the block ending at the last channel (it overlaps the one before and writes the
// same values again); fewer channels than a vector go channel by channel. `madd(acc, x, w)` is
// the set's fused multiply-add (one instruction on the FMA sets, exact emulation on the portable
// one).

@_transparent private func load(_ p: UnsafePointer<Float>) -> Vec {
    loadVec(p)
}
private typealias Floats4 = (Float, Float, Float, Float)
@_transparent private func load4(_ p: UnsafePointer<Float>) -> SIMD4<Float> {
    unsafeBitCast(UnsafeRawPointer(p).assumingMemoryBound(to: Floats4.self).pointee, to: SIMD4<Float>.self)
}
@_transparent private func store4(_ v: SIMD4<Float>, _ p: UnsafeMutablePointer<Float>) {
    UnsafeMutableRawPointer(p).assumingMemoryBound(to: Floats4.self).pointee = unsafeBitCast(v, to: Floats4.self)
}
@_transparent private func store(_ v: Vec, _ p: UnsafeMutablePointer<Float>) {
    storeVec(v, p)
}

public func f32DepthwiseRow(_ p: DepthwiseRowArguments) {
    let win = p.window
    let s = win.strideW, c = win.channels, taps = win.kH &* win.kW
    let kyLo = maxInt(0, -win.iy0), kyHi = minInt(win.kH, win.inH &- win.iy0)
    guard c >= 4, kyLo < kyHi, taps > 0 else {
        for ox in 0..<p.outW { clippedPixel(p, ox, kyLo, kyHi) }
        return
    }
    // Output columns whose taps all lie inside the image horizontally.
    var lo = 0
    while lo < p.outW && lo &* s &- win.padLeft < 0 { lo &+= 1 }
    var hi = p.outW
    while hi > lo && (hi &- 1) &* s &- win.padLeft &+ win.kW &- 1 >= win.inW { hi &-= 1 }
    withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 &* taps) { buffer in
        guard let inputOffsets = buffer.baseAddress else { return }
        let weightOffsets = inputOffsets + taps
        if c < Vec.scalarCount {
            // Fewer channels than a vector (a 4-channel head): 128-bit vectors, the interior
            // pixels sharing one table, four at a time (four chains in flight).
            for ox in 0..<minInt(lo, p.outW) {
                let n = tapTable(p, ox, kyLo, kyHi, inputOffsets, weightOffsets)
                narrowPixels(p, ox, 1, n, inputOffsets, weightOffsets)
            }
            if lo < hi {
                let n = tapTable(p, lo, kyLo, kyHi, inputOffsets, weightOffsets)
                var ox = lo
                while ox &+ 4 <= hi { narrowPixels(p, ox, 4, n, inputOffsets, weightOffsets); ox &+= 4 }
                while ox < hi { narrowPixels(p, ox, 1, n, inputOffsets, weightOffsets); ox &+= 1 }
            }
            for ox in maxInt(hi, lo)..<p.outW {
                let n = tapTable(p, ox, kyLo, kyHi, inputOffsets, weightOffsets)
                narrowPixels(p, ox, 1, n, inputOffsets, weightOffsets)
            }
            return
        }
        for ox in 0..<minInt(lo, p.outW) {
            let n = tapTable(p, ox, kyLo, kyHi, inputOffsets, weightOffsets)
            pixels1(p, ox, n, inputOffsets, weightOffsets)
        }
        if lo < hi {
            let n = tapTable(p, lo, kyLo, kyHi, inputOffsets, weightOffsets)
            var ox = lo
            while ox &+ 8 <= hi { pixels8(p, ox, n, inputOffsets, weightOffsets); ox &+= 8 }
            if ox &+ 4 <= hi { pixels4(p, ox, n, inputOffsets, weightOffsets); ox &+= 4 }
            if ox &+ 2 <= hi { pixels2(p, ox, n, inputOffsets, weightOffsets); ox &+= 2 }
            if ox < hi { pixels1(p, ox, n, inputOffsets, weightOffsets) }
        }
        for ox in maxInt(hi, lo)..<p.outW {
            let n = tapTable(p, ox, kyLo, kyHi, inputOffsets, weightOffsets)
            pixels1(p, ox, n, inputOffsets, weightOffsets)
        }
    }
}

/// The taps of output column `ox` inside the image, in chain order: offsets (in floats) from the
/// pixel's window origin into the input and into the weights. Returns their count.
private func tapTable(_ p: DepthwiseRowArguments, _ ox: Int, _ kyLo: Int, _ kyHi: Int,
                      _ inputOffsets: UnsafeMutablePointer<Int>, _ weightOffsets: UnsafeMutablePointer<Int>) -> Int {
    let win = p.window
    let c = p.pixelStride, rowStep = win.inW &* c
    let ix0 = ox &* win.strideW &- win.padLeft
    let kxLo = maxInt(0, -ix0), kxHi = minInt(win.kW, win.inW &- ix0)
    var n = 0
    for kx in kxLo..<maxInt(kxLo, kxHi) {
        for ky in kyLo..<kyHi {
            inputOffsets[n] = ky &* rowStep &+ kx &* c
            weightOffsets[n] = (ky &* win.kW &+ kx) &* c
            n &+= 1
        }
    }
    return n
}

@inline(never) private func pixels8(_ p: DepthwiseRowArguments, _ ox: Int, _ taps: Int, _ io: UnsafePointer<Int>,
                                    _ wo: UnsafePointer<Int>) { pixels(p, ox, 8, taps, io, wo) }
@inline(never) private func pixels4(_ p: DepthwiseRowArguments, _ ox: Int, _ taps: Int, _ io: UnsafePointer<Int>,
                                    _ wo: UnsafePointer<Int>) { pixels(p, ox, 4, taps, io, wo) }
@inline(never) private func pixels2(_ p: DepthwiseRowArguments, _ ox: Int, _ taps: Int, _ io: UnsafePointer<Int>,
                                    _ wo: UnsafePointer<Int>) { pixels(p, ox, 2, taps, io, wo) }
@inline(never) private func pixels1(_ p: DepthwiseRowArguments, _ ox: Int, _ taps: Int, _ io: UnsafePointer<Int>,
                                    _ wo: UnsafePointer<Int>) { pixels(p, ox, 1, taps, io, wo) }

/// `count` (a constant, at most 8) neighbouring pixels from `ox` that share the tap table.
@inline(__always) private func pixels(_ p: DepthwiseRowArguments, _ ox: Int, _ count: Int, _ taps: Int,
                                      _ inputOffsets: UnsafePointer<Int>, _ weightOffsets: UnsafePointer<Int>) {
    let win = p.window
    let V = Vec.scalarCount, c = win.channels, step = win.strideW &* p.pixelStride, ops = p.outputPixelStride
    let origin = win.input + (win.iy0 &* win.inW &+ ox &* win.strideW &- win.padLeft) &* p.pixelStride
    let out0 = p.output + ox &* ops
    var ch = 0
    while ch < c {
        let cb = ch &+ V <= c ? ch : c &- V
        let q0 = origin + cb
        let q1 = q0 + step, q2 = q1 + step, q3 = q2 + step, q4 = q3 + step, q5 = q4 + step, q6 = q5 + step
        let q7 = q6 + step
        let wb = p.weights + cb
        let b = p.bias.map { load($0 + cb) } ?? Vec()
        var a0 = b, a1 = b, a2 = b, a3 = b, a4 = b, a5 = b, a6 = b, a7 = b
        var t = 0
        while t < taps {
            let o = inputOffsets[t]
            let w = load(wb + weightOffsets[t])
            a0 = madd(a0, load(q0 + o), w)
            if count > 1 { a1 = madd(a1, load(q1 + o), w) }
            if count > 2 { a2 = madd(a2, load(q2 + o), w); a3 = madd(a3, load(q3 + o), w) }
            if count > 4 {
                a4 = madd(a4, load(q4 + o), w); a5 = madd(a5, load(q5 + o), w)
                a6 = madd(a6, load(q6 + o), w); a7 = madd(a7, load(q7 + o), w)
            }
            t &+= 1
        }
        let out = out0 + cb
        store(finish(a0, p, cb), out)
        if count > 1 { store(finish(a1, p, cb), out + ops) }
        if count > 2 { store(finish(a2, p, cb), out + 2 &* ops); store(finish(a3, p, cb), out + 3 &* ops) }
        if count > 4 {
            store(finish(a4, p, cb), out + 4 &* ops); store(finish(a5, p, cb), out + 5 &* ops)
            store(finish(a6, p, cb), out + 6 &* ops); store(finish(a7, p, cb), out + 7 &* ops)
        }
        ch &+= V
    }
}

/// `count` (1 or 4) neighbouring output pixels of 4 to `Vec.scalarCount` - 1 channels that share
/// a tap table, in blocks of four channels (the last ending at the last channel).
@inline(never) private func narrowPixels(_ p: DepthwiseRowArguments, _ ox: Int, _ count: Int, _ taps: Int,
                                         _ inputOffsets: UnsafePointer<Int>, _ weightOffsets: UnsafePointer<Int>) {
    let win = p.window
    let c = win.channels, step = win.strideW &* p.pixelStride, ops = p.outputPixelStride
    let origin = win.input + (win.iy0 &* win.inW &+ ox &* win.strideW &- win.padLeft) &* p.pixelStride
    let out = p.output + ox &* ops
    var ch = 0
    while ch < c {
        let cb = ch &+ 4 <= c ? ch : c &- 4
        let b = p.bias.map { load4($0 + cb) } ?? SIMD4<Float>()
        var a0 = b, a1 = b, a2 = b, a3 = b
        let q0 = origin + cb, q1 = q0 + step, q2 = q1 + step, q3 = q2 + step
        for t in 0..<taps {
            let o = inputOffsets[t], w = load4(p.weights + (weightOffsets[t] &+ cb))
            a0 = madd4(a0, load4(q0 + o), w)
            if count > 1 {
                a1 = madd4(a1, load4(q1 + o), w); a2 = madd4(a2, load4(q2 + o), w); a3 = madd4(a3, load4(q3 + o), w)
            }
        }
        store4(finish4(a0, p, cb), out + cb)
        if count > 1 {
            store4(finish4(a1, p, cb), out + (ops &+ cb)); store4(finish4(a2, p, cb), out + (2 &* ops &+ cb))
            store4(finish4(a3, p, cb), out + (3 &* ops &+ cb))
        }
        ch &+= 4
    }
}

/// The clamp, then PReLU, on channels cb..<cb + 4.
@_transparent private func finish4(_ acc: SIMD4<Float>, _ p: DepthwiseRowArguments, _ cb: Int) -> SIMD4<Float> {
    var v = acc
    for i in 0..<4 {
        var x = v[i]
        if p.lo > -.infinity || p.hi < .infinity { let y = p.lo > x ? p.lo : x; x = p.hi < y ? p.hi : y }
        if let alpha = p.alpha, x < 0 { x *= alpha[cb &+ i] }
        v[i] = x
    }
    return v
}

/// One output pixel, leaving out the taps outside the image.
private func clippedPixel(_ p: DepthwiseRowArguments, _ ox: Int, _ kyLo: Int, _ kyHi: Int) {
    let win = p.window
    let V = Vec.scalarCount, c = win.channels, cs = p.pixelStride
    let ix0 = ox &* win.strideW &- win.padLeft
    let kxLo = maxInt(0, -ix0), kxHi = minInt(win.kW, win.inW &- ix0)
    let out = p.output + ox &* p.outputPixelStride
    let origin = win.input + (win.iy0 &* win.inW &+ ix0) &* cs
    let rowStep = win.inW &* cs
    if c >= V {
        var ch = 0
        while ch < c {
            let cb = ch &+ V <= c ? ch : c &- V
            var acc = p.bias.map { load($0 + cb) } ?? Vec()
            for kx in kxLo..<maxInt(kxLo, kxHi) {
                for ky in kyLo..<maxInt(kyLo, kyHi) {
                    let w = load(p.weights + ((ky &* win.kW &+ kx) &* cs &+ cb))
                    acc = madd(acc, load(origin + (ky &* rowStep &+ kx &* cs &+ cb)), w)
                }
            }
            store(finish(acc, p, cb), out + cb)
            ch &+= V
        }
        return
    }
    for ch in 0..<c {
        var acc = p.bias?[ch] ?? 0
        for kx in kxLo..<maxInt(kxLo, kxHi) {
            for ky in kyLo..<maxInt(kyLo, kyHi) {
                acc = madd(acc, origin[ky &* rowStep &+ kx &* cs &+ ch], p.weights[(ky &* win.kW &+ kx) &* cs &+ ch])
            }
        }
        if p.lo > -.infinity || p.hi < .infinity {
            let x = p.lo > acc ? p.lo : acc
            acc = p.hi < x ? p.hi : x
        }
        if let alpha = p.alpha, acc < 0 { acc *= alpha[ch] }
        out[ch] = acc
    }
}

/// The clamp, then PReLU, on channels cb..<cb + V.
@_transparent private func finish(_ acc: Vec, _ p: DepthwiseRowArguments, _ cb: Int) -> Vec {
    var v = acc
    if p.lo > -.infinity || p.hi < .infinity { v = clamp(v, Vec(repeating: p.lo), Vec(repeating: p.hi)) }
    if let alpha = p.alpha { v = prelu(v, load(alpha + cb)) }
    return v
}
