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

/// The depthwise windows, in taps, that sum in two chains (see the dwconv template): those XNNPACK's arm64 config
/// gives its 25-tap kernel, `f32-dwconv-25p8c-minmax-neonfma-acc2` (more than 9 taps, at most 25).
public let depthwiseTwoChainTaps: ClosedRange<Int>? = 10...25

/// Whether a convolution of one output channel sums its taps' channels in two chains (see the conv1oc template): yes,
/// as XNNPACK's arm64 IGEMM sums a KxK convolution of fewer than 8 output channels (measured on Neoverse V1 and N1).
let oneChannelConvSumsInPairs = true

/// MAXIMUM and MINIMUM as XNNPACK's arm64 kernels (`fmax`, `fmin`): NaN when either operand is (the first NaN),
/// and +0 the larger of two zeros, -0 the smaller.
@_transparent func maximum(_ a: Float, _ b: Float) -> Float {
    if a.isNaN || b.isNaN { return a.isNaN ? a : b }
    if a == b { return a.sign == .minus ? b : a }
    return a > b ? a : b
}
@_transparent func minimum(_ a: Float, _ b: Float) -> Float {
    if a.isNaN || b.isNaN { return a.isNaN ? a : b }
    if a == b { return a.sign == .minus ? a : b }
    return a < b ? a : b
}
