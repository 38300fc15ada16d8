import TasksVisionKernels

// Max pooling, one output row per call, directly on NHWC. Per output pixel and block of one
// vector of channels, the window's taps inside the image are compared one by one from -inf
// (`x > m ? x : m`, one max instruction; a NaN input is passed over). The common full 2x2 window
// takes its four vectors without loops. A last partial block of channels is the block ending at
// the last channel (it overlaps the one before and writes the same values again); fewer channels
// than a vector go channel by channel.

@_transparent private func load(_ p: UnsafePointer<Float>) -> Vec {
    loadVec(p)
}
@_transparent private func store(_ v: Vec, _ p: UnsafeMutablePointer<Float>) {
    storeVec(v, p)
}
@_transparent private func larger(_ x: Vec, _ m: Vec) -> Vec {
    var r = Vec()
    for i in 0..<Vec.scalarCount { r[i] = x[i] > m[i] ? x[i] : m[i] }
    return r
}

public func f32MaxPoolRow(_ p: MaxPoolRowArguments) {
    let win = p.window
    let V = Vec.scalarCount, c = win.channels, rowStep = win.inW &* c
    let kyLo = maxInt(0, -win.iy0), kyHi = minInt(win.kH, win.inH &- win.iy0)
    for ox in 0..<p.outW {
        let ix0 = ox &* win.strideW &- win.padLeft
        let kxLo = maxInt(0, -ix0), kxHi = minInt(win.kW, win.inW &- ix0)
        let origin = win.input + (win.iy0 &* win.inW &+ ix0) &* c
        let out = p.output + ox &* c
        guard c >= V else {
            for ch in 0..<c {
                var m = -Float.infinity
                for ky in kyLo..<maxInt(kyLo, kyHi) {
                    for kx in kxLo..<maxInt(kxLo, kxHi) {
                        let x = origin[ky &* rowStep &+ kx &* c &+ ch]
                        m = x > m ? x : m
                    }
                }
                out[ch] = m
            }
            continue
        }
        if kyHi &- kyLo == 2 && kxHi &- kxLo == 2 {
            let a = origin + (kyLo &* rowStep &+ kxLo &* c), b = a + rowStep
            var ch = 0
            while ch < c {
                let cb = ch &+ V <= c ? ch : c &- V
                let top = larger(load(a + (c &+ cb)), larger(load(a + cb), Vec(repeating: -.infinity)))
                let m = larger(load(b + (c &+ cb)), larger(load(b + cb), top))
                store(m, out + cb)
                ch &+= V
            }
            continue
        }
        var ch = 0
        while ch < c {
            let cb = ch &+ V <= c ? ch : c &- V
            var m = Vec(repeating: -.infinity)
            for ky in kyLo..<maxInt(kyLo, kyHi) {
                for kx in kxLo..<maxInt(kxLo, kxHi) { m = larger(load(origin + (ky &* rowStep &+ kx &* c &+ cb)), m) }
            }
            store(m, out + cb)
            ch &+= V
        }
    }
}
