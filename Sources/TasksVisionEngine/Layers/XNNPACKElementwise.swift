import TasksVisionKernels
import TasksVisionKernelsAVX2
import TasksVisionKernelsAVX512

/// XNNPACK's sigmoid and softmax, element by element as its x86 microkernels compute them (its arm64 ones:
/// XNNPACKElementwiseNEON.swift)
/// (`xnn_f32_vsigmoid_ukernel__avx512f_rr2_lut32_p2_perm2_scalef_div`,
/// `..._avx2_rr1_p5_div`, `xnn_f32_raddstoreexpminusmax_ukernel__avx512f_rr2_p5_u64_acc2` and
/// `..._avx2_rr2_p5_u32_acc2`, with the softmax scaled by a correctly rounded 1 / sum), for the
/// FMA kernel sets: each fused multiply-add below is one (`addingProduct`), each other operation
/// one rounding. These ops see a handful of values per inference (hand presence and handedness,
/// the pose flag, a classifier's 4 to 8 classes), so scalar code serves.
enum XNNPACKElementwise {
    /// The kernel pair XNNPACK's configs pick: on x86, AVX-512F's where the CPU has it, else AVX2's.
    /// That follows the CPU, not our kernel set, because the two give different bits (up to a few
    /// ulp) and the reference is TFLite on the same CPU: an AVX2 set forced on an AVX-512 CPU still
    /// matches it. On arm64 the set's (`neon`, XNNPACKElementwiseNEON.swift). Other CPUs have no
    /// variant here (the portable formulas run).
    enum Variant: Sendable {
        case avx2, avx512, neon

        init?(for features: CPUFeatures) {
            #if arch(x86_64)
            if features.flags.contains("avx512f") { self = .avx512; return }
            if features.hasAVX2FMA { self = .avx2; return }
            #endif
            return nil
        }

        var sigmoid: (Float) -> Float {
            switch self {
            case .avx2: return XNNPACKElementwise.sigmoidAVX2
            case .avx512: return XNNPACKElementwise.sigmoidAVX512
            case .neon: return XNNPACKElementwise.sigmoidNEON
            }
        }

        /// The same sigmoid over a run of floats, on the vector kernel of the variant's instruction set where this
        /// processor runs it (`f32-vsigmoid-*`: the same bits as `sigmoid`, lane by lane), else element by element.
        func sigmoidRun(on features: CPUFeatures) -> (UnsafePointer<Float>, UnsafeMutablePointer<Float>, Int) -> Void {
            switch self {
            case .avx512 where KernelSet.avx512.isSupported(on: features):
                return TasksVisionKernelsAVX512.f32SigmoidRR2LUT32
            case .avx2 where KernelSet.avx2.isSupported(on: features):
                return TasksVisionKernelsAVX2.f32SigmoidRR1P5
            default:
                let sigmoid = self.sigmoid
                return { x, y, count in for i in 0..<count { y[i] = sigmoid(x[i]) } }
            }
        }

        /// One softmax row of `count` values from `x` into `y`: `exp(x - max)`, their sum in the kernel's order,
        /// and each value times the rounded 1 / sum.
        func softmax(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, count: Int) {
            if self == .neon { return XNNPACKElementwise.softmaxNEON(x, y, count: count) }
            var m = -Float.infinity
            for i in 0..<count { m = max(m, x[i]) }
            for i in 0..<count { y[i] = XNNPACKElementwise.expMinusMax(x[i] - m) }
            let scale = 1 / XNNPACKElementwise.sum(UnsafePointer(y), count: count, lanes: lanes)
            for i in 0..<count { y[i] *= scale }
        }

        /// The vector width whose order the softmax sum follows.
        var lanes: Int {
            switch self {
            case .avx512: return 16
            case .avx2: return 8
            case .neon: return 4
            }
        }
    }

    // exp(x) for x <= 0: 2^n * (1 + t p(t)), n from a magic-bias rounding, t = x - n ln 2 in two steps.
    static let log2e = Float(bitPattern: 0x3FB8_AA3B)
    static let expMagicBias = Float(bitPattern: 0x4B40_007F)   // 1.5 * 2^23 + 127
    static let minusLn2Hi = Float(bitPattern: 0xBF31_7200)
    static let minusLn2Lo = Float(bitPattern: 0xB5BF_BE8E)
    static let minusLn2 = Float(bitPattern: 0xBF31_7218)
    static let c5 = Float(bitPattern: 0x3C07_CFCE), c4 = Float(bitPattern: 0x3D2B_9D0D),
        c3 = Float(bitPattern: 0x3E2A_AD40)
    static let c2 = Float(bitPattern: 0x3EFF_FEE3), c1 = Float(bitPattern: 0x3F7F_FFFB)
    static let denormalCutoff = Float(bitPattern: 0xC2AE_AC4F)  // -87.33654

    /// 2^n for the magic-biased `n`: its low bits shifted into the exponent field.
    @inline(__always) static func twoToThe(biased n: Float) -> Float { Float(bitPattern: n.bitPattern << 23) }

    /// `exp(x)` for `x = value - max <= 0` (raddstoreexpminusmax, rr2_p5).
    static func expMinusMax(_ x: Float) -> Float {
        var n = expMagicBias.addingProduct(x, log2e)
        let s = twoToThe(biased: n)
        n = n - expMagicBias
        var t = x.addingProduct(n, minusLn2Hi)
        t = t.addingProduct(n, minusLn2Lo)
        return x < denormalCutoff ? 0 : scaledPolynomial(t, s)
    }

    /// `s * (1 + t p(t))` as the p5 kernels evaluate it: p by Horner's rule from c5, then
    /// `s + (t * s) * p`.
    @inline(__always) static func scaledPolynomial(_ t: Float, _ s: Float) -> Float {
        var p = c4.addingProduct(c5, t)
        p = c3.addingProduct(p, t)
        p = c2.addingProduct(p, t)
        p = c1.addingProduct(p, t)
        return s.addingProduct(t * s, p)
    }

    /// Sigmoid as `avx2_rr1_p5_div`.
    static func sigmoidAVX2(_ x: Float) -> Float {
        let z = Float(bitPattern: x.bitPattern | 0x8000_0000)
        var n = expMagicBias.addingProduct(z, log2e)
        let s = twoToThe(biased: n)
        n = n - expMagicBias
        let e = scaledPolynomial(z.addingProduct(n, minusLn2), s)
        var f = e / (e + 1)
        if z < denormalCutoff { f = 0 }
        return x.sign == .minus ? f : 1 - f
    }

    static let sigmoidTable: [Float] = [
        0x1.000000p+0, 0x1.059B0Ep+0, 0x1.0B5586p+0, 0x1.11301Ep+0,
        0x1.172B84p+0, 0x1.1D4874p+0, 0x1.2387A6p+0, 0x1.29E9E0p+0,
        0x1.306FE0p+0, 0x1.371A74p+0, 0x1.3DEA64p+0, 0x1.44E086p+0,
        0x1.4BFDAEp+0, 0x1.5342B6p+0, 0x1.5AB07Ep+0, 0x1.6247ECp+0,
        0x1.6A09E6p+0, 0x1.71F75Ep+0, 0x1.7A1148p+0, 0x1.82589Ap+0,
        0x1.8ACE54p+0, 0x1.93737Cp+0, 0x1.9C4918p+0, 0x1.A5503Cp+0,
        0x1.AE89FAp+0, 0x1.B7F770p+0, 0x1.C199BEp+0, 0x1.CB720Ep+0,
        0x1.D5818Ep+0, 0x1.DFC974p+0, 0x1.EA4AFAp+0, 0x1.F50766p+0,
    ]
    static let lutMagicBias = Float(bitPattern: 0x48C0_0000)    // 1.5 * 2^18: n in steps of 1/32
    static let lutMinusLn2Lo = Float(bitPattern: 0x3102_E308)
    static let lutC1 = Float(bitPattern: 0x3F80_007B)

    /// Sigmoid as `avx512f_rr2_lut32_p2_perm2_scalef_div`.
    static func sigmoidAVX512(_ x: Float) -> Float {
        let z = Float(bitPattern: x.bitPattern | 0x8000_0000)
        var n = lutMagicBias.addingProduct(z, log2e)
        let l = sigmoidTable[Int(n.bitPattern & 31)]
        n = n - lutMagicBias
        var t = z.addingProduct(n, minusLn2)
        t = t.addingProduct(n, lutMinusLn2Lo)
        var p = lutC1.addingProduct(t, 0.5)
        t = t * l
        p = l.addingProduct(t, p)
        let e = scalef(p, n)
        let f = e / (e + 1)
        return x.sign == .minus ? f : 1 - f
    }

    /// `vscalefps`: p * 2^floor(n), one rounding (into the subnormals too), with the instruction's
    /// special cases as measured: an infinite n takes a NaN p to +inf or +0 (|x| past 2.36e38 gets here).
    static func scalef(_ p: Float, _ n: Float) -> Float {
        if n.isNaN { return .nan }
        if n == .infinity { return p.isNaN ? .infinity : p * .infinity }
        if n == -.infinity { return p.isNaN ? 0 : (p.isInfinite ? .nan : p * 0) }
        guard p.isFinite else { return p }
        // Clamped before the conversion: Int(n) traps for |n| past 2^63 (a sigmoid of -1e30 gets here).
        let k = Int(max(-400, min(400, n.rounded(.down))))
        return Float(Double(p) * Double(sign: .plus, exponent: k, significand: 1))
    }

    /// The sum of `values` in the order of the set's raddstoreexpminusmax kernel: lanes of one
    /// vector width, two accumulators over blocks of four vectors, then single vectors, a masked
    /// tail, and the lanes halved pairwise (as `_mm512_reduce_add_ps`, or the AVX2 shuffle tree).
    static func sum(_ values: UnsafePointer<Float>, count: Int, lanes: Int) -> Float {
        // At most 16 lanes (AVX-512), in registers: no allocation per row.
        var acc0 = SIMD16<Float>(), acc1 = acc0
        var i = 0
        while i + 4 * lanes <= count {
            for l in 0..<lanes { acc0[l] += values[i + l] }
            for l in 0..<lanes { acc1[l] += values[i + lanes + l] }
            for l in 0..<lanes { acc0[l] += values[i + 2 * lanes + l] }
            for l in 0..<lanes { acc1[l] += values[i + 3 * lanes + l] }
            i += 4 * lanes
        }
        for l in 0..<lanes { acc0[l] += acc1[l] }
        while i + lanes <= count {
            for l in 0..<lanes { acc0[l] += values[i + l] }
            i += lanes
        }
        // The tail's inactive lanes add nothing (masked add, or +0 on AVX2: the same sums).
        for l in 0..<(count - i) { acc0[l] += values[i + l] }
        var width = lanes
        while width > 1 {
            width /= 2
            for l in 0..<width { acc0[l] = acc0[l] + acc0[l + width] }
        }
        return acc0[0]
    }
}
