import TasksVisionKernels

// Products as XNNPACK's arm64 Linux build sums them with two sets of accumulators: the products of even k in one
// chain from the bias, those of odd k in another from zero, the two added before the clamp. Its GEMM does so for one
// row on the cores whose `1x8` kernel is its Cortex-A53 or Cortex-A75 assembly; its IGEMM (KxK convolutions) for one
// output pixel, and for fewer than 8 output channels at any number of pixels, on every core measured (Neoverse V1
// and N1), the parity restarting at each tap: the kernel walks the window tap by tap through its indirection buffer,
// and a tap's odd last channel goes to the even chain. One output column at a time, in plain loops: these layers
// are heads and single-row products.

/// Rows of A summed in two chains (see above): per output, the products of even places from the bias and those
/// of odd places from zero, added at the end, then the epilogue. Places count within each tap of `tapLength` floats
/// (the whole row when 0); the row may be `segments` runs (`GEMMArguments.segments`), each a whole number of taps.
/// Weights packed one column per block (`gemmLanesNR`).
public func f32GEMMPairs(_ p: GEMMArguments) {
    let k = p.k, columnFloats = k &+ 1
    let run = k / p.segments, tap = p.tapLength > 0 ? p.tapLength : run
    let clamps = p.lo > -.infinity || p.hi < .infinity
    for r in 0..<p.m {
        let row = p.a + r &* p.lda, c = p.c + r &* p.ldc
        for j in 0..<p.n {
            let column = p.packed + j &* columnFloats
            var even = column[0], odd: Float = 0
            var w = column + 1
            for s in 0..<p.segments {
                var a = row + s &* p.segmentStride
                var left = run
                while left > 0 {
                    let n = Swift.min(tap, left)
                    var i = 0
                    while i &+ 1 < n {
                        even = even.addingProduct(a[i], w[i])
                        odd = odd.addingProduct(a[i &+ 1], w[i &+ 1])
                        i &+= 2
                    }
                    if i < n { even = even.addingProduct(a[i], w[i]) }
                    a += n
                    w += n
                    left &-= n
                }
            }
            c[j] = scalarEpilogue(even + odd, p, row: r, column: j, clamps: clamps)
        }
    }
}
