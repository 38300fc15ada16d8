/// XNNPACK's arm64 sigmoid and softmax (`xnn_f32_vsigmoid_ukernel__neonfma_rr1_lut64_p2_nr2recps_u16`,
/// `xnn_f32_raddstoreexpminusmax_ukernel__neonfma_rr1_lut64_p2_u16_acc2`, then 1 / sum and `vmulc`), element by
/// element on any processor: each fused multiply-add below is one (`addingProduct`), each other operation one
/// rounding, and the reciprocal estimate and step instructions (FRECPE, FRECPS) follow the Arm architecture's
/// definitions. XNNPACK runs its operators with the FPCR's flush-to-zero set (pthreadpool's
/// `PTHREADPOOL_FLAG_DISABLE_DENORMALS`): subnormal operands count as zero and results below 2^-126 become zero,
/// which only a softmax's smallest outputs can meet.
extension XNNPACKElementwise {
    static let neonMagicBias = Float(bitPattern: 0x4840_0000)       // 1.5 * 2^17: n in steps of 1/64
    static let neonMinusLog2e = Float(bitPattern: 0xBFB8_AA3B)
    static let neonLn2 = Float(bitPattern: 0x3F31_7218)
    static let neonC2 = Float(bitPattern: 0x3EFF_FF85)
    static let neonCutoff = Float(bitPattern: 0x42AE_AC4F)          // 87.33654

    /// 2^(k/64), k = 0...63, as bits (`xnn_table_exp2_k_over_64`).
    static let exp2KOver64: [UInt32] = [
        0x3F80_0000, 0x3F81_64D2, 0x3F82_CD87, 0x3F84_3A29, 0x3F85_AAC3, 0x3F87_1F62, 0x3F88_980F, 0x3F8A_14D5,
        0x3F8B_95C2, 0x3F8D_1ADF, 0x3F8E_A43A, 0x3F90_31DC, 0x3F91_C3D3, 0x3F93_5A2B, 0x3F94_F4F0, 0x3F96_942D,
        0x3F98_37F0, 0x3F99_E046, 0x3F9B_8D3A, 0x3F9D_3EDA, 0x3F9E_F532, 0x3FA0_B051, 0x3FA2_7043, 0x3FA4_3516,
        0x3FA5_FED7, 0x3FA7_CD94, 0x3FA9_A15B, 0x3FAB_7A3A, 0x3FAD_583F, 0x3FAF_3B79, 0x3FB1_23F6, 0x3FB3_11C4,
        0x3FB5_04F3, 0x3FB6_FD92, 0x3FB8_FBAF, 0x3FBA_FF5B, 0x3FBD_08A4, 0x3FBF_179A, 0x3FC1_2C4D, 0x3FC3_46CD,
        0x3FC5_672A, 0x3FC7_8D75, 0x3FC9_B9BE, 0x3FCB_EC15, 0x3FCE_248C, 0x3FD0_6334, 0x3FD2_A81E, 0x3FD4_F35B,
        0x3FD7_44FD, 0x3FD9_9D16, 0x3FDB_FBB8, 0x3FDE_60F5, 0x3FE0_CCDF, 0x3FE3_3F89, 0x3FE5_B907, 0x3FE8_396A,
        0x3FEA_C0C7, 0x3FED_4F30, 0x3FEF_E4BA, 0x3FF2_8177, 0x3FF5_257D, 0x3FF7_D0DF, 0x3FFA_83B3, 0x3FFD_3E0C,
    ]

    /// A subnormal operand or result as the FPCR's flush-to-zero sees it: a zero of its sign.
    @inline(__always) static func flushed(_ x: Float) -> Float { x.isSubnormal ? (x.sign == .minus ? -0 : 0) : x }

    /// `a * b` under flush-to-zero: the exact product (a double holds it) below 2^-126 is zero.
    @inline(__always) static func multiplyFlushing(_ a: Float, _ b: Float) -> Float {
        let a = flushed(a), b = flushed(b), p = Double(a) * Double(b)
        return p != 0 && abs(p) < 0x1p-126 ? (p < 0 ? -0 : 0) : a * b
    }

    /// `acc + a * b` rounded once, under flush-to-zero.
    @inline(__always) static func fusedFlushing(_ acc: Float, _ a: Float, _ b: Float) -> Float {
        flushed(flushed(acc).addingProduct(flushed(a), flushed(b)))
    }

    /// FRECPE: the 8-bit reciprocal estimate (the Arm ARM's FPRecipEstimate and RecipEstimate), flush-to-zero on.
    static func reciprocalEstimate(_ x: Float) -> Float {
        let x = flushed(x)
        if x.isNaN { return Float(bitPattern: x.bitPattern | 0x0040_0000) }
        if x.isInfinite { return x.sign == .minus ? -0 : 0 }
        if x == 0 { return x.sign == .minus ? -.infinity : .infinity }
        let bits = x.bitPattern, sign = bits & 0x8000_0000, exponent = Int((bits >> 23) & 0xFF)
        if exponent >= 253 { return Float(bitPattern: sign) }
        let scaled = 256 | Int((bits >> 15) & 0xFF)
        let estimate = ((1 << 19) / (scaled * 2 + 1) + 1) / 2
        return Float(bitPattern: sign | UInt32(253 - exponent) << 23 | UInt32(estimate & 0xFF) << 15)
    }

    /// FRECPS: `2 - a * b` rounded once (0 times infinity gives 2).
    static func reciprocalStep(_ a: Float, _ b: Float) -> Float {
        let a = flushed(a), b = flushed(b)
        if a.isInfinite && b == 0 || a == 0 && b.isInfinite { return 2 }
        return fusedFlushing(2, -a, b)
    }

    /// Sigmoid as `neonfma_rr1_lut64_p2_nr2recps`: e^-|x| from a 64-entry table and a degree-2 polynomial, then
    /// e / (e + 1) as e times a reciprocal estimate refined by two Newton-Raphson steps.
    static func sigmoidNEON(_ x: Float) -> Float {
        let z = Float(bitPattern: x.bitPattern & 0x7FFF_FFFF)
        var n = fusedFlushing(neonMagicBias, z, neonMinusLog2e)
        let bits = n.bitPattern
        // The table entry's bits less k << 17 (`xnn_table_exp2minus_k_over_64`), plus n's integer part.
        let k = bits & 0x3F
        let s = Float(bitPattern: exp2KOver64[Int(k)] &- (k &<< 17) &+ (bits &<< 17))
        n = flushed(n - neonMagicBias)
        let t = fusedFlushing(z, n, neonLn2)
        var p = multiplyFlushing(t, neonC2)
        p = fusedFlushing(t, -p, t)
        let y = fusedFlushing(s, -s, p)
        let d = flushed(y + 1)
        var r = reciprocalEstimate(d)
        r = multiplyFlushing(r, reciprocalStep(r, d))
        r = multiplyFlushing(r, reciprocalStep(r, d))
        var f = multiplyFlushing(y, r)
        if !x.isNaN && abs(flushed(x)) > neonCutoff { f = 0 }
        return flushed(x) < 0 ? f : flushed(1 - f)
    }

    /// `exp(x)` for `x = value - max <= 0` as `raddstoreexpminusmax_neonfma_rr1_lut64_p2`.
    static func expMinusMaxNEON(_ x: Float) -> Float {
        var n = fusedFlushing(neonMagicBias, x, -neonMinusLog2e)
        let bits = n.bitPattern
        let s = Float(bitPattern: exp2KOver64[Int(bits & 0x3F)] &+ ((bits & ~0x3F) &<< 17))
        n = flushed(n - neonMagicBias)
        let t = fusedFlushing(x, n, -neonLn2)
        var p = multiplyFlushing(t, neonC2)
        p = fusedFlushing(t, t, p)
        let f = fusedFlushing(s, s, p)
        return flushed(x) < -neonCutoff ? 0 : f
    }

    /// One softmax row as XNNPACK's arm64 build computes it: the maximum, each `exp(x - max)`, their sum in the
    /// lanes of one 4-wide accumulator (the kernel's second one is never used) reduced as (l0 + l1) + (l2 + l3),
    /// then the last pair and the last value; each output times the rounded 1 / sum.
    static func softmaxNEON(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, count: Int) {
        var m = -Float.infinity
        for i in 0..<count {
            let v = flushed(x[i])
            if v.isNaN || m.isNaN { m = .nan } else if v > m || v == m && v.sign == .plus { m = v }
        }
        for i in 0..<count { y[i] = expMinusMaxNEON(flushed(flushed(x[i]) - m)) }
        var lanes = SIMD4<Float>()
        let whole = count / 4 * 4
        for i in 0..<whole { lanes[i % 4] = flushed(lanes[i % 4] + y[i]) }
        var sum = flushed(flushed(lanes[0] + lanes[1]) + flushed(lanes[2] + lanes[3]))
        var i = whole
        if count - i >= 2 { sum = flushed(sum + flushed(y[i] + y[i + 1])); i += 2 }
        if i < count { sum = flushed(sum + y[i]) }
        let scale = flushed(1 / sum)
        for i in 0..<count { y[i] = multiplyFlushing(y[i], scale) }
    }
}
