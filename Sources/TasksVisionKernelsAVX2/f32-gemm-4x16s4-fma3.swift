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

/// The product in XNNPACK's rotated-quads order (see above): tiles of up to 4 rows x 16 columns, as its kernel.
public func f32GEMMRotatedQuads(_ p: GEMMArguments) {
    var m0 = 0
    while m0 < p.m {
        switch p.m &- m0 {
        case 1: quadTiles(p, m0, 1)
        case 2: quadTiles(p, m0, 2)
        case 3: quadTiles(p, m0, 3)
        default: quadTiles(p, m0, 4)
        }
        m0 &+= 4
    }
}

/// Rows m0..<m0 + mr (a constant at each call) across every column block.
@inline(__always) private func quadTiles(_ p: GEMMArguments, _ m0: Int, _ mr: Int) {
    let nr = gemmRotatedQuadsNR, k = p.k
    let tap = PackedWeights.tap(k: k, tapLength: p.tapLength), padded = (tap &+ 3) / 4 &* 4
    let depth = 1 &+ (k / tap) &* padded
    let run = k / p.segments
    let clamps = p.lo > -.infinity || p.hi < .infinity
    let a0 = p.a + m0 &* p.lda
    let a1 = mr > 1 ? a0 + p.lda : a0, a2 = mr > 2 ? a1 + p.lda : a1, a3 = mr > 3 ? a2 + p.lda : a2
    var n0 = 0
    while n0 < p.n {
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
                    for step in 0..<4 {
                        let u = load(w + step &* nr), v = load(w + (step &* nr &+ 8))
                        quadStep(&x0, &y0, a0 + at, step, u, v)
                        if mr > 1 { quadStep(&x1, &y1, a1 + at, step, u, v) }
                        if mr > 2 { quadStep(&x2, &y2, a2 + at, step, u, v) }
                        if mr > 3 { quadStep(&x3, &y3, a3 + at, step, u, v) }
                    }
                    w += 4 &* nr
                    i &+= 4
                }
                if i < end {
                    let at = offset &+ i, count = end &- i
                    for step in 0..<4 {
                        let u = load(w + step &* nr), v = load(w + (step &* nr &+ 8))
                        shortStep(&x0, &y0, a0 + at, count, step, u, v)
                        if mr > 1 { shortStep(&x1, &y1, a1 + at, count, step, u, v) }
                        if mr > 2 { shortStep(&x2, &y2, a2 + at, count, step, u, v) }
                        if mr > 3 { shortStep(&x3, &y3, a3 + at, count, step, u, v) }
                    }
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

/// Step `step` of a whole group: lane l (of both halves) takes a[(l + step) mod 4].
@_transparent private func quadStep(_ x: inout Vec, _ y: inout Vec, _ a: UnsafePointer<Float>, _ step: Int,
                                    _ u: Vec, _ v: Vec) {
    let q = rotated(SIMD4(a[0], a[1], a[2], a[3]), step)
    x = madd(x, q, u)
    y = madd(y, q, v)
}

/// Step `step` of a tap's last group of `count` < 4 floats: the quad zero past them, and zero in each lane whose
/// weight is zero.
@_transparent private func shortStep(_ x: inout Vec, _ y: inout Vec, _ a: UnsafePointer<Float>, _ count: Int,
                                     _ step: Int, _ u: Vec, _ v: Vec) {
    let quad = SIMD4<Float>(a[0], count > 1 ? a[1] : 0, count > 2 ? a[2] : 0, 0)
    let q = rotated(quad, step)
    x = madd(x, q.replacing(with: 0, where: u .== 0), u)
    y = madd(y, q.replacing(with: 0, where: v .== 0), v)
}

/// The quad in both halves of a vector, rotated `step` lanes down: lane l holds quad[(l + step) mod 4].
@_transparent private func rotated(_ quad: SIMD4<Float>, _ step: Int) -> Vec {
    let r: SIMD4<Float>
    switch step {
    case 0: r = quad
    case 1: r = SIMD4(quad[1], quad[2], quad[3], quad[0])
    case 2: r = SIMD4(quad[2], quad[3], quad[0], quad[1])
    default: r = SIMD4(quad[3], quad[0], quad[1], quad[2])
    }
    return Vec(lowHalf: r, highHalf: r)
}

/// Row `row`'s outputs of the tile at column n0: a clamp alone in registers; a residual or PReLU output by output
/// (a residual read in place is read before its output is written).
@_transparent private func finish(_ x: Vec, _ y: Vec, _ p: GEMMArguments, _ row: Int, _ n0: Int, _ clamps: Bool) {
    let c = p.c + row &* p.ldc, nc = minInt(gemmRotatedQuadsNR, p.n &- n0)
    if p.residual == nil && p.alpha == nil {
        var x = x, y = y
        if clamps {
            let lo = Vec(repeating: p.lo), hi = Vec(repeating: p.hi)
            x = clamp(x, lo, hi)
            y = clamp(y, lo, hi)
        }
        if nc == 16 {
            storeVec(x, c + n0)
            storeVec(y, c + (n0 &+ 8))
        } else if nc > 8 {
            storeVec(x, c + n0)
            storeFirst(y, nc &- 8, c + (n0 &+ 8))
        } else {
            storeFirst(x, nc, c + n0)
        }
        return
    }
    for l in 0..<nc {
        let sum = l < 8 ? x[l] : y[l &- 8]
        c[n0 &+ l] = scalarEpilogue(sum, p, row: row, column: n0 &+ l, clamps: clamps)
    }
}

@_transparent private func load(_ p: UnsafePointer<Float>) -> Vec { loadVec(p) }
