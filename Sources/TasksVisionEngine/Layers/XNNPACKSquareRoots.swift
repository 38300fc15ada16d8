import CVectorEstimates

/// SQRT and RSQRT as XNNPACK's x86 kernels compute them (`xnn_f32_vsqrt_ukernel__avx512f_rsqrt_u16`,
/// `xnn_f32_vrsqrt_ukernel__avx512f_rsqrt_u32`, and the `avx_rsqrt` pair on CPUs without AVX-512): the processor's
/// reciprocal-square-root estimate (`vrsqrt14ps`, or `vrsqrtps` on AVX), one Newton-Raphson step with every product
/// and difference rounded on its own (no fused multiply-add), then for SQRT the input times that (zero at zero), for
/// RSQRT zero at +infinity. Not correctly rounded: about a third of the values differ from `1 / sqrt(x)` by an ulp,
/// which is why the bits need the estimate the CPU itself gives (Intel and AMD tables differ for `vrsqrtps`).
extension XNNPACKElementwise.Variant {
    /// Writes `count` results into `y`; false where this variant has no such kernel (arm64: the caller's formula).
    func squareRoots(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, count: Int, inverse: Bool) -> Bool {
        guard count > 0 else { return true }
        let ran: Int32
        switch self {
        case .avx512: ran = tasksvision_rsqrt14(x, y, count)
        case .avx2: ran = tasksvision_rsqrt_avx(x, y, count)
        case .neon: ran = 0
        }
        guard ran == 1 else { return false }
        for i in 0..<count {
            let v = x[i]
            y[i] = XNNPACKElementwise.newtonRaphsonStep(y[i], v)
            if inverse {
                if v == .infinity { y[i] = 0 }
            } else {
                y[i] = v * (v != 0 ? y[i] : 0)
            }
        }
        return true
    }
}

extension XNNPACKElementwise {
    /// y - (0.5 y)(x y² - 1), each operation rounded, in XNNPACK's order.
    @inline(__always)
    static func newtonRaphsonStep(_ y: Float, _ x: Float) -> Float {
        let t1 = y * y
        let t2 = x * t1
        let t3 = t2 - 1
        let t4 = 0.5 * y
        let t5 = t3 * t4
        return y - t5
    }
}
