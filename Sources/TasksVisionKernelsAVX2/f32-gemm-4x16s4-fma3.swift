import TasksVisionKernels
import TasksVisionVectorFMA

// XNNPACK's x86 GEMM and IGEMM on the first Zen (`f32-gemm-4x16s4-minmax-fma3-broadcast`, its 1x16s4 and IGEMM
// twins, which `gemm-config.c` picks for cpuinfo's `zen`, `CPUFeatures.gemmSumsRotatedQuads`). Each group of four
// k is loaded as one quad into both halves of a vector and rotated one lane after each of its four multiply-adds:
// column n sums the group from k = n mod 4, wrapping round. Still one fused multiply-add chain per output from its
// bias, in that order. In a KxK convolution the groups restart at each tap (the IGEMM walks the window tap by tap).
// A tap's last group, short of four, is padded: its missing weights are zero, and A is zero in each lane whose
// weight is zero (XNNPACK masks what it reads past the tap so), so those steps add +0.

/// Columns per tile of `f32GEMMRotatedQuads`; weights packed by `PackedWeights(rotatedQuadsOf:...)` for it.
public let gemmRotatedQuadsNR = 16

/// The product in XNNPACK's rotated-quads order (see above): tiles of up to 4 rows x 16 columns, as its kernel, the
/// columns in panels whose packed weights fit in L1 (`panelBytes`), each panel across all the rows.
public func f32GEMMRotatedQuads(_ p: GEMMArguments) {
    let nr = gemmRotatedQuadsNR
    let tap = PackedWeights.tap(k: p.k, tapLength: p.tapLength)
    let blockBytes = (1 &+ (p.k / tap) &* ((tap &+ 3) / 4 &* 4)) &* nr &* 4
    let panel = maxInt(1, panelBytes / maxInt(blockBytes, 1)) &* nr
    var start = 0
    while start < p.n {
        let end = minInt(p.n, start &+ panel)
        var m0 = 0
        while m0 < p.m {
            switch p.m &- m0 {
            case 1: quadTiles1(p, m0, start, end)
            case 2: quadTiles2(p, m0, start, end)
            case 3: quadTiles3(p, m0, start, end)
            default: quadTiles4(p, m0, start, end)
            }
            m0 &+= 4
        }
        start = end
    }
}

// One copy per row count (the template's `gemm1`...`gemm7` do the same), each with its constant.
@inline(never) private func quadTiles1(_ p: GEMMArguments, _ m0: Int, _ start: Int, _ end: Int) {
    quadTiles(p, m0, 1, start, end)
}
@inline(never) private func quadTiles2(_ p: GEMMArguments, _ m0: Int, _ start: Int, _ end: Int) {
    quadTiles(p, m0, 2, start, end)
}
@inline(never) private func quadTiles3(_ p: GEMMArguments, _ m0: Int, _ start: Int, _ end: Int) {
    quadTiles(p, m0, 3, start, end)
}
@inline(never) private func quadTiles4(_ p: GEMMArguments, _ m0: Int, _ start: Int, _ end: Int) {
    quadTiles(p, m0, 4, start, end)
}

/// Rows m0..<m0 + mr (a constant at each call) across the column blocks from `start` to `end`. Transparent, so
/// that each copy above folds its constant (with `@inline(__always)` the copies stayed one function).
@_transparent private func quadTiles(_ p: GEMMArguments, _ m0: Int, _ mr: Int, _ start: Int, _ end: Int) {
    let nr = gemmRotatedQuadsNR, k = p.k
    let tap = PackedWeights.tap(k: k, tapLength: p.tapLength), padded = (tap &+ 3) / 4 &* 4
    let depth = 1 &+ (k / tap) &* padded
    let run = k / p.segments
    let clamps = p.lo > -.infinity || p.hi < .infinity
    let a0 = p.a + m0 &* p.lda
    let a1 = mr > 1 ? a0 + p.lda : a0, a2 = mr > 2 ? a1 + p.lda : a1, a3 = mr > 3 ? a2 + p.lda : a2
    var n0 = start
    while n0 < end {
        let column = p.packed + (n0 / nr) &* depth &* nr
        var x0 = load(column), y0 = load(column + 8)
        var x1 = x0, y1 = y0, x2 = x0, y2 = y0, x3 = x0, y3 = y0
        var w = column + nr
        for s in 0..<p.segments {
            let offset = s &* p.segmentStride
            var t0 = 0
            while t0 &+ tap <= run {
                var i = t0
                let end = t0 &+ tap
                while i &+ 4 <= end {
                    let at = offset &+ i
                    quadGroup(&x0, &y0, &x1, &y1, &x2, &y2, &x3, &y3, quad(a0 + at), mr > 1 ? quad(a1 + at) : Vec(),
                              mr > 2 ? quad(a2 + at) : Vec(), mr > 3 ? quad(a3 + at) : Vec(), w, mr, masked: false)
                    w += 4 &* nr
                    i &+= 4
                }
                if i < end {
                    let at = offset &+ i, count = end &- i
                    quadGroup(&x0, &y0, &x1, &y1, &x2, &y2, &x3, &y3, shortQuad(a0 + at, count),
                              mr > 1 ? shortQuad(a1 + at, count) : Vec(), mr > 2 ? shortQuad(a2 + at, count) : Vec(),
                              mr > 3 ? shortQuad(a3 + at, count) : Vec(), w, mr, masked: true)
                    w += 4 &* nr
                }
                t0 = end
            }
        }
        finish(x0, y0, p, m0, n0, clamps)
        if mr > 1 { finish(x1, y1, p, m0 &+ 1, n0, clamps) }
        if mr > 2 { finish(x2, y2, p, m0 &+ 2, n0, clamps) }
        if mr > 3 { finish(x3, y3, p, m0 &+ 3, n0, clamps) }
        n0 &+= nr
    }
}

/// A group of four k on every row: row r's quad `q_r` times the group's four steps of weights from `w`, the quads
/// rotated one lane down after each step (XNNPACK's vpermilps).
@_transparent private func quadGroup(_ x0: inout Vec, _ y0: inout Vec, _ x1: inout Vec, _ y1: inout Vec,
                                     _ x2: inout Vec, _ y2: inout Vec, _ x3: inout Vec, _ y3: inout Vec,
                                     _ q0: Vec, _ q1: Vec, _ q2: Vec, _ q3: Vec, _ w: UnsafePointer<Float>, _ mr: Int,
                                     masked: Bool) {
    var q0 = q0, q1 = q1, q2 = q2, q3 = q3
    for step in 0..<4 {
        if step > 0 { q0 = rotate(q0); q1 = rotate(q1); q2 = rotate(q2); q3 = rotate(q3) }
        quadStep(&x0, &y0, &x1, &y1, &x2, &y2, &x3, &y3, q0, q1, q2, q3, w + step &* gemmRotatedQuadsNR, mr,
                 masked: masked)
    }
}

/// One step of a group on every row: row r's rotated quad `q_r` times the step's two weight vectors at `w`.
/// `masked` (a tap's last, short group): each quad zero in the lanes whose weight is zero.
@_transparent private func quadStep(_ x0: inout Vec, _ y0: inout Vec, _ x1: inout Vec, _ y1: inout Vec,
                                    _ x2: inout Vec, _ y2: inout Vec, _ x3: inout Vec, _ y3: inout Vec,
                                    _ q0: Vec, _ q1: Vec, _ q2: Vec, _ q3: Vec, _ w: UnsafePointer<Float>, _ mr: Int,
                                    masked: Bool) {
    let u = load(w), v = load(w + 8)
    if masked {
        let zu = u .== 0, zv = v .== 0
        x0 = madd(x0, q0.replacing(with: 0, where: zu), u); y0 = madd(y0, q0.replacing(with: 0, where: zv), v)
        if mr > 1 {
            x1 = madd(x1, q1.replacing(with: 0, where: zu), u); y1 = madd(y1, q1.replacing(with: 0, where: zv), v)
        }
        if mr > 2 {
            x2 = madd(x2, q2.replacing(with: 0, where: zu), u); y2 = madd(y2, q2.replacing(with: 0, where: zv), v)
        }
        if mr > 3 {
            x3 = madd(x3, q3.replacing(with: 0, where: zu), u); y3 = madd(y3, q3.replacing(with: 0, where: zv), v)
        }
        return
    }
    x0 = madd(x0, q0, u); y0 = madd(y0, q0, v)
    if mr > 1 { x1 = madd(x1, q1, u); y1 = madd(y1, q1, v) }
    if mr > 2 { x2 = madd(x2, q2, u); y2 = madd(y2, q2, v) }
    if mr > 3 { x3 = madd(x3, q3, u); y3 = madd(y3, q3, v) }
}

/// The four floats at `a` in both halves of a vector.
@_transparent private func quad(_ a: UnsafePointer<Float>) -> Vec {
    let q = unsafeBitCast(UnsafeRawPointer(a).assumingMemoryBound(to: (Float, Float, Float, Float).self).pointee,
                          to: SIMD4<Float>.self)
    return Vec(lowHalf: q, highHalf: q)
}

/// Each half rotated one lane down: lane l takes lane (l + 1) mod 4 of its half.
@_transparent private func rotate(_ v: Vec) -> Vec { Vec(v[1], v[2], v[3], v[0], v[5], v[6], v[7], v[4]) }

/// A tap's last `count` < 4 floats at `a` as a quad in both halves of a vector, zero past them.
@_transparent private func shortQuad(_ a: UnsafePointer<Float>, _ count: Int) -> Vec {
    let q: SIMD4<Float>
    switch count {
    case 1: q = SIMD4(a[0], 0, 0, 0)
    case 2: q = SIMD4(a[0], a[1], 0, 0)
    default: q = SIMD4(a[0], a[1], a[2], 0)
    }
    return Vec(lowHalf: q, highHalf: q)
}

/// Row `row`'s outputs of the tile at column n0, their epilogue in registers as the other tiles' (residual, clamp,
/// PReLU). Only real rows are computed, so a residual read in place is read before its row is written.
@_transparent private func finish(_ x: Vec, _ y: Vec, _ p: GEMMArguments, _ row: Int, _ n0: Int, _ clamps: Bool) {
    let c = p.c + (row &* p.ldc &+ n0), nc = minInt(gemmRotatedQuadsNR, p.n &- n0)
    var x = x, y = y
    if let residual = p.residual {
        let have = minInt(nc, p.residualChannels &- n0), r = residual + (row &* p.residualStride &+ n0)
        if have >= 16 {
            x = x + load(r)
            y = y + load(r + 8)
        } else if have > 8 {
            x = x + load(r)
            y = y + loadFirst(have &- 8, r + 8)
        } else if have > 0 {
            x = x + loadFirst(have, r)
        }
    }
    if clamps {
        let lo = Vec(repeating: p.lo), hi = Vec(repeating: p.hi)
        x = clamp(x, lo, hi)
        y = clamp(y, lo, hi)
    }
    if let alpha = p.alpha {
        let a = alpha + n0
        x = prelu(x, nc >= 8 ? load(a) : loadFirst(nc, a))
        if nc > 8 { y = prelu(y, nc == 16 ? load(a + 8) : loadFirst(nc &- 8, a + 8)) }
    }
    if nc == 16 {
        storeVec(x, c)
        storeVec(y, c + 8)
    } else if nc > 8 {
        storeVec(x, c)
        storeFirst(y, nc &- 8, c + 8)
    } else {
        storeFirst(x, nc, c)
    }
}

@_transparent private func load(_ p: UnsafePointer<Float>) -> Vec { loadVec(p) }
