import TasksVisionKernels

// One output row of a convolution with one output channel (the pose models' segmentation head: 3x3 over 8
// channels on a 256x256 map). Lanes are output pixels, read from planar input rows: each tap is one vector load
// and one broadcast weight per vector of pixels. A GEMM of one column computes a whole tile of columns instead (16
// on AVX-512, 15 of them padding). Each output's sum is the bias, then ky, kx and channel in order, one fused
// multiply-add chain as XNNPACK's IGEMM sums it; taps outside the image multiply the planes' zeros, as XNNPACK
// multiplies its zero buffer. Eight vectors of pixels per step: eight independent chains, the fused multiply-add's
// latency times its throughput. Where the set's `oneChannelConvSumsInPairs` (arm64, whose XNNPACK IGEMM sums a
// convolution of fewer than 8 output channels so), each tap's even channels go to one chain from the bias and its
// odd channels to another from zero, the two added before the clamp.

public func f32OneChannelConvRow(_ p: OneChannelConvRowArguments) {
    let V = Vec.scalarCount
    var x = 0
    while x &+ 8 &* V <= p.outW {
        oneChannelPixels(p, x, 8)
        x &+= 8 &* V
    }
    while x &+ V <= p.outW {
        oneChannelPixels(p, x, 1)
        x &+= V
    }
    if x < p.outW { oneChannelTail(p, x) }
}

@inline(never) private func oneChannelPixels(_ p: OneChannelConvRowArguments, _ x: Int, _ u: Int) {
    if u == 8 {
        let s = oneChannelSums(p, x, 8)
        let V = Vec.scalarCount, o = p.output + x
        store(s.0, o); store(s.1, o + V); store(s.2, o + 2 &* V); store(s.3, o + 3 &* V)
        store(s.4, o + 4 &* V); store(s.5, o + 5 &* V); store(s.6, o + 6 &* V); store(s.7, o + 7 &* V)
    } else {
        store(oneChannelSums(p, x, 1).0, p.output + x)
    }
}

/// The last `outW - x` pixels, fewer than a vector: summed as a whole vector (the planes are that long), stored
/// lane by lane.
@inline(never) private func oneChannelTail(_ p: OneChannelConvRowArguments, _ x: Int) {
    let v = oneChannelSums(p, x, 1).0
    for i in 0..<(p.outW &- x) { p.output[x &+ i] = v[i] }
}

/// `u` (1 or 8, a constant at each call) vectors of pixels from `x`, clamped.
@_transparent private func oneChannelSums(_ p: OneChannelConvRowArguments, _ x: Int, _ u: Int)
    -> (Vec, Vec, Vec, Vec, Vec, Vec, Vec, Vec) {
    let V = Vec.scalarCount, c = p.channels, stride = p.planeStride
    let bias = Vec(repeating: p.filter[0])
    var a0 = bias, a1 = bias, a2 = bias, a3 = bias, a4 = bias, a5 = bias, a6 = bias, a7 = bias
    var b0 = Vec(), b1 = Vec(), b2 = Vec(), b3 = Vec(), b4 = Vec(), b5 = Vec(), b6 = Vec(), b7 = Vec()
    // One channel of one tap into the accumulators `a0...a7`.
    @_transparent func tap(_ src: UnsafePointer<Float>, _ weight: Float, _ a0: inout Vec, _ a1: inout Vec,
                           _ a2: inout Vec, _ a3: inout Vec, _ a4: inout Vec, _ a5: inout Vec, _ a6: inout Vec,
                           _ a7: inout Vec) {
        let s = Vec(repeating: weight)
        a0 = madd(a0, load(src), s)
        if u > 1 {
            a1 = madd(a1, load(src + V), s)
            a2 = madd(a2, load(src + 2 &* V), s)
            a3 = madd(a3, load(src + 3 &* V), s)
            a4 = madd(a4, load(src + 4 &* V), s)
            a5 = madd(a5, load(src + 5 &* V), s)
            a6 = madd(a6, load(src + 6 &* V), s)
            a7 = madd(a7, load(src + 7 &* V), s)
        }
    }
    var w = p.filter + 1
    for ky in 0..<p.kH {
        let row = p.rows[ky] + x
        for kx in 0..<p.kW {
            var src = row + kx
            var ch = 0
            if oneChannelConvSumsInPairs {
                while ch &+ 1 < c {
                    tap(src, w[ch], &a0, &a1, &a2, &a3, &a4, &a5, &a6, &a7)
                    tap(src + stride, w[ch &+ 1], &b0, &b1, &b2, &b3, &b4, &b5, &b6, &b7)
                    src += 2 &* stride
                    ch &+= 2
                }
            }
            while ch < c {
                tap(src, w[ch], &a0, &a1, &a2, &a3, &a4, &a5, &a6, &a7)
                src += stride
                ch &+= 1
            }
            w += c
        }
    }
    if oneChannelConvSumsInPairs {
        a0 = a0 + b0
        if u > 1 { a1 = a1 + b1; a2 = a2 + b2; a3 = a3 + b3; a4 = a4 + b4; a5 = a5 + b5; a6 = a6 + b6; a7 = a7 + b7 }
    }
    if p.lo > -.infinity || p.hi < .infinity {
        let lo = Vec(repeating: p.lo), hi = Vec(repeating: p.hi)
        a0 = clamp(a0, lo, hi)
        if u > 1 {
            a1 = clamp(a1, lo, hi); a2 = clamp(a2, lo, hi); a3 = clamp(a3, lo, hi); a4 = clamp(a4, lo, hi)
            a5 = clamp(a5, lo, hi); a6 = clamp(a6, lo, hi); a7 = clamp(a7, lo, hi)
        }
    }
    return (a0, a1, a2, a3, a4, a5, a6, a7)
}

@_transparent private func load(_ p: UnsafePointer<Float>) -> Vec {
    loadVec(p)
}
@_transparent private func store(_ v: Vec, _ p: UnsafeMutablePointer<Float>) {
    storeVec(v, p)
}
