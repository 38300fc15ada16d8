import TasksVisionKernels
import TasksVisionKernelsAVX2
import TasksVisionKernelsAVX512
import TasksVisionKernelsNEON

/// The microkernels of one kernel set, filled once from the set, as XNNPACK's
/// `src/configs/*-config.c` fill their tables from the CPU's features. Layers take their
/// arithmetic from here; `nil` entries (the portable set) mean the layer's own Swift kernel
/// and OpenBLAS.
struct Microkernels {
    let set: KernelSet
    /// The GEMM of 1x1 and KxK convolutions and fully connected layers, and its column tile.
    let gemm: ((GEMMArguments) -> Void)?
    let gemmNR: Int
    /// Depthwise convolution, one output row per call (one channel per input channel, no dilation).
    let depthwiseRow: ((DepthwiseRowArguments) -> Void)?

    init(_ set: KernelSet) {
        self.set = set
        switch set {
        case .avx2:
            gemm = TasksVisionKernelsAVX2.f32GEMM
            gemmNR = TasksVisionKernelsAVX2.gemmNR
            depthwiseRow = TasksVisionKernelsAVX2.f32DepthwiseRow
        case .avx512:
            gemm = TasksVisionKernelsAVX512.f32GEMM
            gemmNR = TasksVisionKernelsAVX512.gemmNR
            depthwiseRow = TasksVisionKernelsAVX512.f32DepthwiseRow
        case .neon:
            gemm = TasksVisionKernelsNEON.f32GEMM
            gemmNR = TasksVisionKernelsNEON.gemmNR
            depthwiseRow = TasksVisionKernelsNEON.f32DepthwiseRow
        case .portable:
            gemm = nil
            gemmNR = 0
            depthwiseRow = nil
        }
    }

    static let portable = Microkernels(.portable)
}
