import Dispatch
import TasksVisionKernels

extension KernelSet {
    /// The set's int8 GEMM (`QuantizedMicrokernels`) on an `m` x `k` input and `n` columns of per-channel weights,
    /// with XNNPACK's requantization, in GOP/s (two per multiply-add), best of `runs`: `vision-bench --qgemm`, the
    /// kernel alone, its operands warm in cache. Nil for an empty shape.
    public func measuredQuantizedGEMM(m: Int, k: Int, n: Int, runs: Int = 50,
                                      features: CPUFeatures = .current) -> Double? {
        guard m > 0, k > 0, n > 0 else { return nil }
        let kernels = QuantizedMicrokernels(self, features: features)
        let weights = (0..<(n * k)).map { Int8(truncatingIfNeeded: $0 % 251 - 125) }
        let packed = weights.withUnsafeBufferPointer { w in
            QS8PackedWeights(weights: w.baseAddress!, n: n, realK: k, bias: [Int32](repeating: 100, count: n),
                             scales: (0..<n).map { 0.001 + Float($0 % 7) * 0.0001 }, inputZeroPoint: -3,
                             inputOffset: kernels.gemm.inputOffset, nr: kernels.gemm.nr, kr: kernels.gemm.kr)
        }
        let lda = k, bytes = m * lda + 64
        let a = UnsafeMutablePointer<Int8>.allocate(capacity: bytes)
        let c = UnsafeMutablePointer<Int8>.allocate(capacity: m * n)
        defer { a.deallocate(); c.deallocate() }
        for i in 0..<bytes { a[i] = Int8(truncatingIfNeeded: i % 253) }
        let arguments = QS8GEMMArguments(m: m, k: packed.view.k, a: a, lda: lda, weights: packed.view, c: c, ldc: n,
                                         output: QS8Output(zeroPoint: 5, min: -128, max: 127))
        var best = Double.infinity
        withExtendedLifetime(packed) {
            for _ in 0..<max(runs, 1) {
                let start = DispatchTime.now().uptimeNanoseconds
                kernels.gemm.run(arguments)
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
        }
        return 2 * Double(m * k * n) / max(best, 1e-12) / 1e9
    }
}

extension KernelSet {
    /// The set's int8 depthwise row kernel over one `height` x `width` x `channels` map, a `kernel` x `kernel` filter,
    /// `stride`, SAME padding, in GOP/s, best of `runs`: `vision-bench --qdwconv`.
    public func measuredQuantizedDepthwise(height: Int, width: Int, channels: Int, kernel: Int, stride: Int,
                                           runs: Int = 50) -> Double? {
        guard height > 0, width > 0, channels > 0, kernel > 0, stride > 0 else { return nil }
        let kernels = QuantizedMicrokernels(self)
        let row = kernels.depthwiseRowMul16 ?? kernels.depthwiseRow
        let v = ConvGeometry.padding(.same, input: height, kernel: kernel, stride: stride, dilation: 1)
        let h = ConvGeometry.padding(.same, input: width, kernel: kernel, stride: stride, dilation: 1)
        let taps = kernel * kernel
        let weights = (0..<(taps * channels)).map { Int8(truncatingIfNeeded: $0 % 251 - 125) }  // no -128
        let packed = weights.withUnsafeBufferPointer { w in
            QS8PackedDepthwiseWeights(weights: w.baseAddress!, channels: channels, taps: taps,
                                      bias: [Int32](repeating: 7, count: channels),
                                      scales: [Float](repeating: 0.001, count: channels), inputZeroPoint: 3,
                                      cr: row.cr)
        }
        let inBytes = height * width * channels + 64, outBytes = v.out * h.out * channels + 64
        let input = UnsafeMutablePointer<Int8>.allocate(capacity: inBytes)
        let output = UnsafeMutablePointer<Int8>.allocate(capacity: outBytes)
        let zero = UnsafeMutablePointer<Int8>.allocate(capacity: channels + 128)
        defer { input.deallocate(); output.deallocate(); zero.deallocate() }
        for i in 0..<inBytes { input[i] = Int8(truncatingIfNeeded: i % 253) }
        zero.initialize(repeating: 3, count: channels + 128)
        var best = Double.infinity
        withExtendedLifetime(packed) {
            for _ in 0..<max(runs, 1) {
                let start = DispatchTime.now().uptimeNanoseconds
                for oy in 0..<v.out {
                    row.run(QS8DepthwiseRowArguments(
                        input: input, inH: height, inW: width, channels: channels, kH: kernel, kW: kernel,
                        strideW: stride, dilationH: 1, dilationW: 1, padLeft: h.before, iy0: oy * stride - v.before,
                        zeroRow: zero, weights: packed.view, output: output + oy * h.out * channels, outW: h.out,
                        quantization: QS8Output(zeroPoint: 1, min: -128, max: 127)))
                }
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
        }
        return 2 * Double(v.out * h.out * channels * taps) / max(best, 1e-12) / 1e9
    }
}
