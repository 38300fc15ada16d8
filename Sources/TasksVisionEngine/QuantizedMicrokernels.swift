import TasksVisionKernels
import TasksVisionKernelsAVX2
import TasksVisionKernelsAVX512
import TasksVisionKernelsAVX512VNNI
import TasksVisionKernelsNEON
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
    /// The depthwise row in 16-bit products, for weights within [-127, 127] (XNNPACK's `mul16_add16`); nil where
    /// the set has none.
    let depthwiseRowMul16: DepthwiseRow?
    /// ADD/SUB and MUL of contiguous runs (`QS8BinaryArguments`).
    let binary: (QS8BinaryArguments) -> Void
    /// DEQUANTIZE of contiguous bytes (`qs8F32VCvt`: input, output, count, unsigned, zero point, scale).
    let dequantize: (UnsafeRawPointer, UnsafeMutablePointer<Float>, Int, Bool, Int32, Float) -> Void
    /// A 256-entry byte table over contiguous bytes (`x8LUT`: input, output, count, table); nil where the set has
    /// no byte shuffle (a scalar loop then).
    let lookup: ((UnsafePointer<UInt8>, UnsafeMutablePointer<UInt8>, Int, UnsafePointer<UInt8>) -> Void)?

    /// `features` decide what the set alone does not: the AVX-512 set multiplies with VNNI where the CPU has it,
    /// else with the AVX2 kernel's `vpmaddwd` (every AVX-512 CPU has AVX2).
    init(_ set: KernelSet, features: CPUFeatures = .current) {
        switch set {
        case .avx512 where features.hasAVX512VNNI:
            let t = TasksVisionKernelsAVX512VNNI.qs8GEMMTile
            gemm = GEMM(nr: t.nr, kr: t.kr, inputOffset: t.inputOffset, run: TasksVisionKernelsAVX512VNNI.qs8QC8WGEMM)
        case .avx512, .avx2:
            let t = TasksVisionKernelsAVX2.qs8GEMMTile
            gemm = GEMM(nr: t.nr, kr: t.kr, inputOffset: t.inputOffset, run: TasksVisionKernelsAVX2.qs8QC8WGEMM)
        case .neon:
            let t = TasksVisionKernelsNEON.qs8GEMMTile
            gemm = GEMM(nr: t.nr, kr: t.kr, inputOffset: t.inputOffset, run: TasksVisionKernelsNEON.qs8QC8WGEMM)
        case .portable:
            let t = TasksVisionKernelsPortable.qs8GEMMTile
            gemm = GEMM(nr: t.nr, kr: t.kr, inputOffset: t.inputOffset, run: TasksVisionKernelsPortable.qs8QC8WGEMM)
        }
        switch set {
        case .avx512: binary = TasksVisionKernelsAVX512.qs8VBinary
        case .avx2: binary = TasksVisionKernelsAVX2.qs8VBinary
        case .neon: binary = TasksVisionKernelsNEON.qs8VBinary
        case .portable: binary = TasksVisionKernelsPortable.qs8VBinary
        }
        switch set {
        case .avx512: dequantize = { TasksVisionKernelsAVX512.qs8F32VCvt($0, $1, count: $2, unsigned: $3,
                                                                         zeroPoint: $4, scale: $5) }
        case .avx2: dequantize = { TasksVisionKernelsAVX2.qs8F32VCvt($0, $1, count: $2, unsigned: $3, zeroPoint: $4,
                                                                     scale: $5) }
        case .neon: dequantize = { TasksVisionKernelsNEON.qs8F32VCvt($0, $1, count: $2, unsigned: $3, zeroPoint: $4,
                                                                     scale: $5) }
        case .portable: dequantize = { TasksVisionKernelsPortable.qs8F32VCvt($0, $1, count: $2, unsigned: $3,
                                                                             zeroPoint: $4, scale: $5) }
        }
        switch set {
        case .avx512: lookup = { TasksVisionKernelsAVX512.x8LUT($0, $1, count: $2, table: $3) }
        case .avx2: lookup = { TasksVisionKernelsAVX2.x8LUT($0, $1, count: $2, table: $3) }
        case .neon, .portable: lookup = nil
        }
        switch set {
        case .avx512:
            depthwiseRowMul16 = DepthwiseRow(cr: TasksVisionKernelsAVX512.qs8DepthwiseMul16Channels,
                                             run: TasksVisionKernelsAVX512.qs8QC8WDepthwiseRowMul16)
        case .avx2:
            depthwiseRowMul16 = DepthwiseRow(cr: TasksVisionKernelsAVX2.qs8DepthwiseMul16Channels,
                                             run: TasksVisionKernelsAVX2.qs8QC8WDepthwiseRowMul16)
        case .neon, .portable:
            depthwiseRowMul16 = nil
        }
        switch set {
        case .avx512:
            depthwiseRow = DepthwiseRow(cr: TasksVisionKernelsAVX512.qs8DepthwiseChannels,
                                        run: TasksVisionKernelsAVX512.qs8QC8WDepthwiseRow)
        case .avx2:
            depthwiseRow = DepthwiseRow(cr: TasksVisionKernelsAVX2.qs8DepthwiseChannels,
                                        run: TasksVisionKernelsAVX2.qs8QC8WDepthwiseRow)
        case .neon:
            depthwiseRow = DepthwiseRow(cr: TasksVisionKernelsNEON.qs8DepthwiseChannels,
                                        run: TasksVisionKernelsNEON.qs8QC8WDepthwiseRow)
        case .portable:
            depthwiseRow = DepthwiseRow(cr: TasksVisionKernelsPortable.qs8DepthwiseChannels,
                                        run: TasksVisionKernelsPortable.qs8QC8WDepthwiseRow)
        }
    }
}
