// Lane-wise clamp and PReLU for every kernel set's `Vec` (written lane by lane: LLVM makes
// them single max/min and masked-multiply instructions).

/// `min(hi, max(lo, v))` lane by lane, as XNNPACK's minmax clamp (`max(vmin, v)`, then `min(vmax, v)`).
@_transparent func clamp(_ v: Vec, _ lo: Vec, _ hi: Vec) -> Vec {
    var r = Vec()
    for i in 0..<Vec.scalarCount {
        let x = lo[i] > v[i] ? lo[i] : v[i]
        r[i] = hi[i] < x ? hi[i] : x
    }
    return r
}

/// `v < 0 ? v * a : v` lane by lane.
@_transparent func prelu(_ v: Vec, _ a: Vec) -> Vec {
    var r = Vec()
    for i in 0..<Vec.scalarCount { r[i] = v[i] < 0 ? v[i] * a[i] : v[i] }
    return r
}
