import TasksVisionKernels
import TasksVisionVectorFMA

// The int8 GEMM (XNNPACK's `qs8-qc8w-gemm ... fp32`): tiles of `qs8TileRows` rows by `qs8TileVectors` vectors of
// columns, weights packed in groups of four k per column (`QS8PackedWeights`, kr = 4, "c4"). Per group, each
// vector of weights is loaded once and each row's four input bytes broadcast into it; the set's `qs8Dot` adds the
// four products to each column's 32-bit sum (VNNI's `vpdpbusd`, `vpmaddwd` pairs, arm64's `sdot`, or lanes). The
// sums are exact, so the order of k and the instruction used never change them. Then XNNPACK's fp32 requantization
// in registers: `Float(sum) * scale`, clamped to the output range less the zero point, rounded to nearest even,
// plus the zero point, narrowed to bytes. Rows past `m` alias the last real row (computed again, not stored).

/// Columns per packed block, k per group, and the offset the kernel adds to input bytes (`QS8PackedWeights`).
public let qs8GEMMTile = (nr: qs8TileVectors * qs8VectorColumns, kr: 4, inputOffset: qs8InputOffset)

public func qs8QC8WGEMM(_ p: QS8GEMMArguments) {
    precondition(p.weights.nr == qs8GEMMTile.nr && p.weights.kr == 4, "weights packed for another int8 GEMM")
    let mr = qs8TileRows
    // Rows in tiles of as even a size as the tile count allows.
    let tileCount = (p.m &+ mr &- 1) / mr
    let base = p.m / maxInt(tileCount, 1), longer = p.m &- base &* tileCount
    var r0 = 0
    for t in 0..<tileCount {
        let rows = t < longer ? base &+ 1 : base
        switch rows {
        case 1: qs8Tiles1(p, r0)
        case 2: qs8Tiles2(p, r0)
        case 3: qs8Tiles3(p, r0)
        case 4: qs8Tiles4(p, r0)
        case 5: qs8Tiles5(p, r0)
        case 6: qs8Tiles6(p, r0)
        case 7: qs8Tiles7(p, r0)
        default: qs8Tiles8(p, r0)
        }
        r0 &+= rows
    }
}

@inline(never) func qs8Tiles1(_ p: QS8GEMMArguments, _ r0: Int) { qs8Tile(p, r0, 1) }
@inline(never) func qs8Tiles2(_ p: QS8GEMMArguments, _ r0: Int) { qs8Tile(p, r0, 2) }
@inline(never) func qs8Tiles3(_ p: QS8GEMMArguments, _ r0: Int) { qs8Tile(p, r0, 3) }
@inline(never) func qs8Tiles4(_ p: QS8GEMMArguments, _ r0: Int) { qs8Tile(p, r0, 4) }
@inline(never) func qs8Tiles5(_ p: QS8GEMMArguments, _ r0: Int) { qs8Tile(p, r0, minInt(5, qs8TileRows)) }
@inline(never) func qs8Tiles6(_ p: QS8GEMMArguments, _ r0: Int) { qs8Tile(p, r0, minInt(6, qs8TileRows)) }
@inline(never) func qs8Tiles7(_ p: QS8GEMMArguments, _ r0: Int) { qs8Tile(p, r0, minInt(7, qs8TileRows)) }
@inline(never) func qs8Tiles8(_ p: QS8GEMMArguments, _ r0: Int) { qs8Tile(p, r0, minInt(8, qs8TileRows)) }

/// `mr` rows (a constant at each call) from row `r0`, across the argument's column blocks. A last block of at most
/// one vector of columns (N = 16, 40, 80, 112 on 32-column blocks) computes that vector alone (`qs8HalfBlock`): its
/// other vector is padding, which XNNPACK's 16-column tiles do not compute either.
@_transparent func qs8Tile(_ p: QS8GEMMArguments, _ r0: Int, _ mr: Int) {
    let nr = qs8TileVectors &* qs8VectorColumns
    let half = qs8TileVectors > 1 && p.endBlock > p.firstBlock
        && p.weights.n &- (p.endBlock &- 1) &* nr <= qs8VectorColumns
    qs8Blocks(p, r0, mr, p.firstBlock, half ? p.endBlock &- 1 : p.endBlock, qs8TileVectors)
    if half { qs8HalfBlock(p, r0, mr) }
}

/// The last block's one vector of columns, for `mr` rows (in functions of their own: a second copy of the loop in
/// the same function made the optimizer stop inlining the loads).
@inline(never) func qs8HalfBlock(_ p: QS8GEMMArguments, _ r0: Int, _ mr: Int) {
    switch mr {
    case 1: qs8HalfBlock1(p, r0)
    case 2: qs8HalfBlock2(p, r0)
    case 3: qs8HalfBlock3(p, r0)
    case 4: qs8HalfBlock4(p, r0)
    case 5: qs8HalfBlock5(p, r0)
    case 6: qs8HalfBlock6(p, r0)
    case 7: qs8HalfBlock7(p, r0)
    default: qs8HalfBlock8(p, r0)
    }
}

@inline(never) func qs8HalfBlock1(_ p: QS8GEMMArguments, _ r0: Int) {
    qs8Blocks(p, r0, minInt(1, qs8TileRows), p.endBlock &- 1, p.endBlock, 1)
}
@inline(never) func qs8HalfBlock2(_ p: QS8GEMMArguments, _ r0: Int) {
    qs8Blocks(p, r0, minInt(2, qs8TileRows), p.endBlock &- 1, p.endBlock, 1)
}
@inline(never) func qs8HalfBlock3(_ p: QS8GEMMArguments, _ r0: Int) {
    qs8Blocks(p, r0, minInt(3, qs8TileRows), p.endBlock &- 1, p.endBlock, 1)
}
@inline(never) func qs8HalfBlock4(_ p: QS8GEMMArguments, _ r0: Int) {
    qs8Blocks(p, r0, minInt(4, qs8TileRows), p.endBlock &- 1, p.endBlock, 1)
}
@inline(never) func qs8HalfBlock5(_ p: QS8GEMMArguments, _ r0: Int) {
    qs8Blocks(p, r0, minInt(5, qs8TileRows), p.endBlock &- 1, p.endBlock, 1)
}
@inline(never) func qs8HalfBlock6(_ p: QS8GEMMArguments, _ r0: Int) {
    qs8Blocks(p, r0, minInt(6, qs8TileRows), p.endBlock &- 1, p.endBlock, 1)
}
@inline(never) func qs8HalfBlock7(_ p: QS8GEMMArguments, _ r0: Int) {
    qs8Blocks(p, r0, minInt(7, qs8TileRows), p.endBlock &- 1, p.endBlock, 1)
}
@inline(never) func qs8HalfBlock8(_ p: QS8GEMMArguments, _ r0: Int) {
    qs8Blocks(p, r0, minInt(8, qs8TileRows), p.endBlock &- 1, p.endBlock, 1)
}

/// Blocks `first..<end` of columns, `nv` vectors of each (constants at each call).
@_transparent func qs8Blocks(_ p: QS8GEMMArguments, _ r0: Int, _ mr: Int, _ first: Int, _ end: Int, _ nv: Int) {
    let V = qs8VectorColumns, nr = qs8TileVectors &* V
    let w = p.weights, groups = p.k / 4
    let a0 = p.a + r0 &* p.lda
    let a1 = mr > 1 ? a0 + p.lda : a0
    let a2 = mr > 2 ? a1 + p.lda : a1
    let a3 = mr > 3 ? a2 + p.lda : a2
    let a4 = mr > 4 ? a3 + p.lda : a3
    let a5 = mr > 5 ? a4 + p.lda : a4
    let a6 = mr > 6 ? a5 + p.lda : a5
    let a7 = mr > 7 ? a6 + p.lda : a6
    let q = p.output
    let lo = QFloats(repeating: Float(q.min &- q.zeroPoint)), hi = QFloats(repeating: Float(q.max &- q.zeroPoint))
    let zp = QSums(repeating: q.zeroPoint)
    for block in first..<end {
        let bias = UnsafeRawPointer(w.bias(block))
        let b0 = qs8Begin(bias.loadUnaligned(as: QSums.self))
        let b1 = nv > 1 ? qs8Begin(bias.loadUnaligned(fromByteOffset: V &* 4, as: QSums.self)) : b0
        var x0 = b0, y0 = b1, x1 = b0, y1 = b1, x2 = b0, y2 = b1, x3 = b0, y3 = b1
        var x4 = b0, y4 = b1, x5 = b0, y5 = b1, x6 = b0, y6 = b1, x7 = b0, y7 = b1
        var wk = w.weights(block)
        var i = 0
        for _ in 0..<groups {
            let u = qs8LoadWeights(wk), v = nv > 1 ? qs8LoadWeights(wk + V &* 4) : u
            qs8Step(&x0, &y0, a0 + i, u, v, nv)
            if mr > 1 { qs8Step(&x1, &y1, a1 + i, u, v, nv) }
            if mr > 2 { qs8Step(&x2, &y2, a2 + i, u, v, nv) }
            if mr > 3 { qs8Step(&x3, &y3, a3 + i, u, v, nv) }
            if mr > 4 { qs8Step(&x4, &y4, a4 + i, u, v, nv) }
            if mr > 5 { qs8Step(&x5, &y5, a5 + i, u, v, nv) }
            if mr > 6 { qs8Step(&x6, &y6, a6 + i, u, v, nv) }
            if mr > 7 { qs8Step(&x7, &y7, a7 + i, u, v, nv) }
            wk += nr &* 4
            i &+= 4
        }
        let scales = UnsafeRawPointer(w.scales(block))
        let s0 = scales.loadUnaligned(as: QFloats.self)
        let s1 = nv > 1 ? scales.loadUnaligned(fromByteOffset: V &* 4, as: QFloats.self) : s0
        let n0 = block &* nr, nc = minInt(nr, w.n &- n0)
        let c0 = p.c + (r0 &* p.ldc &+ n0)
        qs8Store(x0, y0, bias, s0, s1, lo, hi, zp, c0, nc)
        if mr > 1 { qs8Store(x1, y1, bias, s0, s1, lo, hi, zp, c0 + p.ldc, nc) }
        if mr > 2 { qs8Store(x2, y2, bias, s0, s1, lo, hi, zp, c0 + 2 &* p.ldc, nc) }
        if mr > 3 { qs8Store(x3, y3, bias, s0, s1, lo, hi, zp, c0 + 3 &* p.ldc, nc) }
        if mr > 4 { qs8Store(x4, y4, bias, s0, s1, lo, hi, zp, c0 + 4 &* p.ldc, nc) }
        if mr > 5 { qs8Store(x5, y5, bias, s0, s1, lo, hi, zp, c0 + 5 &* p.ldc, nc) }
        if mr > 6 { qs8Store(x6, y6, bias, s0, s1, lo, hi, zp, c0 + 6 &* p.ldc, nc) }
        if mr > 7 { qs8Store(x7, y7, bias, s0, s1, lo, hi, zp, c0 + 7 &* p.ldc, nc) }
    }
}

/// One row's group of four k: its bytes broadcast into the group's one or two vectors of weights.
@_transparent func qs8Step(_ x: inout QAcc, _ y: inout QAcc, _ a: UnsafePointer<Int8>, _ u: QWeights, _ v: QWeights,
                           _ nv: Int) {
    let s = qs8Broadcast(a)
    x = qs8Dot(x, s, u)
    if nv > 1 { y = qs8Dot(y, s, v) }
}

/// One row's sums requantized and stored: `nc` columns of the tile's one or two vectors.
@_transparent func qs8Store(_ x: QAcc, _ y: QAcc, _ bias: UnsafeRawPointer, _ s0: QFloats, _ s1: QFloats,
                            _ lo: QFloats, _ hi: QFloats, _ zp: QSums, _ c: UnsafeMutablePointer<Int8>, _ nc: Int) {
    let V = qs8VectorColumns
    let first = qs8Requantize(qs8Sums(x, bias.loadUnaligned(as: QSums.self)), s0, lo, hi, zp)
    if nc >= V {
        UnsafeMutableRawPointer(c).storeBytes(of: first, as: QBytes.self)
    } else {
        for j in 0..<nc { c[j] = first[j] }
        return
    }
    guard nc > V else { return }
    let second = qs8Requantize(qs8Sums(y, bias.loadUnaligned(fromByteOffset: V &* 4, as: QSums.self)), s1, lo, hi,
                               zp)
    if nc == 2 &* V {
        UnsafeMutableRawPointer(c + V).storeBytes(of: second, as: QBytes.self)
    } else {
        for j in 0..<(nc &- V) { c[V &+ j] = second[j] }
    }
}

/// XNNPACK's fp32 requantization of a vector of sums: the clamp in float (its bounds are whole numbers, so clamping
/// before rounding equals clamping after), rounded to nearest even by adding 1.5 * 2^23 (the magic-bias form of
/// XNNPACK's `fmagic` kernels: the sum's rounding is the conversion's, for any value below 2^22), the zero point,
/// one byte per lane. The conversions are single instructions (TasksVisionVectorFMA), the clamp lane loops that
/// LLVM turns into `vmaxps` and `vminps`.
@_transparent func qs8Requantize(_ sums: QSums, _ scale: QFloats, _ lo: QFloats, _ hi: QFloats,
                                 _ zp: QSums) -> QBytes {
    let x = convertToFloat(sums) * scale
    var low = QFloats()
    for i in 0..<QFloats.scalarCount { low[i] = x[i] < lo[i] ? lo[i] : x[i] }
    var f = QFloats()
    for i in 0..<QFloats.scalarCount { f[i] = low[i] > hi[i] ? hi[i] : low[i] }
    let magic = QFloats(repeating: 12_582_912)
    let biased = unsafeBitCast(f + magic, to: QSums.self)
    return narrowToBytes(biased &- QSums(repeating: Int32(bitPattern: 0x4B40_0000)) &+ zp)
}
