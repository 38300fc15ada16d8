// The arm64 kernel set: the templates in Sources/MicrokernelTemplates on 128-bit vectors.
// Advanced SIMD has fused multiply-add in arm64's baseline, so `madd` is one `fmla`
// without target flags. Selected only on arm64 (`KernelSet.neon.isSupported`).
import TasksVisionVectorFMA
typealias Vec = SIMD4<Float>
/// `Vec.scalarCount` floats, aligned as one float (for `loadVec` and `storeVec`).
typealias VecFloats = (Float, Float, Float, Float)

/// `acc + x * w` rounded once: one fused multiply-add instruction on this set.
@_transparent func madd(_ acc: Vec, _ x: Vec, _ w: Vec) -> Vec { fusedMultiplyAdd(x, w, acc) }
@_transparent func madd(_ acc: Float, _ x: Float, _ w: Float) -> Float { acc.addingProduct(x, w) }
/// `madd` on four lanes, for layers with fewer channels than a vector.
@_transparent func madd4(_ acc: SIMD4<Float>, _ x: SIMD4<Float>, _ w: SIMD4<Float>) -> SIMD4<Float> {
    fusedMultiplyAdd(x, w, acc)
}

/// Rows of the two-vector GEMM tile: 12 accumulators, with the two weight vectors and a
/// broadcast, fit the set's 32 vector registers.
let wideTileRows = 6

/// Whether the two-vector GEMM tiles prefetch the next column block's weights into L2 as they go: not here, where
/// it has not been measured.
let gemmPrefetchesWeights = false

/// Interior pixels per depthwise group: 8 pixels x 1 vector.
let depthwiseInteriorPixels = 8

/// `a + d * t` rounded once, as XNNPACK's neonfma ibilinear kernel (`vfmaq_f32`).
@_transparent func lerp(_ a: Vec, _ d: Vec, _ t: Vec) -> Vec { fusedMultiplyAdd(d, t, a) }
@_transparent func lerp(_ a: Float, _ d: Float, _ t: Float) -> Float { a.addingProduct(d, t) }

/// Lanes 0..<`count` of `v` stored at `p` (`count` < `Vec.scalarCount`), lane by lane: a tile's last columns, rare
/// on this set's narrow vectors (AVX-512 stores them with one masked store).
@_transparent func storeFirst(_ v: Vec, _ count: Int, _ p: UnsafeMutablePointer<Float>) {
    for j in 0..<count { p[j] = v[j] }
}
/// Floats 0..<`count` at `p` in lanes 0..<`count`, zeros in the others; nothing after them is read.
@_transparent func loadFirst(_ count: Int, _ p: UnsafePointer<Float>) -> Vec {
    var v = Vec()
    for j in 0..<count { v[j] = p[j] }
    return v
}
