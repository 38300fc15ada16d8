/// TRANSPOSE: output index (i0, ..., in) reads input index (i_perm^-1...), that is output axis d walks input axis
/// `permutation[d]`. A copy, so every path gives the same bits; the innermost output axis is the inner loop.
final class TransposeLayer: Layer {
    let kind = "TRANSPOSE"
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    /// Output shape and, per output axis, the input stride it steps by.
    let outShape: [Int]
    let inStrides: [Int]
    let count: Int

    init(input: UnsafePointer<Float>, inShape: [Int], permutation: [Int], output: UnsafeMutablePointer<Float>) {
        self.input = input
        self.output = output
        var strides = [Int](repeating: 1, count: inShape.count)
        for d in stride(from: inShape.count - 2, through: 0, by: -1) { strides[d] = strides[d + 1] * inShape[d + 1] }
        outShape = permutation.map { inShape[$0] }
        inStrides = permutation.map { strides[$0] }
        count = inShape.reduce(1, *)
    }

    /// Output axes `(across, down)` when the innermost output axis reads the input with a stride and another output
    /// axis reads it contiguously (a matrix transposed, the blendshapes model's [64, 97] <-> [97, 64]): the copy then
    /// runs in 4 x 4 tiles, each read along input rows and written along output rows.
    var tiledAxes: (inner: Int, contiguous: Int)? {
        let rank = outShape.count
        guard rank >= 2, inStrides[rank - 1] != 1, outShape[rank - 1] >= 4,
              let q = (0..<rank).first(where: { inStrides[$0] == 1 && outShape[$0] > 1 }), outShape[q] >= 4
        else { return nil }
        return (rank - 1, q)
    }

    func run(_ context: RunContext) {
        let rank = outShape.count
        guard rank > 0, count > 0 else { if count == 1 { output[0] = input[0] }; return }
        if let (inner, q) = tiledAxes {
            tiled(inner: inner, contiguous: q)
            return
        }
        let inner = outShape[rank - 1], innerStride = inStrides[rank - 1]
        withUnsafeTemporaryAllocation(of: Int.self, capacity: rank) { index in
            for d in 0..<rank { index[d] = 0 }
            var o = 0, base = 0
            while o < count {
                for j in 0..<inner { output[o + j] = input[base + j * innerStride] }
                o += inner
                // Odometer over the outer output axes.
                var d = rank - 2
                while d >= 0 {
                    index[d] += 1
                    base += inStrides[d]
                    if index[d] < outShape[d] { break }
                    base -= inStrides[d] * outShape[d]
                    index[d] = 0
                    d -= 1
                }
            }
        }
    }

    /// The copy in 4 x 4 tiles over output axes `inner` (the last) and `q` (input stride 1), the other axes walked
    /// as an odometer.
    private func tiled(inner: Int, contiguous q: Int) {
        let rank = outShape.count
        let rows = outShape[q], columns = outShape[inner]
        let rowStride = inStrides[inner]
        // Output strides.
        var outStrides = [Int](repeating: 1, count: rank)
        for d in stride(from: rank - 2, through: 0, by: -1) { outStrides[d] = outStrides[d + 1] * outShape[d + 1] }
        let outRowStride = outStrides[q]
        let others = (0..<rank).filter { $0 != inner && $0 != q }
        let slabs = others.reduce(1) { $0 * outShape[$1] }
        withUnsafeTemporaryAllocation(of: Int.self, capacity: max(others.count, 1)) { index in
            for d in 0..<others.count { index[d] = 0 }
            for _ in 0..<slabs {
                var i0 = 0, o0 = 0
                for (k, d) in others.enumerated() { i0 += index[k] * inStrides[d]; o0 += index[k] * outStrides[d] }
                // Output element (r along q, c along inner) = input[i0 + r + c * rowStride]: 4 x 4 blocks, four
                // input runs transposed in registers into four output runs; the edges element by element.
                let i = input + i0, o = output + o0
                var r = 0
                while r + 4 <= rows {
                    var c = 0
                    while c + 4 <= columns {
                        let s = i + r + c * rowStride
                        let (w0, w1, w2, w3) = transpose(load4(s), load4(s + rowStride), load4(s + 2 * rowStride),
                                                         load4(s + 3 * rowStride))
                        let d = o + r * outRowStride + c
                        store4(w0, d); store4(w1, d + outRowStride)
                        store4(w2, d + 2 * outRowStride); store4(w3, d + 3 * outRowStride)
                        c += 4
                    }
                    for rr in r..<(r + 4) {
                        for cc in c..<columns { o[rr * outRowStride + cc] = i[rr + cc * rowStride] }
                    }
                    r += 4
                }
                for rr in r..<rows { for cc in 0..<columns { o[rr * outRowStride + cc] = i[rr + cc * rowStride] } }
                var k = others.count - 1
                while k >= 0 {
                    index[k] += 1
                    if index[k] < outShape[others[k]] { break }
                    index[k] = 0
                    k -= 1
                }
            }
        }
    }
}
