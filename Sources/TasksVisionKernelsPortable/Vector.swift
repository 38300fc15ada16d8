// The portable kernel set's Swift kernels: the depthwise template in Sources/MicrokernelTemplates
// for any CPU, built for the baseline instruction set (on x86-64, SSE2 without FMA). XNNPACK's
// fused multiply-add is computed exactly without the instruction: the product of two floats is
// exact in Double, so the sum rounds once to float (it can differ only when the Double sum lands
// exactly halfway between two floats, one in 2^29 of inexact sums). Its GEMMs are OpenBLAS's.
typealias Vec = SIMD8<Float>
/// `Vec.scalarCount` floats, aligned as one float (for `loadVec` and `storeVec`).
typealias VecFloats = (Float, Float, Float, Float, Float, Float, Float, Float)

/// `acc + x * w` rounded once to float, through Double.
@_transparent func madd(_ acc: Vec, _ x: Vec, _ w: Vec) -> Vec {
    Vec(SIMD8<Double>(x) * SIMD8<Double>(w) + SIMD8<Double>(acc))
}
@_transparent func madd(_ acc: Float, _ x: Float, _ w: Float) -> Float { Float(Double(x) * Double(w) + Double(acc)) }
/// `madd` on four lanes, for layers with fewer channels than a vector.
@_transparent func madd4(_ acc: SIMD4<Float>, _ x: SIMD4<Float>, _ w: SIMD4<Float>) -> SIMD4<Float> {
    SIMD4<Float>(SIMD4<Double>(x) * SIMD4<Double>(w) + SIMD4<Double>(acc))
}

/// `a + d * t` with the product and the sum each rounded (XNNPACK's SSE ibilinear kernel, which
/// its x86 configurations use on every CPU).
@_transparent func lerp(_ a: Vec, _ d: Vec, _ t: Vec) -> Vec { a + d * t }
@_transparent func lerp(_ a: Float, _ d: Float, _ t: Float) -> Float { a + d * t }

/// Interior pixels per depthwise group: 8 pixels x 1 vector.
let depthwiseInteriorPixels = 8

/// The depthwise windows, in taps, that sum in two chains (see the dwconv template): none, as XNNPACK's x86 kernels.
public let depthwiseTwoChainTaps: ClosedRange<Int>? = nil

/// MAXIMUM and MINIMUM as XNNPACK's x86 kernels (`maxps`, `minps`: `a > b ? a : b`, the second operand when either
/// is NaN and of two zeros); the portable set too, as TFLite on the same processor.
@_transparent func maximum(_ a: Float, _ b: Float) -> Float { a > b ? a : b }
@_transparent func minimum(_ a: Float, _ b: Float) -> Float { a < b ? a : b }
