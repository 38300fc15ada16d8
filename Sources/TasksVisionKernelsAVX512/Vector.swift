// The AVX-512 kernel set: the templates in Sources/MicrokernelTemplates on 512-bit vectors.
// Package.swift builds this target with `-target-cpu skylake-avx512` on x86-64; nothing here
// runs unless the CPU has AVX-512 F/DQ/BW/VL/CD (`KernelSet.avx512.isSupported`).
typealias Vec = SIMD16<Float>

/// `acc + x * w` rounded once: one fused multiply-add instruction on this set.
@_transparent func madd(_ acc: Vec, _ x: Vec, _ w: Vec) -> Vec { acc.addingProduct(x, w) }
@_transparent func madd(_ acc: Float, _ x: Float, _ w: Float) -> Float { acc.addingProduct(x, w) }

/// Rows of the two-vector GEMM tile: 14 accumulators, with the two weight vectors and a
/// broadcast, fit the set's 32 vector registers.
let wideTileRows = 7
