import TasksVisionKernels

// AVERAGE_POOL_2D without padding as XNNPACK's `f32-avgpool-9p` kernels sum it: the window's elements in the order
// of its indirection buffer (column by column), in passes of 9, each pass the fixed tree
// `((i2 + i3) + (i4 + i5)) + (((i0 + i1) + i8) + (i6 + i7))` added to the sum of the passes before it (zero at
// first; the last pass has 1 to 9 elements, zeros in place of the others), then times the float 1 / elements, then
// the clamp. Additions only, one rounding each, so every kernel set gives the same bits; channels run in blocks of
// up to four vectors (four independent sums in flight per pass), the last channels one by one.

/// One output pixel's `channels` averages.
public func f32AveragePool(_ p: AveragePoolArguments) {
    let V = Vec.scalarCount, c = p.channels
    var ch = 0
    while ch &+ 4 &* V <= c { averagePoolBlock(p, ch, 4); ch &+= 4 &* V }
    if ch &+ 2 &* V <= c { averagePoolBlock(p, ch, 2); ch &+= 2 &* V }
    if ch &+ V <= c { averagePoolBlock(p, ch, 1); ch &+= V }
    while ch < c { averagePoolChannel(p, ch); ch &+= 1 }
}

/// One pass over the elements at `o[0..<9]` (those from `left` on zeros), from `base`: the fixed tree.
@_transparent private func passTree(_ base: UnsafePointer<Float>, _ o: UnsafePointer<Int>, _ left: Int,
                                    _ full: Bool) -> Vec {
    @_transparent func e(_ i: Int) -> Vec { full || i < left ? loadVec(base + o[i]) : Vec() }
    let s018 = (e(0) + e(1)) + e(8)
    let s2345 = (e(2) + e(3)) + (e(4) + e(5))
    let s67 = e(6) + e(7)
    return s2345 + (s018 + s67)
}

/// `nv` vectors of channels from `ch` (a constant after inlining).
@inline(__always) private func averagePoolBlock(_ p: AveragePoolArguments, _ ch: Int, _ nv: Int) {
    let V = Vec.scalarCount, b0 = p.origin + ch, offsets = p.offsets, elements = p.elements
    let b1 = b0 + V, b2 = b0 + 2 &* V, b3 = b0 + 3 &* V
    var acc0 = Vec(), acc1 = Vec(), acc2 = Vec(), acc3 = Vec()
    var j = 0
    while elements &- j > 9 {
        let o = offsets + j
        acc0 = acc0 + passTree(b0, o, 9, true)
        if nv > 1 { acc1 = acc1 + passTree(b1, o, 9, true) }
        if nv > 2 { acc2 = acc2 + passTree(b2, o, 9, true); acc3 = acc3 + passTree(b3, o, 9, true) }
        j &+= 9
    }
    let o = offsets + j, left = elements &- j
    acc0 = acc0 + passTree(b0, o, left, false)
    if nv > 1 { acc1 = acc1 + passTree(b1, o, left, false) }
    if nv > 2 { acc2 = acc2 + passTree(b2, o, left, false); acc3 = acc3 + passTree(b3, o, left, false) }
    let scale = Vec(repeating: p.scale), lo = Vec(repeating: p.lo), hi = Vec(repeating: p.hi)
    let out = p.output + ch
    storeVec(clamp(acc0 * scale, lo, hi), out)
    if nv > 1 { storeVec(clamp(acc1 * scale, lo, hi), out + V) }
    if nv > 2 {
        storeVec(clamp(acc2 * scale, lo, hi), out + 2 &* V)
        storeVec(clamp(acc3 * scale, lo, hi), out + 3 &* V)
    }
}

/// Channel `ch` alone, in the same order.
private func averagePoolChannel(_ p: AveragePoolArguments, _ ch: Int) {
    let base = p.origin + ch, offsets = p.offsets, elements = p.elements
    var acc: Float = 0
    var j = 0
    while true {
        let left = elements &- j, o = offsets + j
        @_transparent func e(_ i: Int) -> Float { i < left ? base[o[i]] : 0 }
        let s018 = (e(0) + e(1)) + e(8)
        let s2345 = (e(2) + e(3)) + (e(4) + e(5))
        let s67 = e(6) + e(7)
        acc = acc + (s2345 + (s018 + s67))
        if left <= 9 { break }
        j &+= 9
    }
    let v = acc * p.scale
    let m = p.lo > v ? p.lo : v
    p.output[ch] = p.hi < m ? p.hi : m
}
