// The AVX2 + FMA3 kernel set: the templates in Sources/MicrokernelTemplates on 256-bit
// vectors. Package.swift builds this target with `-target-cpu haswell` on x86-64; nothing here
// runs unless the CPU has AVX2 and FMA (`KernelSet.avx2.isSupported`).
import TasksVisionVectorFMA
typealias Vec = SIMD8<Float>
/// `Vec.scalarCount` floats, aligned as one float (for `loadVec` and `storeVec`).
typealias VecFloats = (Float, Float, Float, Float, Float, Float, Float, Float)

/// `acc + x * w` rounded once: one fused multiply-add instruction on this set.
@_transparent func madd(_ acc: Vec, _ x: Vec, _ w: Vec) -> Vec { fusedMultiplyAdd(x, w, acc) }
@_transparent func madd(_ acc: Float, _ x: Float, _ w: Float) -> Float { acc.addingProduct(x, w) }
/// `madd` on four lanes, for layers with fewer channels than a vector.
@_transparent func madd4(_ acc: SIMD4<Float>, _ x: SIMD4<Float>, _ w: SIMD4<Float>) -> SIMD4<Float> {
    fusedMultiplyAdd(x, w, acc)
}

/// Rows of the two-vector GEMM tile: 12 accumulators, with the two weight vectors and a
/// broadcast, fit the set's 16 vector registers.
let wideTileRows = 6

/// Whether the two-vector GEMM tiles prefetch the next column block's weights into L2 as they go (the first row
/// tile of each block otherwise waits on L3 for them: layers of few rows and many weights, as 7x7 maps).
let gemmPrefetchesWeights = true

/// Interior pixels per depthwise group: 4 pixels x 2 vectors (each tap reads a whole cache line of every pixel),
/// not 8 x 1, whose 30 half-line streams per block ran 4-13% slower on Zen 2.
let depthwiseInteriorPixels = 4

/// `a + d * t` with the product and the sum each rounded (XNNPACK's SSE ibilinear kernel, which
/// its x86 configurations use on every CPU).
@_transparent func lerp(_ a: Vec, _ d: Vec, _ t: Vec) -> Vec { a + d * t }
@_transparent func lerp(_ a: Float, _ d: Float, _ t: Float) -> Float { a + d * t }

/// The depthwise windows, in taps, that sum in two chains (see the dwconv template): none, as XNNPACK's x86 kernels.
public let depthwiseTwoChainTaps: ClosedRange<Int>? = nil

/// Whether a convolution of one output channel sums its taps' channels in two chains (see the conv1oc template):
/// no, one chain, as XNNPACK's x86 IGEMM.
let oneChannelConvSumsInPairs = false

/// MAXIMUM and MINIMUM as XNNPACK's x86 kernels (`maxps`, `minps`: `a > b ? a : b`, the second operand when either
/// is NaN and of two zeros); the portable set too, as TFLite on the same processor.
@_transparent func maximum(_ a: Float, _ b: Float) -> Float { a > b ? a : b }
@_transparent func minimum(_ a: Float, _ b: Float) -> Float { a < b ? a : b }
