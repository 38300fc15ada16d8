import TasksVisionKernels

// The portable int8 GEMM: tiles of 4 rows by one packed block of columns, 32-bit sums in lanes of the block's
// columns, k in groups of 4 as the weights are packed (`QS8PackedWeights` with kr = 4). Any nr divisible by 8.

/// Packing of the portable GEMM's weights (columns per block, k per group).
public let qs8GEMMPortableTile = (nr: 8, kr: 4, inputOffset: Int32(0))

public func qs8QC8WGEMM(_ p: QS8GEMMArguments) {
    let w = p.weights, nr = w.nr, kr = w.kr
    precondition(nr == 8 && kr == 4, "the portable int8 GEMM runs weights packed 8 columns by 4 k")
    let groups = p.k / 4
    for block in p.firstBlock..<p.endBlock {
        let bias = UnsafeRawPointer(w.bias(block)).loadUnaligned(as: SIMD8<Int32>.self)
        let weights = w.weights(block), scales = w.scales(block)
        let columns = Swift.min(nr, w.n &- block &* nr)
        var r = 0
        while r < p.m {
            let rows = Swift.min(4, p.m &- r)
            var acc = (bias, bias, bias, bias)
            for g in 0..<groups {
                let wg = weights + g &* 32
                for t in 0..<4 {
                    var column = SIMD8<Int32>()
                    for j in 0..<8 { column[j] = Int32(wg[j &* 4 &+ t]) }
                    let k = g &* 4 &+ t
                    acc.0 &+= column &* Int32(p.a[r &* p.lda &+ k])
                    if rows > 1 { acc.1 &+= column &* Int32(p.a[(r &+ 1) &* p.lda &+ k]) }
                    if rows > 2 { acc.2 &+= column &* Int32(p.a[(r &+ 2) &* p.lda &+ k]) }
                    if rows > 3 { acc.3 &+= column &* Int32(p.a[(r &+ 3) &* p.lda &+ k]) }
                }
            }
            for i in 0..<rows {
                let sums = i == 0 ? acc.0 : i == 1 ? acc.1 : i == 2 ? acc.2 : acc.3
                let out = p.c + ((r &+ i) &* p.ldc &+ block &* nr)
                for j in 0..<columns {
                    out[j] = requantizeQS8(sums[j], scale: scales[j], zeroPoint: p.output.zeroPoint,
                                           min: p.output.min, max: p.output.max)
                }
            }
            r &+= 4
        }
    }
}
