import TasksVisionKernels

// Bilinear resize, one output row per call (XNNPACK's ibilinear over its indirection buffer):
// per output pixel and block of one vector of channels, the four neighbours weighed with the
// set's `lerp` (x86: a product and a sum, each rounded, as XNNPACK's SSE kernel; arm64: one
// fused multiply-add, as its neonfma kernel). A last partial block of channels is the block
// ending at the last channel (it overlaps the one before and writes the same values again); fewer
// channels than a vector go channel by channel. With `rowsFirst` (XNNPACK's arm64 NCHW kernel), the left and right
// columns are weighed between the rows first, then across.

public func f32ResizeRow(_ p: ResizeRowArguments) {
    let V = Vec.scalarCount, c = p.channels
    let ay = Vec(repeating: p.yFraction)
    for ox in 0..<p.outW {
        let lo = p.xLow[ox], hi = p.xHigh[ox], dx = p.xFraction[ox]
        let tl = p.top + lo, tr = p.top + hi, bl = p.bottom + lo, br = p.bottom + hi
        let out = p.output + ox &* c
        guard c >= V else {
            for ch in 0..<c {
                if p.rowsFirst {
                    let l = lerp(tl[ch], bl[ch] - tl[ch], p.yFraction), r = lerp(tr[ch], br[ch] - tr[ch], p.yFraction)
                    out[ch] = lerp(l, r - l, dx)
                } else {
                    let t = lerp(tl[ch], tr[ch] - tl[ch], dx), b = lerp(bl[ch], br[ch] - bl[ch], dx)
                    out[ch] = lerp(t, b - t, p.yFraction)
                }
            }
            continue
        }
        let ax = Vec(repeating: dx)
        var ch = 0
        while ch < c {
            let cb = ch &+ V <= c ? ch : c &- V
            let vtl = loadVec(tl + cb), vbl = loadVec(bl + cb)
            if p.rowsFirst {
                let vtr = loadVec(tr + cb)
                let l = lerp(vtl, vbl - vtl, ay), r = lerp(vtr, loadVec(br + cb) - vtr, ay)
                storeVec(lerp(l, r - l, ax), out + cb)
            } else {
                let t = lerp(vtl, loadVec(tr + cb) - vtl, ax), b = lerp(vbl, loadVec(br + cb) - vbl, ax)
                storeVec(lerp(t, b - t, ay), out + cb)
            }
            ch &+= V
        }
    }
}
