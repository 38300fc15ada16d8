import TasksVisionKernels
import TasksVisionVectorFMA

// The product TFLite's arm64 build computes with its two-column kernel, which it gives the 1x1 convolutions and fully
// connected layers whose output channels 2-column tiles pad less than 8-column ones (measured under emulation, see
// tools/arm64_check.sh and `Microkernels.plainGEMM`; XNNPACK's x86 build sums one chain):
// per output, the k products in whole blocks of four sum in the four lanes of a vector, lane i taking k = i mod 4
// as one fused multiply-add chain (lane 0 from the bias, the others from zero); the lanes add as (l0 + l1) +
// (l2 + l3); the last k mod 4 products chain onto that sum. Then the residual, the clamp and PReLU, as the tiles'
// epilogue. The weights are packed one column per block (`gemmLanesNR`): the bias, then the column's k weights.

/// Columns per block of the weights `f32GEMMLanes4` reads.
public let gemmLanesNR = 1

private typealias Floats4 = (Float, Float, Float, Float)
@_transparent private func load4(_ p: UnsafePointer<Float>) -> SIMD4<Float> {
    unsafeBitCast(UnsafeRawPointer(p).assumingMemoryBound(to: Floats4.self).pointee, to: SIMD4<Float>.self)
}

public func f32GEMMLanes4(_ p: GEMMArguments) {
    let k = p.k, whole = k & ~3, columnFloats = k &+ 1
    let clamps = p.lo > -.infinity || p.hi < .infinity
    for r in 0..<p.m {
        let a = p.a + r &* p.lda, c = p.c + r &* p.ldc
        for j in 0..<p.n {
            let column = p.packed + j &* columnFloats, w = column + 1
            var lanes = SIMD4<Float>(column[0], 0, 0, 0)
            var i = 0
            while i < whole {
                lanes = fusedMultiplyAdd(load4(a + i), load4(w + i), lanes)
                i &+= 4
            }
            var s = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])
            while i < k {
                s = s.addingProduct(a[i], w[i])
                i &+= 1
            }
            c[j] = scalarEpilogue(s, p, row: r, column: j, clamps: clamps)
        }
    }
}
