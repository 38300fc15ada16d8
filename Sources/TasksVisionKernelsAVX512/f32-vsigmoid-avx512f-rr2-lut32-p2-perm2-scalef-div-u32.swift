// LOGISTIC as XNNPACK's `xnn_f32_vsigmoid_ukernel__avx512f_rr2_lut32_p2_perm2_scalef_div` computes it (the kernel
// its x86 configs pick on a CPU with AVX-512F): z = -|x|, n = z log2(e) rounded to 1/32 by a magic bias, the table's
// 2^frac(n) (a permute of two vectors by n's low 5 bits), t = z - n ln 2 in two steps, p = l + (t l)(c1 + t c2),
// e = p * 2^floor(n) (`vscalefps`), f = e / (e + 1), and 1 - f for x with the sign bit clear. Each fused
// multiply-add is one instruction there, every other operation one rounding. Here the table is read lane by lane
// and the scaling is one or two products by powers of two, rounded once as `vscalefps` rounds (see below). Lanes are
// independent, so the tail (fewer than 16 floats, a masked load) gives the same values as whole vectors.
import TasksVisionVectorFMA

/// The sigmoid of `count` floats from `input` into `output` (which may be `input`).
public func f32SigmoidRR2LUT32(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, _ count: Int) {
    var i = 0
    while i &+ 32 <= count {
        let a = sigmoidRR2LUT32(loadVec(input + i)), b = sigmoidRR2LUT32(loadVec(input + (i &+ 16)))
        storeVec(a, output + i)
        storeVec(b, output + (i &+ 16))
        i &+= 32
    }
    while i &+ 16 <= count {
        storeVec(sigmoidRR2LUT32(loadVec(input + i)), output + i)
        i &+= 16
    }
    if i < count { storeFirst(sigmoidRR2LUT32(loadFirst(count &- i, input + i)), count &- i, output + i) }
}

/// 2^(i / 32) for i in 0..<32, XNNPACK's table.
private let exp2Fractions: UnsafePointer<Float> = {
    let table: [Float] = [
        0x1.000000p+0, 0x1.059B0Ep+0, 0x1.0B5586p+0, 0x1.11301Ep+0, 0x1.172B84p+0, 0x1.1D4874p+0, 0x1.2387A6p+0,
        0x1.29E9E0p+0, 0x1.306FE0p+0, 0x1.371A74p+0, 0x1.3DEA64p+0, 0x1.44E086p+0, 0x1.4BFDAEp+0, 0x1.5342B6p+0,
        0x1.5AB07Ep+0, 0x1.6247ECp+0, 0x1.6A09E6p+0, 0x1.71F75Ep+0, 0x1.7A1148p+0, 0x1.82589Ap+0, 0x1.8ACE54p+0,
        0x1.93737Cp+0, 0x1.9C4918p+0, 0x1.A5503Cp+0, 0x1.AE89FAp+0, 0x1.B7F770p+0, 0x1.C199BEp+0, 0x1.CB720Ep+0,
        0x1.D5818Ep+0, 0x1.DFC974p+0, 0x1.EA4AFAp+0, 0x1.F50766p+0,
    ]
    let p = UnsafeMutablePointer<Float>.allocate(capacity: 32)
    p.initialize(from: table, count: 32)
    return UnsafePointer(p)
}()

@inline(__always) private func sigmoidRR2LUT32(_ x: SIMD16<Float>) -> SIMD16<Float> {
    let magicBias = SIMD16<Float>(repeating: 0x1.800000p18), log2e = SIMD16<Float>(repeating: 0x1.715476p0)
    let minusLn2Hi = SIMD16<Float>(repeating: -0x1.62E430p-1), minusLn2Lo = SIMD16<Float>(repeating: 0x1.05C61p-29)
    let c2 = SIMD16<Float>(repeating: 0x1.000000p-1), c1 = SIMD16<Float>(repeating: 0x1.0000F6p-0)
    let one = SIMD16<Float>(repeating: 1)
    let z = unsafeBitCast(unsafeBitCast(x, to: SIMD16<UInt32>.self) | 0x8000_0000, to: SIMD16<Float>.self)
    let biased = fusedMultiplyAdd(z, log2e, magicBias)
    let bitsN = unsafeBitCast(biased, to: SIMD16<Int32>.self)
    let index = bitsN & 31
    let table = exp2Fractions
    var l = SIMD16<Float>()
    for j in 0..<16 { l[j] = table[Int(truncatingIfNeeded: index[j])] }
    let n = biased - magicBias
    var t = fusedMultiplyAdd(n, minusLn2Hi, z)
    t = fusedMultiplyAdd(n, minusLn2Lo, t)
    var p = fusedMultiplyAdd(t, c2, c1)
    t = t * l
    p = fusedMultiplyAdd(t, p, l)
    // p * 2^floor(n), rounded once as `vscalefps` rounds it. n is the biased value's low bits in 32nds wherever the
    // biased value stays in the magic bias's binade (n >= -131072), so floor(n) is their difference shifted right by
    // 5. Where 2^floor(n) is a normal float (n >= -126) one product is exact up to its rounding; below, the result
    // is subnormal or zero (most of a segmentation mask's background): p * 2^(k + 64), exact, then times 2^-64,
    // rounded once (k clamped at -190, whose results round to zero as all below do). Other lanes (NaN, infinities,
    // x below about -90000) take the instruction's special cases from `scalef`.
    @_transparent func twoToThe(floorOf biased: SIMD16<Float>, plus bias: Int32) -> SIMD16<Float> {
        let k = (unsafeBitCast(biased, to: SIMD16<Int32>.self) &- 0x48C0_0000) &>> 5
        return unsafeBitCast((k &+ (127 + bias)) &<< 23, to: SIMD16<Float>.self)
    }
    let lowest = SIMD16<Float>(repeating: -190), smallest = SIMD16<Float>(repeating: -126)
    let low = twoToThe(floorOf: select(where: n, isLessThan: lowest, magicBias + lowest, else: biased), plus: 64)
    var e = p * select(where: n, isLessThan: smallest, low, else: twoToThe(floorOf: biased, plus: 0))
    e = select(where: n, isLessThan: smallest, e * SIMD16<Float>(repeating: 0x1p-64), else: e)
    let far = SIMD16<Float>(repeating: -131_072)
    if anyNotGreaterOrEqual(n, far) { e = scalefLanes(e, p, n, where: .!(n .>= far)) }
    let f = e / (e + one)
    // f where x's sign bit is set: `x < 0` but for -0 and NaNs, whose results are the same either way.
    return select(where: x, isLessThan: SIMD16<Float>(), f, else: one - f)
}

/// `e` with the lanes of `mask` replaced by `scalef(p, n)` (out of line: rare, and its lane loop kept out of the
/// vector code).
@inline(never) private func scalefLanes(_ e: SIMD16<Float>, _ p: SIMD16<Float>, _ n: SIMD16<Float>,
                                        where mask: SIMDMask<SIMD16<Int32>>) -> SIMD16<Float> {
    var e = e
    for j in 0..<16 where mask[j] { e[j] = scalef(p[j], n[j]) }
    return e
}

/// `vscalefps` on one lane: p * 2^floor(n), rounded once (into the subnormals too), with the instruction's special
/// cases as measured: an infinite n takes a NaN p to +inf or +0.
private func scalef(_ p: Float, _ n: Float) -> Float {
    if n.isNaN { return .nan }
    if n == .infinity { return p.isNaN ? .infinity : p * .infinity }
    if n == -.infinity { return p.isNaN ? 0 : (p.isInfinite ? .nan : p * 0) }
    guard p.isFinite else { return p }
    let k = Int(max(-400, min(400, n.rounded(.down))))
    return Float(Double(p) * Double(sign: .plus, exponent: k, significand: 1))
}
