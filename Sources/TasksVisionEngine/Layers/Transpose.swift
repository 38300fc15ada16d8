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

    func run(_ context: RunContext) {
        let rank = outShape.count
        guard rank > 0, count > 0 else { if count == 1 { output[0] = input[0] }; return }
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
}
