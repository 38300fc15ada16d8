import TasksVisionVectorFMA

// The int8 depthwise template of Sources/MicrokernelTemplates on 512-bit vectors: 16 channels a block, sign-extended
// to 32-bit lanes and multiplied (`vpmovsxbd`, `vpmulld`), as XNNPACK's `avx512skx_mul32` kernels.

typealias QDSums = SIMD16<Int32>
typealias QDFloats = SIMD16<Float>
typealias QDBytes = SIMD16<Int8>
typealias SIMDQDUnsigned = SIMD16<UInt8>

/// The 16-bit depthwise template's vectors: 32 channels a block, products in 16-bit lanes (AVX-512 BW's `vpmullw`).
typealias QMBytes = SIMD32<Int8>
typealias QMWords = SIMD32<Int16>
typealias QMHalfWords = SIMD16<Int16>
@_transparent func qs8WidenToWords(_ b: QMBytes) -> QMWords { widenBytes(b) }

/// The table lookup's vectors (`x8-lut`): 64 bytes, `vpshufb` on AVX-512 BW.
typealias LUTBytes = SIMD64<UInt8>
typealias LUTIndices = SIMD64<Int8>
