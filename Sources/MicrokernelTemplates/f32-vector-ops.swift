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

/// The vector at `p`, at any alignment. Every step is transparent (a tuple of floats read through
/// the pointer, then a bit cast: one unaligned vector load), so it is inlined even into the largest
/// kernels. The generic `loadUnaligned` is an ordinary call the optimizer may leave out of line
/// there, and did: every residual load of the GEMM tiles became a function call.
@_transparent func loadVec(_ p: UnsafePointer<Float>) -> Vec {
    unsafeBitCast(UnsafeRawPointer(p).assumingMemoryBound(to: VecFloats.self).pointee, to: Vec.self)
}

/// Stores `v` at `p`, at any alignment (one unaligned vector store; transparent, as `loadVec`).
@_transparent func storeVec(_ v: Vec, _ p: UnsafeMutablePointer<Float>) {
    UnsafeMutableRawPointer(p).assumingMemoryBound(to: VecFloats.self).pointee = unsafeBitCast(v, to: VecFloats.self)
}

/// `min` and `max` of two Ints, transparent for the same reason as `loadVec` (the generic
/// `Swift.min` stayed a call in the GEMM tiles, twice per tile).
@_transparent func minInt(_ a: Int, _ b: Int) -> Int { a < b ? a : b }
@_transparent func maxInt(_ a: Int, _ b: Int) -> Int { a > b ? a : b }
