import TasksVisionKernels

// Depthwise convolution, one output row per call, directly on NHWC (no indirection buffer), dilated or not:
// per output pixel and block of one vector of channels, the accumulator starts at the bias and
// takes the taps column by column (kx outer, ky inner) as one fused multiply-add chain, which is
// the order of XNNPACK's dwconv kernels over its indirection buffer. The taps a pixel uses are a
// table of offsets (input and weight, in that order), built per row on the stack: taps outside
// the image are left out of it (XNNPACK multiplies zeros there: the same sums). Pixels whose
// window lies inside the image share one table and run in groups of pixels x vectors of
// channels, eight accumulators a group (eight chains in flight, each weight vector loaded once
// for the group's pixels, each input an operand of its fused multiply-add): the set's interior
// group (`depthwiseInteriorPixels`), then shorter groups with more vectors per pixel for the
// row's last pixels; border pixels run one at a time, with their own table and up to eight
// vectors. A last partial block of channels is the block ending at the last channel (it
// overlaps the one before and writes the same values again); fewer channels than a vector go
// four by four or channel by channel. `madd(acc, x, w)` is
// the set's fused multiply-add (one instruction on the FMA sets, exact emulation on the portable
// one). Windows of `depthwiseTwoChainTaps` taps sum in two chains, as XNNPACK's arm64 25-tap kernel
// (`f32-dwconv-25p8c-minmax-neonfma-acc2`) does: the taps at even places of the window's order from
// the bias, those at odd places from zero, the two added at the end; the tap table lists the even
// taps first (`TapTable.split`). A `tapOrder` replaces both orders with its own (XNNPACK's arm64 NCHW kernels).

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
    let kyLo = RowWindow.firstTap(origin: win.iy0, dilation: win.dilationH)
    let kyHi = minInt(win.kH, RowWindow.taps(within: win.inH &- win.iy0, dilation: win.dilationH))
    guard c >= 4, kyLo < kyHi, taps > 0 else {
        for ox in 0..<p.outW { clippedPixel(p, ox, kyLo, kyHi) }
        return
    }
    // Output columns whose taps all lie inside the image horizontally.
    var lo = 0
    while lo < p.outW && lo &* s &- win.padLeft < 0 { lo &+= 1 }
    var hi = p.outW
    while hi > lo && (hi &- 1) &* s &- win.padLeft &+ (win.kW &- 1) &* win.dilationW >= win.inW { hi &-= 1 }
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
        // Vectors of channels a short group may take at once (a block of them may not exceed the channels).
        let nv = c / Vec.scalarCount
        for ox in 0..<minInt(lo, p.outW) {
            let n = tapTable(p, ox, kyLo, kyHi, inputOffsets, weightOffsets)
            pixels1(p, ox, n, inputOffsets, weightOffsets, nv: nv)
        }
        if lo < hi {
            let n = tapTable(p, lo, kyLo, kyHi, inputOffsets, weightOffsets)
            var ox = lo
            // Groups of two vectors only where the channels come in whole pairs of vectors, or nearly (24 channels
            // in blocks of 16 would compute 32).
            let vectors = (c &+ Vec.scalarCount &- 1) / Vec.scalarCount
            if depthwiseInteriorPixels == 4 && nv >= 2 && (vectors % 2 == 0 || vectors >= 8) {
                let groups = (hi &- ox) / 4
                if groups > 0 {
                    pixels4x2(p, ox, groups, n, inputOffsets, weightOffsets)
                    ox &+= groups &* 4
                }
            }
            let groups = (hi &- ox) / 8
            if groups > 0 {
                pixels8(p, ox, groups, n, inputOffsets, weightOffsets)
                ox &+= groups &* 8
            }
            if ox &+ 4 <= hi { pixels4(p, ox, n, inputOffsets, weightOffsets, nv: nv); ox &+= 4 }
            if ox &+ 2 <= hi { pixels2(p, ox, n, inputOffsets, weightOffsets, nv: nv); ox &+= 2 }
            if ox < hi { pixels1(p, ox, n, inputOffsets, weightOffsets, nv: nv) }
        }
        for ox in maxInt(hi, lo)..<p.outW {
            let n = tapTable(p, ox, kyLo, kyHi, inputOffsets, weightOffsets)
            pixels1(p, ox, n, inputOffsets, weightOffsets, nv: nv)
        }
    }
}

/// A pixel's taps inside the image: `count` entries, the first `split` of them the first chain's.
private struct TapTable {
    let count: Int
    let split: Int
}

/// Whether a window of `taps` taps sums in two chains on this set.
@_transparent private func twoChains(_ taps: Int) -> Bool {
    if let range = depthwiseTwoChainTaps { return range.contains(taps) }
    return false
}

/// Whether tap (kx, ky) sits at an odd place of the window's order (kx * kH + ky): the second chain's, with two.
@_transparent private func oddPlace(_ kx: Int, _ ky: Int, _ kH: Int) -> Bool { (kx &* kH &+ ky) & 1 == 1 }

/// The taps of output column `ox` inside the image, in chain order: offsets (in floats) from the
/// pixel's window origin into the input and into the weights. With two chains, the taps at even
/// places of the whole window's order (kx * kH + ky) come first, then the odd ones.
private func tapTable(_ p: DepthwiseRowArguments, _ ox: Int, _ kyLo: Int, _ kyHi: Int,
                      _ inputOffsets: UnsafeMutablePointer<Int>, _ weightOffsets: UnsafeMutablePointer<Int>)
    -> TapTable {
    let win = p.window
    let c = p.pixelStride, rowStep = win.inW &* c
    // Offsets from one tap to the next, down and across.
    let tapDown = win.dilationH &* rowStep, tapAcross = win.dilationW &* c
    let ix0 = ox &* win.strideW &- win.padLeft
    let kxLo = RowWindow.firstTap(origin: ix0, dilation: win.dilationW)
    let kxHi = minInt(win.kW, RowWindow.taps(within: win.inW &- ix0, dilation: win.dilationW))
    if let order = p.tapOrder {
        var n = 0, first = 0
        for i in 0..<order.count {
            if i == order.firstChain { first = n }
            let t = order.taps[i], ky = t / win.kW, kx = t % win.kW
            guard kx >= kxLo && kx < kxHi && ky >= kyLo && ky < kyHi else { continue }
            inputOffsets[n] = ky &* tapDown &+ kx &* tapAcross
            weightOffsets[n] = t &* c
            n &+= 1
        }
        return TapTable(count: n, split: order.firstChain >= order.count ? n : first)
    }
    let split = twoChains(win.kH &* win.kW)
    var n = 0, even = 0
    for parity in 0..<(split ? 2 : 1) {
        for kx in kxLo..<maxInt(kxLo, kxHi) {
            for ky in kyLo..<kyHi where !split || oddPlace(kx, ky, win.kH) == (parity == 1) {
                inputOffsets[n] = ky &* tapDown &+ kx &* tapAcross
                weightOffsets[n] = (ky &* win.kW &+ kx) &* c
                n &+= 1
            }
        }
        if parity == 0 { even = n }
    }
    return TapTable(count: n, split: even)
}

// The groups: `count` pixels x `nv` vectors of channels, eight accumulators (chains) or fewer. Short groups take
// more vectors per pixel, so a row's last pixels and its border pixels keep eight chains in flight as well.
/// `groups` groups of eight pixels in one call (the set-up of a call costs as much as a short group's taps).
@inline(never) private func pixels8(_ p: DepthwiseRowArguments, _ ox: Int, _ groups: Int, _ taps: TapTable,
                                    _ io: UnsafePointer<Int>, _ wo: UnsafePointer<Int>) {
    for g in 0..<groups { pixels(p, ox &+ g &* 8, 8, 1, taps, io, wo) }
}
/// `groups` groups of four pixels x two vectors in one call.
@inline(never) private func pixels4x2(_ p: DepthwiseRowArguments, _ ox: Int, _ groups: Int, _ taps: TapTable,
                                      _ io: UnsafePointer<Int>, _ wo: UnsafePointer<Int>) {
    for g in 0..<groups { pixels(p, ox &+ g &* 4, 4, 2, taps, io, wo) }
}
@inline(never) private func pixels4(_ p: DepthwiseRowArguments, _ ox: Int, _ taps: TapTable, _ io: UnsafePointer<Int>,
                                    _ wo: UnsafePointer<Int>, nv: Int) {
    if nv >= 2 { pixels(p, ox, 4, 2, taps, io, wo) } else { pixels(p, ox, 4, 1, taps, io, wo) }
}
@inline(never) private func pixels2(_ p: DepthwiseRowArguments, _ ox: Int, _ taps: TapTable, _ io: UnsafePointer<Int>,
                                    _ wo: UnsafePointer<Int>, nv: Int) {
    switch nv {
    case 4...: pixels(p, ox, 2, 4, taps, io, wo)
    case 2, 3: pixels(p, ox, 2, 2, taps, io, wo)
    default: pixels(p, ox, 2, 1, taps, io, wo)
    }
}
@inline(never) private func pixels1(_ p: DepthwiseRowArguments, _ ox: Int, _ taps: TapTable, _ io: UnsafePointer<Int>,
                                    _ wo: UnsafePointer<Int>, nv: Int) {
    switch nv {
    case 8...: pixels(p, ox, 1, 8, taps, io, wo)
    case 4...7: pixels(p, ox, 1, 4, taps, io, wo)
    case 2, 3: pixels(p, ox, 1, 2, taps, io, wo)
    default: pixels(p, ox, 1, 1, taps, io, wo)
    }
}

/// Vector `i` (a constant) of eight.
@_transparent private func pick(_ i: Int, _ w0: Vec, _ w1: Vec, _ w2: Vec, _ w3: Vec, _ w4: Vec, _ w5: Vec,
                                _ w6: Vec, _ w7: Vec) -> Vec {
    switch i {
    case 0: return w0
    case 1: return w1
    case 2: return w2
    case 3: return w3
    case 4: return w4
    case 5: return w5
    case 6: return w6
    default: return w7
    }
}

/// `count` neighbouring pixels from `ox` that share the tap table, `nv` vectors of channels at a time (constants,
/// `count * nv` at most 8): accumulator k is pixel k / nv, vector k % nv.
@_transparent private func pixels(_ p: DepthwiseRowArguments, _ ox: Int, _ count: Int, _ nv: Int, _ taps: TapTable,
                                  _ inputOffsets: UnsafePointer<Int>, _ weightOffsets: UnsafePointer<Int>) {
    let win = p.window
    let V = Vec.scalarCount, c = win.channels, step = win.strideW &* p.pixelStride, ops = p.outputPixelStride
    let n = count &* nv, width = nv &* V
    let origin = win.input + (win.iy0 &* win.inW &+ ox &* win.strideW &- win.padLeft) &* p.pixelStride
    let out0 = p.output + ox &* ops
    var ch = 0
    while ch < c {
        let cb = ch &+ width <= c ? ch : c &- width
        let q = origin + cb
        // Accumulator k's input (at tap offset 0) and its first channel.
        @_transparent func at(_ k: Int) -> Int { (k / nv) &* step &+ (k % nv) &* V }
        let s0 = q + at(0), s1 = q + at(1), s2 = q + at(2), s3 = q + at(3)
        let s4 = q + at(4), s5 = q + at(5), s6 = q + at(6), s7 = q + at(7)
        let wb = p.weights + cb
        let bias = p.bias.map { $0 + cb }
        @_transparent func start(_ v: Int) -> Vec { v < nv ? (bias.map { load($0 + v &* V) } ?? Vec()) : Vec() }
        let b0 = start(0), b1 = start(1), b2 = start(2), b3 = start(3)
        let b4 = start(4), b5 = start(5), b6 = start(6), b7 = start(7)
        @_transparent func first(_ k: Int) -> Vec { pick(k % nv, b0, b1, b2, b3, b4, b5, b6, b7) }
        var a0 = first(0), a1 = first(1), a2 = first(2), a3 = first(3)
        var a4 = first(4), a5 = first(5), a6 = first(6), a7 = first(7)
        // Taps `from..<to` of the table into the accumulators, one fused multiply-add chain each.
        @_transparent func chain(_ from: Int, _ to: Int, _ a0: inout Vec, _ a1: inout Vec, _ a2: inout Vec,
                                 _ a3: inout Vec, _ a4: inout Vec, _ a5: inout Vec, _ a6: inout Vec,
                                 _ a7: inout Vec) {
            var t = from
            while t < to {
                let o = inputOffsets[t]
                let wt = wb + weightOffsets[t]
                let w0 = load(wt), w1 = nv > 1 ? load(wt + V) : w0, w2 = nv > 2 ? load(wt + 2 &* V) : w0
                let w3 = nv > 3 ? load(wt + 3 &* V) : w0, w4 = nv > 4 ? load(wt + 4 &* V) : w0
                let w5 = nv > 5 ? load(wt + 5 &* V) : w0, w6 = nv > 6 ? load(wt + 6 &* V) : w0
                let w7 = nv > 7 ? load(wt + 7 &* V) : w0
                @_transparent func w(_ k: Int) -> Vec { pick(k % nv, w0, w1, w2, w3, w4, w5, w6, w7) }
                a0 = madd(a0, load(s0 + o), w(0))
                if n > 1 { a1 = madd(a1, load(s1 + o), w(1)) }
                if n > 2 { a2 = madd(a2, load(s2 + o), w(2)); a3 = madd(a3, load(s3 + o), w(3)) }
                if n > 4 {
                    a4 = madd(a4, load(s4 + o), w(4)); a5 = madd(a5, load(s5 + o), w(5))
                    a6 = madd(a6, load(s6 + o), w(6)); a7 = madd(a7, load(s7 + o), w(7))
                }
                t &+= 1
            }
        }
        chain(0, taps.split, &a0, &a1, &a2, &a3, &a4, &a5, &a6, &a7)
        if (depthwiseTwoChainTaps != nil || p.tapOrder != nil) && taps.split < taps.count {
            // The second chain, from zero, added to the first as XNNPACK's acc2 kernels add theirs.
            var z0 = Vec(), z1 = Vec(), z2 = Vec(), z3 = Vec(), z4 = Vec(), z5 = Vec(), z6 = Vec(), z7 = Vec()
            chain(taps.split, taps.count, &z0, &z1, &z2, &z3, &z4, &z5, &z6, &z7)
            a0 = a0 + z0
            if n > 1 { a1 = a1 + z1 }
            if n > 2 { a2 = a2 + z2; a3 = a3 + z3 }
            if n > 4 { a4 = a4 + z4; a5 = a5 + z5; a6 = a6 + z6; a7 = a7 + z7 }
        }
        @_transparent func put(_ a: Vec, _ k: Int) {
            let v = (k % nv) &* V
            store(finish(a, p, cb &+ v), out0 + ((k / nv) &* ops &+ cb &+ v))
        }
        put(a0, 0)
        if n > 1 { put(a1, 1) }
        if n > 2 { put(a2, 2); put(a3, 3) }
        if n > 4 { put(a4, 4); put(a5, 5); put(a6, 6); put(a7, 7) }
        ch &+= width
    }
}

/// `count` (1 or 4) neighbouring output pixels of 4 to `Vec.scalarCount` - 1 channels that share
/// a tap table, in blocks of four channels (the last ending at the last channel).
@inline(never) private func narrowPixels(_ p: DepthwiseRowArguments, _ ox: Int, _ count: Int, _ taps: TapTable,
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
        @_transparent func chain(_ taps: Range<Int>, _ a0: inout SIMD4<Float>, _ a1: inout SIMD4<Float>,
                                 _ a2: inout SIMD4<Float>, _ a3: inout SIMD4<Float>) {
            for t in taps {
                let o = inputOffsets[t], w = load4(p.weights + (weightOffsets[t] &+ cb))
                a0 = madd4(a0, load4(q0 + o), w)
                if count > 1 {
                    a1 = madd4(a1, load4(q1 + o), w); a2 = madd4(a2, load4(q2 + o), w)
                    a3 = madd4(a3, load4(q3 + o), w)
                }
            }
        }
        chain(0..<taps.split, &a0, &a1, &a2, &a3)
        if taps.split < taps.count {
            var z0 = SIMD4<Float>(), z1 = z0, z2 = z0, z3 = z0
            chain(taps.split..<taps.count, &z0, &z1, &z2, &z3)
            a0 = a0 + z0; a1 = a1 + z1; a2 = a2 + z2; a3 = a3 + z3
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
    let kxLo = RowWindow.firstTap(origin: ix0, dilation: win.dilationW)
    let kxHi = minInt(win.kW, RowWindow.taps(within: win.inW &- ix0, dilation: win.dilationW))
    let out = p.output + ox &* p.outputPixelStride
    let origin = win.input + (win.iy0 &* win.inW &+ ix0) &* cs
    // Floats from one tap to the next, down and across.
    let rowStep = win.dilationH &* win.inW &* cs, tapAcross = win.dilationW &* cs
    // With two chains, the taps at odd places of the window's order go to the second.
    let split = twoChains(win.kH &* win.kW)
    @_transparent func second(_ kx: Int, _ ky: Int) -> Bool { split && oddPlace(kx, ky, win.kH) }
    if let order = p.tapOrder {
        clippedPixel(p, ox, order, kxLo..<maxInt(kxLo, kxHi), kyLo..<maxInt(kyLo, kyHi), origin, rowStep, tapAcross,
                     out)
        return
    }
    if c >= V {
        var ch = 0
        while ch < c {
            let cb = ch &+ V <= c ? ch : c &- V
            var acc = p.bias.map { load($0 + cb) } ?? Vec(), acc2 = Vec()
            for kx in kxLo..<maxInt(kxLo, kxHi) {
                for ky in kyLo..<maxInt(kyLo, kyHi) {
                    let w = load(p.weights + ((ky &* win.kW &+ kx) &* cs &+ cb))
                    let x = load(origin + (ky &* rowStep &+ kx &* tapAcross &+ cb))
                    if second(kx, ky) { acc2 = madd(acc2, x, w) } else { acc = madd(acc, x, w) }
                }
            }
            if split { acc = acc + acc2 }
            store(finish(acc, p, cb), out + cb)
            ch &+= V
        }
        return
    }
    for ch in 0..<c {
        var acc = p.bias?[ch] ?? 0, acc2: Float = 0
        for kx in kxLo..<maxInt(kxLo, kxHi) {
            for ky in kyLo..<maxInt(kyLo, kyHi) {
                let x = origin[ky &* rowStep &+ kx &* tapAcross &+ ch], w = p.weights[(ky &* win.kW &+ kx) &* cs &+ ch]
                if second(kx, ky) { acc2 = madd(acc2, x, w) } else { acc = madd(acc, x, w) }
            }
        }
        if split { acc = acc + acc2 }
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

/// `clippedPixel` in the taps' own order (`DepthwiseRowArguments.tapOrder`).
private func clippedPixel(_ p: DepthwiseRowArguments, _ ox: Int, _ order: DepthwiseTapOrder, _ kx: Range<Int>,
                          _ ky: Range<Int>, _ origin: UnsafePointer<Float>, _ rowStep: Int, _ tapAcross: Int,
                          _ out: UnsafeMutablePointer<Float>) {
    let win = p.window, cs = p.pixelStride
    for ch in 0..<win.channels {
        var acc = p.bias?[ch] ?? 0, acc2: Float = 0
        for i in 0..<order.count {
            let t = order.taps[i], y = t / win.kW, x = t % win.kW
            guard kx.contains(x) && ky.contains(y) else { continue }
            let v = origin[y &* rowStep &+ x &* tapAcross &+ ch], w = p.weights[t &* cs &+ ch]
            if i < order.firstChain { acc = madd(acc, v, w) } else { acc2 = madd(acc2, v, w) }
        }
        if order.firstChain < order.count { acc = acc + acc2 }
        if p.lo > -.infinity || p.hi < .infinity {
            let x = p.lo > acc ? p.lo : acc
            acc = p.hi < x ? p.hi : x
        }
        if let alpha = p.alpha, acc < 0 { acc *= alpha[ch] }
        out[ch] = acc
    }
}
