// LOGISTIC as XNNPACK's `xnn_f32_vsigmoid_ukernel__avx2_rr1_p5_div_u8` computes it (the kernel its x86 configs pick
// on a CPU with AVX2 and FMA but not AVX-512F): z = -|x|, exp(z) = 2^n (1 + t p(t)) with n from a magic-bias
// rounding and t = z - n ln 2 in one step, p of degree 5 by Horner's rule, f = e / (e + 1), zero below the
// denormal cutoff, and 1 - f for x with the sign bit clear. Each fused multiply-add below is one instruction there,
// every other operation one rounding; lanes are independent, so the tail (fewer than 8 floats, loaded into a
// zeroed vector) gives the same values as whole vectors.
import TasksVisionVectorFMA

/// The sigmoid of `count` floats from `input` into `output` (which may be `input`).
public func f32SigmoidRR1P5(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, _ count: Int) {
    var i = 0
    while i &+ 16 <= count {
        let a = sigmoidRR1P5(loadVec(input + i)), b = sigmoidRR1P5(loadVec(input + (i &+ 8)))
        storeVec(a, output + i)
        storeVec(b, output + (i &+ 8))
        i &+= 16
    }
    while i &+ 8 <= count {
        storeVec(sigmoidRR1P5(loadVec(input + i)), output + i)
        i &+= 8
    }
    if i < count { storeFirst(sigmoidRR1P5(loadFirst(count &- i, input + i)), count &- i, output + i) }
}

@_transparent private func sigmoidRR1P5(_ x: SIMD8<Float>) -> SIMD8<Float> {
    let magicBias = SIMD8<Float>(repeating: 0x1.8000FEp23), log2e = SIMD8<Float>(repeating: 0x1.715476p0)
    let minusLn2 = SIMD8<Float>(repeating: -0x1.62E430p-1)
    let c5 = SIMD8<Float>(repeating: 0x1.0F9F9Cp-7), c4 = SIMD8<Float>(repeating: 0x1.573A1Ap-5)
    let c3 = SIMD8<Float>(repeating: 0x1.555A80p-3), c2 = SIMD8<Float>(repeating: 0x1.FFFDC6p-2)
    let c1 = SIMD8<Float>(repeating: 0x1.FFFFF6p-1), one = SIMD8<Float>(repeating: 1)
    let cutoff = SIMD8<Float>(repeating: -0x1.5D589Ep+6)
    let z = unsafeBitCast(unsafeBitCast(x, to: SIMD8<UInt32>.self) | 0x8000_0000, to: SIMD8<Float>.self)
    var n = fusedMultiplyAdd(z, log2e, magicBias)
    let s = unsafeBitCast(unsafeBitCast(n, to: SIMD8<UInt32>.self) &<< 23, to: SIMD8<Float>.self)
    n = n - magicBias
    var t = fusedMultiplyAdd(n, minusLn2, z)
    var p = fusedMultiplyAdd(c5, t, c4)
    p = fusedMultiplyAdd(p, t, c3)
    p = fusedMultiplyAdd(p, t, c2)
    p = fusedMultiplyAdd(p, t, c1)
    t = t * s
    let e = fusedMultiplyAdd(t, p, s)
    var f = e / (e + one)
    f.replace(with: 0, where: z .< cutoff)
    // f where x's sign bit is set: `x < 0` but for -0 and NaNs, whose results are the same either way.
    return (one - f).replacing(with: f, where: x .< 0)
}
