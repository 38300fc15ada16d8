import TasksVisionKernels
import TasksVisionVectorFMA

// GEMM tiles of `wideTileRows` rows x 2 vectors (the set's, 7 on AVX-512, 6 elsewhere) and 8 rows
// x 1 vector, XNNPACK's "broadcast" scheme: per k, the tile's weight vectors are loaded once and
// each row's a[k] broadcast into them, so every output is one fused multiply-add chain from its
// bias in k order. Rows past `m` alias the last real row (their sums are computed and stored
// again, with the same values), as XNNPACK's kernels do.

/// Columns per tile of `f32GEMM` (two vectors) and of `f32GEMMNarrow` (one vector, for
/// layers with few output channels, where two would mostly compute padding).
public let gemmNR = 2 * Vec.scalarCount
public let gemmNarrowNR = Vec.scalarCount
/// Rows per tile: the set's `wideTileRows` of two vectors (12 or 14 accumulators), eight of one
/// (8 accumulators: as many chains as cover the fused multiply-add's latency at two per cycle).
public let gemmMR = wideTileRows
public let gemmNarrowMR = 8

/// The whole product, weights packed for `gemmNR`. The columns go in panels whose packed
/// weights fit in L1 (`panelBytes`), each panel across all rows of a block of rows that fits in
/// L2 (`rowBlockBytes`), in tiles of `gemmMR`: a panel is read from memory once per row block,
/// and the block's rows of A from L2 for each panel.
public func f32GEMM(_ p: GEMMArguments) { drive(p, gemmNR, wide: true) }

/// The same with one-vector tiles; weights packed for `gemmNarrowNR`.
public func f32GEMMNarrow(_ p: GEMMArguments) { drive(p, gemmNarrowNR, wide: false) }

/// `count` tiles of `rows` rows from row `m0` (direct calls: a table of closures costs a thunk per call; one call
/// runs many tiles, so the set-up of row pointers and epilogue operands is paid once, not per tile).
@inline(__always) private func tiles(_ p: GEMMArguments, _ m0: Int, _ count: Int, _ start: Int, _ end: Int, rows: Int,
                                     wide: Bool) {
    switch (rows, wide) {
    case (1, true): gemm1(p, m0, count, start, end)
    case (2, true): gemm2(p, m0, count, start, end)
    case (3, true): gemm3(p, m0, count, start, end)
    case (4, true): gemm4(p, m0, count, start, end)
    case (5, true): gemm5(p, m0, count, start, end)
    case (6, true): gemm6(p, m0, count, start, end)
    case (_, true): gemm7(p, m0, count, start, end)
    case (1, false): narrow1(p, m0, count, start, end)
    case (2, false): narrow2(p, m0, count, start, end)
    case (3, false): narrow3(p, m0, count, start, end)
    case (4, false): narrow4(p, m0, count, start, end)
    case (5, false): narrow5(p, m0, count, start, end)
    case (6, false): narrow6(p, m0, count, start, end)
    case (7, false): narrow7(p, m0, count, start, end)
    case (_, false): narrow8(p, m0, count, start, end)
    }
}

/// Bytes of packed weights per column panel (half of a 48 KB L1, leaving room for rows of A).
let panelBytes = 24 * 1024
/// Bytes of rows of A per row block, a block of rows taken across every panel before the next: half of a 512 KB L2,
/// so a block's rows are read from memory once, not once per panel (14x14x1152 -> 192: 12 panels of a 900 KB A).
let rowBlockBytes = 256 * 1024

@inline(__always) private func drive(_ p: GEMMArguments, _ nr: Int, wide: Bool) {
    if p.m == 1 {
        singleRow(p, wide: wide)
        return
    }
    let blockBytes = (p.k &+ 1) &* nr &* 4
    let panel = maxInt(1, panelBytes / maxInt(blockBytes, 1)) &* nr
    let mr = wide ? gemmMR : gemmNarrowMR
    let blockRows = p.n > panel ? maxInt(mr, rowBlockBytes / maxInt(p.k &* 4, 1) / mr &* mr) : p.m
    var r0 = 0
    while r0 < p.m {
        let rows = minInt(blockRows, p.m &- r0)
        var start = 0
        while start < p.n {
            let end = minInt(p.n, start &+ panel)
            // Rows in tiles of as even a size as the tile count allows (49 rows: 5 to 6 per tile, not
            // eight of 6 and one of 1, whose single chain per column waits on each multiply-add).
            let tileCount = (rows &+ mr &- 1) / mr
            let base = rows / maxInt(tileCount, 1), longer = rows &- base &* tileCount
            if longer > 0 { tiles(p, r0, longer, start, end, rows: base &+ 1, wide: wide) }
            if tileCount > longer {
                tiles(p, r0 &+ longer &* (base &+ 1), tileCount &- longer, start, end, rows: base, wide: wide)
            }
            start = end
        }
        r0 &+= rows
    }
}

// One copy per row count and width, each with both constants, and within it one per tile mode (`plainTiles`):
// plain and residual tiles skip the general epilogue's tests per row, which cost as much as a short k loop.
@inline(never) private func gemm1(_ p: GEMMArguments, _ m0: Int, _ count: Int, _ start: Int, _ end: Int) {
    gemmRows(p, m0, count, 1, 2, start, end)
}
@inline(never) private func gemm2(_ p: GEMMArguments, _ m0: Int, _ count: Int, _ start: Int, _ end: Int) {
    gemmRows(p, m0, count, 2, 2, start, end)
}
@inline(never) private func gemm3(_ p: GEMMArguments, _ m0: Int, _ count: Int, _ start: Int, _ end: Int) {
    gemmRows(p, m0, count, 3, 2, start, end)
}
@inline(never) private func gemm4(_ p: GEMMArguments, _ m0: Int, _ count: Int, _ start: Int, _ end: Int) {
    gemmRows(p, m0, count, 4, 2, start, end)
}
@inline(never) private func gemm5(_ p: GEMMArguments, _ m0: Int, _ count: Int, _ start: Int, _ end: Int) {
    gemmRows(p, m0, count, 5, 2, start, end)
}
@inline(never) private func gemm6(_ p: GEMMArguments, _ m0: Int, _ count: Int, _ start: Int, _ end: Int) {
    gemmRows(p, m0, count, 6, 2, start, end)
}
@inline(never) private func gemm7(_ p: GEMMArguments, _ m0: Int, _ count: Int, _ start: Int, _ end: Int) {
    gemmRows(p, m0, count, 7, 2, start, end)
}
@inline(never) private func narrow1(_ p: GEMMArguments, _ m0: Int, _ count: Int, _ start: Int, _ end: Int) {
    gemmRows(p, m0, count, 1, 1, start, end)
}
@inline(never) private func narrow2(_ p: GEMMArguments, _ m0: Int, _ count: Int, _ start: Int, _ end: Int) {
    gemmRows(p, m0, count, 2, 1, start, end)
}
@inline(never) private func narrow3(_ p: GEMMArguments, _ m0: Int, _ count: Int, _ start: Int, _ end: Int) {
    gemmRows(p, m0, count, 3, 1, start, end)
}
@inline(never) private func narrow4(_ p: GEMMArguments, _ m0: Int, _ count: Int, _ start: Int, _ end: Int) {
    gemmRows(p, m0, count, 4, 1, start, end)
}
@inline(never) private func narrow5(_ p: GEMMArguments, _ m0: Int, _ count: Int, _ start: Int, _ end: Int) {
    gemmRows(p, m0, count, 5, 1, start, end)
}
@inline(never) private func narrow6(_ p: GEMMArguments, _ m0: Int, _ count: Int, _ start: Int, _ end: Int) {
    gemmRows(p, m0, count, 6, 1, start, end)
}
@inline(never) private func narrow7(_ p: GEMMArguments, _ m0: Int, _ count: Int, _ start: Int, _ end: Int) {
    gemmRows(p, m0, count, 7, 1, start, end)
}
@inline(never) private func narrow8(_ p: GEMMArguments, _ m0: Int, _ count: Int, _ start: Int, _ end: Int) {
    gemmRows(p, m0, count, 8, 1, start, end)
}

/// A single row (a fully connected layer on one input, a 1x1 output map). Its tiles would hold one chain per vector,
/// each fused multiply-add waiting on the one before; instead eight vectors of columns (four blocks of two, or
/// eight of one) go in one pass: eight independent chains, each still its output's chain from the bias in k order,
/// and eight streams of weights in flight. No panels: with one row nothing is read twice.
@inline(never) private func singleRow(_ p: GEMMArguments, wide: Bool) {
    let nr = wide ? gemmNR : gemmNarrowNR, group = wide ? 4 : 8
    let blocks = (p.n &+ nr &- 1) / nr
    var block = 0
    while block < blocks {
        let count = minInt(group, blocks &- block)
        switch (count, wide) {
        case (1, true): rowBlocks(p, block, 1, 2)
        case (2, true): rowBlocks(p, block, 2, 2)
        case (3, true): rowBlocks(p, block, 3, 2)
        case (_, true): rowBlocks(p, block, 4, 2)
        case (1, false): rowBlocks(p, block, 1, 1)
        case (2, false): rowBlocks(p, block, 2, 1)
        case (3, false): rowBlocks(p, block, 3, 1)
        case (4, false): rowBlocks(p, block, 4, 1)
        case (5, false): rowBlocks(p, block, 5, 1)
        case (6, false): rowBlocks(p, block, 6, 1)
        case (7, false): rowBlocks(p, block, 7, 1)
        case (_, false): rowBlocks(p, block, 8, 1)
        }
        block &+= count
    }
}

/// Row 0 across `count` column blocks of `nv` vectors from `first` (count x nv <= 8; constants at each call).
@_transparent private func rowBlocks(_ p: GEMMArguments, _ first: Int, _ count: Int, _ nv: Int) {
    let V = Vec.scalarCount, nr = nv &* V, k = p.k, bs = (k &+ 1) &* nr
    let lanes = count &* nv
    let segments = p.segments, length = k / segments
    // Accumulator j: vector j % nv of block j / nv, `o_j` floats into the blocks' packed weights.
    let o0 = 0, o1 = (1 / nv) &* bs &+ (1 % nv) &* V, o2 = (2 / nv) &* bs &+ (2 % nv) &* V
    let o3 = (3 / nv) &* bs &+ (3 % nv) &* V, o4 = (4 / nv) &* bs &+ (4 % nv) &* V
    let o5 = (5 / nv) &* bs &+ (5 % nv) &* V, o6 = (6 / nv) &* bs &+ (6 % nv) &* V
    let o7 = (7 / nv) &* bs &+ (7 % nv) &* V
    let w = p.packed + first &* bs
    var x0 = load(w + o0), x1 = lanes > 1 ? load(w + o1) : Vec(), x2 = lanes > 2 ? load(w + o2) : Vec()
    var x3 = lanes > 3 ? load(w + o3) : Vec(), x4 = lanes > 4 ? load(w + o4) : Vec()
    var x5 = lanes > 5 ? load(w + o5) : Vec(), x6 = lanes > 6 ? load(w + o6) : Vec()
    var x7 = lanes > 7 ? load(w + o7) : Vec()
    var wk = w + nr
    var base = 0
    for _ in 0..<segments {
        var i = base
        let stop = base &+ length
        while i < stop {
            let s = Vec(repeating: p.a[i])
            x0 = madd(x0, s, load(wk + o0))
            if lanes > 1 { x1 = madd(x1, s, load(wk + o1)) }
            if lanes > 2 { x2 = madd(x2, s, load(wk + o2)) }
            if lanes > 3 { x3 = madd(x3, s, load(wk + o3)) }
            if lanes > 4 { x4 = madd(x4, s, load(wk + o4)) }
            if lanes > 5 { x5 = madd(x5, s, load(wk + o5)) }
            if lanes > 6 { x6 = madd(x6, s, load(wk + o6)) }
            if lanes > 7 { x7 = madd(x7, s, load(wk + o7)) }
            wk += nr
            i &+= 1
        }
        base &+= p.segmentStride
    }
    var none = Vec()
    if nv > 1 {
        finishRowBlock(&x0, &x1, p, first, nr)
        if count > 1 { finishRowBlock(&x2, &x3, p, first &+ 1, nr) }
        if count > 2 { finishRowBlock(&x4, &x5, p, first &+ 2, nr) }
        if count > 3 { finishRowBlock(&x6, &x7, p, first &+ 3, nr) }
    } else {
        finishRowBlock(&x0, &none, p, first, nr)
        if count > 1 { finishRowBlock(&x1, &none, p, first &+ 1, nr) }
        if count > 2 { finishRowBlock(&x2, &none, p, first &+ 2, nr) }
        if count > 3 { finishRowBlock(&x3, &none, p, first &+ 3, nr) }
        if count > 4 { finishRowBlock(&x4, &none, p, first &+ 4, nr) }
        if count > 5 { finishRowBlock(&x5, &none, p, first &+ 5, nr) }
        if count > 6 { finishRowBlock(&x6, &none, p, first &+ 6, nr) }
        if count > 7 { finishRowBlock(&x7, &none, p, first &+ 7, nr) }
    }
}

/// Row 0's epilogue and store for column block `block`.
@_transparent private func finishRowBlock(_ x: inout Vec, _ y: inout Vec, _ p: GEMMArguments, _ block: Int, _ nr: Int) {
    let n0 = block &* nr, nc = minInt(nr, p.n &- n0)
    epilogue(&x, &y, p, 0, n0, nc, nr)
    storeRow(x, y, p.c + n0, nc, nr)
}

@_transparent private func load(_ p: UnsafePointer<Float>) -> Vec {
    loadVec(p)
}
@_transparent private func store(_ v: Vec, _ p: UnsafeMutablePointer<Float>) {
    storeVec(v, p)
}

/// The copies of `gemmRows`: rows of A read straight (one segment) with at most a clamp after the sum; the same
/// with a residual added (a residual block's projection); anything else (segmented rows, PReLU).
private let plainTiles = 0, residualTiles = 1, generalTiles = 2

/// The copy of `gemmRows` for this product, chosen once per call.
@_transparent private func gemmRows(_ p: GEMMArguments, _ first: Int, _ count: Int, _ mr: Int, _ nv: Int, _ start: Int,
                                    _ end: Int) {
    if p.segments == 1 && p.alpha == nil {
        if p.residual == nil {
            gemmRows(p, first, count, mr, nv, start, end, mode: plainTiles)
        } else {
            gemmRows(p, first, count, mr, nv, start, end, mode: residualTiles)
        }
    } else {
        gemmRows(p, first, count, mr, nv, start, end, mode: generalTiles)
    }
}

/// `count` tiles of `mr` rows of `nv` vectors (constants at each call, so the unused code folds away) from row
/// `first`, across columns start..<end (`start` a multiple of the tile width). `mode`: see `plainTiles`.
/// Transparent: with `@inline(__always)` the second copy in each caller stayed one shared, unspecialized function
/// (the row count a run-time value on every residual layer).
@_transparent private func gemmRows(_ p: GEMMArguments, _ first: Int, _ count: Int, _ mr: Int, _ nv: Int,
                                    _ start: Int, _ end: Int, mode: Int) {
    let V = Vec.scalarCount, nr = nv &* V, k = p.k
    let straight = mode != generalTiles
    let segments = straight ? 1 : p.segments, length = straight ? k : k / p.segments
    let clamps = p.lo > -.infinity || p.hi < .infinity
    for t in 0..<count {
        let m0 = first &+ t &* mr
        let a0 = p.a + m0 &* p.lda
        let a1 = mr > 1 ? a0 + p.lda : a0
        let a2 = mr > 2 ? a1 + p.lda : a1
        let a3 = mr > 3 ? a2 + p.lda : a2
        let a4 = mr > 4 ? a3 + p.lda : a3
        let a5 = mr > 5 ? a4 + p.lda : a4
        let a6 = mr > 6 ? a5 + p.lda : a5
        let a7 = mr > 7 ? a6 + p.lda : a6
        var w = p.packed + (start / nr) &* (k &+ 1) &* nr
        let ahead = (k &+ 1) &* nr
        var n0 = start
        while n0 < end {
            let b0 = load(w), b1 = nv > 1 ? load(w + V) : Vec()
            var x0 = b0, y0 = b1, x1 = b0, y1 = b1, x2 = b0, y2 = b1
            var x3 = b0, y3 = b1, x4 = b0, y4 = b1, x5 = b0, y5 = b1, x6 = b0, y6 = b1, x7 = b0, y7 = b1
            var wk = w + nr
            // k in order: the segments of each row one after the other (one, for a plain row).
            var base = 0
            for _ in 0..<segments {
                var i = base
                let stop = base &+ length
                while i < stop {
                    let u = load(wk), v = nv > 1 ? load(wk + V) : Vec()
                    if nv > 1 && gemmPrefetchesWeights {
                        // The next column block's row k, one block (a few KB) ahead: the first tile to reach a
                        // block finds it in L2, not in L3 or memory. Narrow tiles, with eight loads per vector of
                        // weights already, and small blocks gain nothing from it.
                        prefetchToL2(wk + ahead)
                        if nr &* 4 > 64 { prefetchToL2(wk + (ahead &+ 16)) }
                    }
                    step(&x0, &y0, a0, i, u, v, nv)
                    if mr > 1 { step(&x1, &y1, a1, i, u, v, nv) }
                    if mr > 2 { step(&x2, &y2, a2, i, u, v, nv) }
                    if mr > 3 { step(&x3, &y3, a3, i, u, v, nv) }
                    if mr > 4 { step(&x4, &y4, a4, i, u, v, nv) }
                    if mr > 5 { step(&x5, &y5, a5, i, u, v, nv) }
                    if mr > 6 { step(&x6, &y6, a6, i, u, v, nv) }
                    if mr > 7 { step(&x7, &y7, a7, i, u, v, nv) }
                    wk += nr
                    i &+= 1
                }
                base &+= p.segmentStride
            }
            let nc = minInt(nr, end &- n0)
            let c0 = p.c + (m0 &* p.ldc &+ n0)
            // Every row's epilogue before any store, so a residual read in place is read whole.
            if mode == residualTiles, let residual = p.residual {
                // The tile's residual columns, the same for every row (tested once per tile, not per row).
                let r0 = residual + (m0 &* p.residualStride &+ n0), rs = p.residualStride
                let have = minInt(nc, p.residualChannels &- n0)
                addResidual(&x0, &y0, r0, have, nr)
                if mr > 1 { addResidual(&x1, &y1, r0 + rs, have, nr) }
                if mr > 2 { addResidual(&x2, &y2, r0 + 2 &* rs, have, nr) }
                if mr > 3 { addResidual(&x3, &y3, r0 + 3 &* rs, have, nr) }
                if mr > 4 { addResidual(&x4, &y4, r0 + 4 &* rs, have, nr) }
                if mr > 5 { addResidual(&x5, &y5, r0 + 5 &* rs, have, nr) }
                if mr > 6 { addResidual(&x6, &y6, r0 + 6 &* rs, have, nr) }
                if mr > 7 { addResidual(&x7, &y7, r0 + 7 &* rs, have, nr) }
            }
            if mode != generalTiles || (p.residual == nil && p.alpha == nil) {
                // The common case, a clamp-type activation alone, stays in registers.
                if clamps {
                    let lo = Vec(repeating: p.lo), hi = Vec(repeating: p.hi)
                    x0 = clamp(x0, lo, hi); x1 = clamp(x1, lo, hi); x2 = clamp(x2, lo, hi)
                    x3 = clamp(x3, lo, hi); x4 = clamp(x4, lo, hi); x5 = clamp(x5, lo, hi)
                    x6 = clamp(x6, lo, hi); x7 = clamp(x7, lo, hi)
                    if nv > 1 {
                        y0 = clamp(y0, lo, hi); y1 = clamp(y1, lo, hi); y2 = clamp(y2, lo, hi)
                        y3 = clamp(y3, lo, hi); y4 = clamp(y4, lo, hi); y5 = clamp(y5, lo, hi)
                        y6 = clamp(y6, lo, hi); y7 = clamp(y7, lo, hi)
                    }
                }
            } else {
                epilogue(&x0, &y0, p, m0, n0, nc, nr)
                if mr > 1 { epilogue(&x1, &y1, p, m0 &+ 1, n0, nc, nr) }
                if mr > 2 { epilogue(&x2, &y2, p, m0 &+ 2, n0, nc, nr) }
                if mr > 3 { epilogue(&x3, &y3, p, m0 &+ 3, n0, nc, nr) }
                if mr > 4 { epilogue(&x4, &y4, p, m0 &+ 4, n0, nc, nr) }
                if mr > 5 { epilogue(&x5, &y5, p, m0 &+ 5, n0, nc, nr) }
                if mr > 6 { epilogue(&x6, &y6, p, m0 &+ 6, n0, nc, nr) }
                if mr > 7 { epilogue(&x7, &y7, p, m0 &+ 7, n0, nc, nr) }
            }
            storeRow(x0, y0, c0, nc, nr)
            if mr > 1 { storeRow(x1, y1, c0 + p.ldc, nc, nr) }
            if mr > 2 { storeRow(x2, y2, c0 + 2 &* p.ldc, nc, nr) }
            if mr > 3 { storeRow(x3, y3, c0 + 3 &* p.ldc, nc, nr) }
            if mr > 4 { storeRow(x4, y4, c0 + 4 &* p.ldc, nc, nr) }
            if mr > 5 { storeRow(x5, y5, c0 + 5 &* p.ldc, nc, nr) }
            if mr > 6 { storeRow(x6, y6, c0 + 6 &* p.ldc, nc, nr) }
            if mr > 7 { storeRow(x7, y7, c0 + 7 &* p.ldc, nc, nr) }
            w += (k &+ 1) &* nr
            n0 &+= nr
        }
    }
}

/// One k step of one row: `a[i]` broadcast into the step's weight vectors `u` (and `v`, with two).
@_transparent private func step(_ x: inout Vec, _ y: inout Vec, _ a: UnsafePointer<Float>, _ i: Int, _ u: Vec, _ v: Vec,
                                _ nv: Int) {
    let s = Vec(repeating: a[i])
    x = madd(x, s, u)
    if nv > 1 { y = madd(y, s, v) }
}

/// Residual, clamp, PReLU on one row's two vectors (columns n0..<n0 + nc), in registers.
@_transparent private func epilogue(_ x: inout Vec, _ y: inout Vec, _ p: GEMMArguments, _ row: Int, _ n0: Int,
                                    _ nc: Int, _ nr: Int) {
    let V = Vec.scalarCount
    if let residual = p.residual {
        addResidual(&x, &y, residual + (row &* p.residualStride &+ n0), minInt(nc, p.residualChannels &- n0), nr)
    }
    if p.lo > -.infinity || p.hi < .infinity {
        let lo = Vec(repeating: p.lo), hi = Vec(repeating: p.hi)
        x = clamp(x, lo, hi); y = clamp(y, lo, hi)
    }
    if let alpha = p.alpha {
        let a = alpha + n0
        var ax = Vec(), ay = Vec()
        if nc == nr {
            ax = load(a)
            if nr > V { ay = load(a + V) }
        } else {
            if nc >= V { ax = load(a); ay = loadFirst(nc &- V, a + V) } else { ax = loadFirst(nc, a) }
        }
        x = prelu(x, ax); y = prelu(y, ay)
    }
}

/// The residual's first `have` columns of a row (from `r`) added to its one or two vectors: whole vectors loaded,
/// lanes only for a last partial one.
@_transparent private func addResidual(_ x: inout Vec, _ y: inout Vec, _ r: UnsafePointer<Float>, _ have: Int,
                                       _ nr: Int) {
    let V = Vec.scalarCount
    if have >= nr {
        x = x + load(r)
        if nr > V { y = y + load(r + V) }
    } else if have >= V {
        x = x + load(r)
        y = y + loadFirst(have &- V, r + V)
    } else if have > 0 {
        x = x + loadFirst(have, r)
    }
}

@_transparent private func storeRow(_ x: Vec, _ y: Vec, _ c: UnsafeMutablePointer<Float>, _ nc: Int, _ nr: Int) {
    let V = Vec.scalarCount
    if nc == nr {
        store(x, c)
        if nr > V { store(y, c + V) }
    } else if nc >= V {
        store(x, c)
        storeFirst(y, nc &- V, c + V)
    } else {
        storeFirst(x, nc, c)
    }
}
