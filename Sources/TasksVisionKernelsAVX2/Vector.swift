// The AVX2 + FMA3 kernel set: the templates in Sources/MicrokernelTemplates on 256-bit
// vectors. Package.swift builds this target with `-target-cpu haswell` on x86-64; nothing here
// runs unless the CPU has AVX2 and FMA (`KernelSet.avx2.isSupported`).
typealias Vec = SIMD8<Float>

/// `acc + x * w` rounded once: one fused multiply-add instruction on this set.
@_transparent func madd(_ acc: Vec, _ x: Vec, _ w: Vec) -> Vec { acc.addingProduct(x, w) }
@_transparent func madd(_ acc: Float, _ x: Float, _ w: Float) -> Float { acc.addingProduct(x, w) }

/// Rows of the two-vector GEMM tile: 12 accumulators, with the two weight vectors and a
/// broadcast, fit the set's 16 vector registers.
let wideTileRows = 6
