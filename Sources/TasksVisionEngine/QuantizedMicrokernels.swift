import TasksVisionKernels
import TasksVisionKernelsPortable

/// The int8 microkernels of one kernel set, chosen from the set (and the CPU's features) as XNNPACK's
/// `gemm-config.c` and `dwconv-config.c` choose theirs; every kernel computes the same exact 32-bit sums and the
/// same float requantization, so which one runs a layer never changes its bytes. Each GEMM names the packing its
/// weights need (`QS8PackedWeights`: columns per block, k per group, the offset it adds to input bytes).
struct QuantizedMicrokernels {
    struct GEMM {
        let nr: Int
        let kr: Int
        let inputOffset: Int32
        let run: (QS8GEMMArguments) -> Void
    }
    struct DepthwiseRow {
        let cr: Int
        let run: (QS8DepthwiseRowArguments) -> Void
    }

    let gemm: GEMM
    let depthwiseRow: DepthwiseRow

    init(_ set: KernelSet, features: CPUFeatures = .current) {
        gemm = GEMM(nr: qs8GEMMPortableTile.nr, kr: qs8GEMMPortableTile.kr,
                    inputOffset: qs8GEMMPortableTile.inputOffset, run: TasksVisionKernelsPortable.qs8QC8WGEMM)
        depthwiseRow = DepthwiseRow(cr: qs8DepthwisePortableChannels,
                                    run: TasksVisionKernelsPortable.qs8QC8WDepthwiseRow)
    }
}
