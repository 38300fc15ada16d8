import TasksVisionKernels

// Depthwise convolution, one output row per call, directly on NHWC (no indirection buffer):
// per output pixel and block of one vector of channels, the accumulator starts at the bias and
// takes the taps column by column (kx outer, ky inner) as one fused multiply-add chain, which is
// the order of XNNPACK's dwconv kernels over its indirection buffer. Pixels whose window lies
// inside the image run four at a time with the kernel size a constant (3x3 and 5x5: the taps
// unroll and each weight vector loaded serves all four); border pixels leave out the taps outside
// the image. A last partial block of channels is the block ending at the last channel (it
// overlaps the one before and writes the same values again); fewer channels than a vector go
// channel by channel. `madd(acc, x, w)` is the set's fused multiply-add (one instruction on the
// FMA sets, exact emulation on the portable one).

@_transparent private func load(_ p: UnsafePointer<Float>) -> Vec {
    UnsafeRawPointer(p).loadUnaligned(as: Vec.self)
}
@_transparent private func store(_ v: Vec, _ p: UnsafeMutablePointer<Float>) {
    UnsafeMutableRawPointer(p).storeBytes(of: v, as: Vec.self)
}

public func f32DepthwiseRow(_ p: DepthwiseRowArguments) {
    let s = p.strideW, c = p.channels
    let kyLo = max(0, -p.iy0), kyHi = min(p.kH, p.inH &- p.iy0)
    // Output columns whose taps all lie inside the image.
    var lo = 0
    while lo < p.outW && lo &* s &- p.padLeft < 0 { lo &+= 1 }
    var hi = p.outW
    while hi > lo && (hi &- 1) &* s &- p.padLeft &+ p.kW &- 1 >= p.inW { hi &-= 1 }
    for ox in 0..<lo { clippedPixel(p, ox, kyLo, kyHi) }
    if c >= Vec.scalarCount && kyLo == 0 && kyHi == p.kH && p.kH == 3 && p.kW == 3 {
        interior3x3(p, lo, hi)
    } else if c >= Vec.scalarCount && kyLo == 0 && kyHi == p.kH && p.kH == 5 && p.kW == 5 {
        interior5x5(p, lo, hi)
    } else {
        for ox in lo..<hi { clippedPixel(p, ox, kyLo, kyHi) }
    }
    for ox in max(hi, lo)..<p.outW { clippedPixel(p, ox, kyLo, kyHi) }
}

@inline(never) private func interior3x3(_ p: DepthwiseRowArguments, _ lo: Int, _ hi: Int) { interior(p, lo, hi, 3, 3) }
@inline(never) private func interior5x5(_ p: DepthwiseRowArguments, _ lo: Int, _ hi: Int) { interior(p, lo, hi, 5, 5) }

/// Columns lo..<hi with every tap inside the image (all kH rows too), four pixels per step.
@inline(__always) private func interior(_ p: DepthwiseRowArguments, _ lo: Int, _ hi: Int, _ kH: Int, _ kW: Int) {
    var ox = lo
    while ox &+ 4 <= hi {
        pixels(p, ox, kH, kW, 4)
        ox &+= 4
    }
    while ox < hi {
        pixels(p, ox, kH, kW, 1)
        ox &+= 1
    }
}

/// `count` (1 or 4, a constant) neighbouring interior pixels from `ox`: each weight vector
/// loaded serves all of them.
@inline(__always) private func pixels(_ p: DepthwiseRowArguments, _ ox: Int, _ kH: Int, _ kW: Int, _ count: Int) {
    let V = Vec.scalarCount, c = p.channels, step = p.strideW &* c, ops = p.outputPixelStride
    let rowStep = p.inW &* c
    let in0 = p.input + (p.iy0 &* p.inW &+ ox &* p.strideW &- p.padLeft) &* c
    let out0 = p.output + ox &* ops
    var ch = 0
    while ch < c {
        let cb = ch &+ V <= c ? ch : c &- V
        let b = p.bias.map { load($0 + cb) } ?? Vec()
        var a0 = b, a1 = b, a2 = b, a3 = b
        for kx in 0..<kW {
            for ky in 0..<kH {
                let w = load(p.weights + ((ky &* kW &+ kx) &* c &+ cb))
                let q = in0 + (ky &* rowStep &+ kx &* c &+ cb)
                a0 = madd(a0, load(q), w)
                if count > 1 {
                    a1 = madd(a1, load(q + step), w)
                    a2 = madd(a2, load(q + 2 &* step), w)
                    a3 = madd(a3, load(q + 3 &* step), w)
                }
            }
        }
        store(finish(a0, p, cb), out0 + cb)
        if count > 1 {
            store(finish(a1, p, cb), out0 + (ops &+ cb))
            store(finish(a2, p, cb), out0 + (2 &* ops &+ cb))
            store(finish(a3, p, cb), out0 + (3 &* ops &+ cb))
        }
        ch &+= V
    }
}

/// One output pixel, leaving out the taps outside the image.
private func clippedPixel(_ p: DepthwiseRowArguments, _ ox: Int, _ kyLo: Int, _ kyHi: Int) {
    let V = Vec.scalarCount, c = p.channels
    let ix0 = ox &* p.strideW &- p.padLeft
    let kxLo = max(0, -ix0), kxHi = min(p.kW, p.inW &- ix0)
    let out = p.output + ox &* p.outputPixelStride
    let origin = p.input + (p.iy0 &* p.inW &+ ix0) &* c
    let rowStep = p.inW &* c
    if c >= V {
        var ch = 0
        while ch < c {
            let cb = ch &+ V <= c ? ch : c &- V
            var acc = p.bias.map { load($0 + cb) } ?? Vec()
            for kx in kxLo..<max(kxLo, kxHi) {
                for ky in kyLo..<max(kyLo, kyHi) {
                    let w = load(p.weights + ((ky &* p.kW &+ kx) &* c &+ cb))
                    acc = madd(acc, load(origin + (ky &* rowStep &+ kx &* c &+ cb)), w)
                }
            }
            store(finish(acc, p, cb), out + cb)
            ch &+= V
        }
        return
    }
    for ch in 0..<c {
        var acc = p.bias?[ch] ?? 0
        for kx in kxLo..<max(kxLo, kxHi) {
            for ky in kyLo..<max(kyLo, kyHi) {
                acc = madd(acc, origin[ky &* rowStep &+ kx &* c &+ ch], p.weights[(ky &* p.kW &+ kx) &* c &+ ch])
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
