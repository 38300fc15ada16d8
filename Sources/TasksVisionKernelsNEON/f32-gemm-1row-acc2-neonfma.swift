import TasksVisionKernels

// A product of one row of A as XNNPACK's arm64 Linux build sums it on the cores whose `1x8` kernel (its Cortex-A53
// and Cortex-A75 assembly) keeps two sets of accumulators: the products of even k in one chain from the bias, those
// of odd k in another from zero, the two added before the clamp. XNNPACK's other cores sum one chain.

/// One row of A on the cores whose XNNPACK `1x8` kernel keeps two chains (`CPUFeatures.oneRowGEMMSumsInPairs`):
/// per output, the products of even k from the bias and those of odd k from zero, added at the end, then the
/// epilogue. Weights packed one column per block (`gemmLanesNR`).
public func f32GEMMOneRowPairs(_ p: GEMMArguments) {
    let k = p.k, columnFloats = k &+ 1
    let clamps = p.lo > -.infinity || p.hi < .infinity
    for r in 0..<p.m {
        let a = p.a + r &* p.lda, c = p.c + r &* p.ldc
        for j in 0..<p.n {
            let column = p.packed + j &* columnFloats, w = column + 1
            var even = column[0], odd: Float = 0
            var i = 0
            while i &+ 1 < k {
                even = even.addingProduct(a[i], w[i])
                odd = odd.addingProduct(a[i &+ 1], w[i &+ 1])
                i &+= 2
            }
            if i < k { even = even.addingProduct(a[i], w[i]) }
            let s = even + odd
            c[j] = scalarEpilogue(s, p, row: r, column: j, clamps: clamps)
        }
    }
}
