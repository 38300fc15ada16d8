// The int8 depthwise template of Sources/MicrokernelTemplates on 512-bit vectors: 16 channels a block, sign-extended
// to 32-bit lanes and multiplied (`vpmovsxbd`, `vpmulld`), as XNNPACK's `avx512skx_mul32` kernels.

typealias QDSums = SIMD16<Int32>
typealias QDFloats = SIMD16<Float>
typealias QDBytes = SIMD16<Int8>
