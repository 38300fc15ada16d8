// The core's fused multiply-add peak on this set's vectors, for benchmark reports
// (`vision-bench --peak`): 12 independent accumulator chains, enough to cover the FMA latency
// on two pipes, and with the two constants within AVX2's 16 registers.

/// Runs `iterations` x 12 vector FMAs and returns a value that depends on all of them (so none
/// is optimized away). Floating-point operations: `iterations * 12 * 2 * Vec.scalarCount`.
@inline(never)
public func fmaPeakLoop(iterations: Int, seed: Float) -> Float {
    let m = Vec(repeating: 0.999_999), b = Vec(repeating: 1e-7)
    var a0 = Vec(repeating: seed), a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5
    var a6 = a0 + 6, a7 = a0 + 7, a8 = a0 + 8, a9 = a0 + 9, a10 = a0 + 10, a11 = a0 + 11
    for _ in 0..<iterations {
        a0 = madd(b, a0, m); a1 = madd(b, a1, m); a2 = madd(b, a2, m); a3 = madd(b, a3, m)
        a4 = madd(b, a4, m); a5 = madd(b, a5, m); a6 = madd(b, a6, m); a7 = madd(b, a7, m)
        a8 = madd(b, a8, m); a9 = madd(b, a9, m); a10 = madd(b, a10, m); a11 = madd(b, a11, m)
    }
    let s = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)) + ((a8 + a9) + (a10 + a11))
    return s.sum()
}

/// FMAs per iteration of `fmaPeakLoop`.
public let fmaPeakChains = 12
/// Floats per vector of this set.
public let vectorLanes = Vec.scalarCount
