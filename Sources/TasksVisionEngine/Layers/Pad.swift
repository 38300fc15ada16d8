/// PAD / PADV2 with a constant value, for any rank up to 6: the input is copied
/// into the interior of the output, row by row, and the rest filled.
final class PadLayer: Layer {
    let kind = "PAD"
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let inShape: [Int], outShape: [Int]
    let before: [Int]
    let value: Float

    init(input: UnsafePointer<Float>, inShape: [Int], output: UnsafeMutablePointer<Float>, outShape: [Int],
         before: [Int], value: Float) {
        self.input = input
        self.output = output
        self.inShape = inShape
        self.outShape = outShape
        self.before = before
        self.value = value
    }

    func run(_ context: RunContext) {
        let total = outShape.reduce(1, *)
        output.initialize(repeating: value, count: total)
        let rank = inShape.count
        guard rank > 0 else { output[0] = input[0]; return }
        let inner = inShape[rank - 1]
        let rows = inShape.dropLast().reduce(1, *)
        var outStrides = [Int](repeating: 1, count: rank)
        for i in stride(from: rank - 2, through: 0, by: -1) { outStrides[i] = outStrides[i + 1] * outShape[i + 1] }
        var index = [Int](repeating: 0, count: max(rank - 1, 0))
        for r in 0..<rows {
            var o = before[rank - 1]
            for d in 0..<(rank - 1) { o += (index[d] + before[d]) * outStrides[d] }
            (output + o).update(from: input + r * inner, count: inner)
            var d = rank - 2
            while d >= 0 {
                index[d] += 1
                if index[d] < inShape[d] { break }
                index[d] = 0
                d -= 1
            }
        }
    }
}
