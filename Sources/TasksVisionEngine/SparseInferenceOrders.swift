import TasksVisionKernels

/// How XNNPACK's arm64 NCHW kernels (its sparse inference, `Graph.markSparseInference`) sum what the engine computes
/// in NHWC, read from their sources (src/f32-dwconv2d-chw, src/f32-conv-hwc2chw, src/f32-ibilinear-chw):
/// - 1x1 convolutions (`f32-spmm`): one chain from the bias over the input channels in order, as the NHWC GEMM, but
///   never the arm64 lane or pair chains (`Microkernels.plainGEMM`);
/// - depthwise convolutions (`f32-dwconv2d-chw`, `depthwise(kernel:stride:)`);
/// - the first 3x3 stride-2 convolution of 3 channels (`f32-conv-hwc2chw-3x3s2p1c3x4`): kx, then channel, then ky;
/// - bilinear resize (`f32-ibilinear-chw`): the two columns interpolated between the rows first, then across, each a
///   fused multiply-add, and at the right edge the last two columns with a weight of 1 (`ResizeBilinearLayer`).
enum SparseInferenceOrders {
    /// `3x3p1-aarch64-neonfma-3x4`: one chain, the middle column top to bottom, then the left, then the right.
    static let depthwise3x3 = DepthwiseTapOrder([1, 4, 7, 0, 3, 6, 2, 5, 8], firstChain: 9)
    /// `3x3s2p1-aarch64-neonfma-2x4-acc2`: k11 k21 k10 k02 k22 from the bias, k01 k00 k20 k12 from zero.
    static let depthwise3x3Stride2 = DepthwiseTapOrder([4, 7, 3, 2, 8, 1, 0, 6, 5], firstChain: 5)
    /// `5x5p2-aarch64-neonfma-4x4`: one chain, columns 2, 1, 0, 3, 4, each top to bottom.
    static let depthwise5x5 = DepthwiseTapOrder([2, 1, 0, 3, 4].flatMap { kx in (0..<5).map { $0 * 5 + kx } },
                                                firstChain: 25)
    /// `5x5s2p2-aarch64-neonfma-1x4-acc2`: its two accumulators' taps, each in the kernel's order.
    static let depthwise5x5Stride2 = DepthwiseTapOrder([7, 12, 22, 8, 18, 0, 10, 20, 6, 16, 4, 14, 24,
                                                        2, 17, 3, 13, 23, 5, 15, 1, 11, 21, 9, 19], firstChain: 13)

    /// The order of a depthwise layer XNNPACK runs NCHW (3x3 or 5x5, stride 1 or 2); nil for any other.
    static func depthwise(kernel: Int, stride: Int) -> DepthwiseTapOrder? {
        switch (kernel, stride) {
        case (3, 1): return depthwise3x3
        case (3, 2): return depthwise3x3Stride2
        case (5, 1): return depthwise5x5
        case (5, 2): return depthwise5x5Stride2
        default: return nil
        }
    }

    /// The first convolution's order over its window (`kH` x `kW` x `channels`, read ky, kx, channel): positions
    /// of that window in kx, channel, ky order.
    static func intoNCHWConvolution(kH: Int, kW: Int, channels: Int) -> [Int] {
        (0..<kW).flatMap { kx in (0..<channels).flatMap { c in (0..<kH).map { ky in (ky * kW + kx) * channels + c } } }
    }
}
