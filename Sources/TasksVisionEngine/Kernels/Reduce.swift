/// MEAN, REDUCE_MAX, REDUCE_MIN over any set of axes. The output layout is the
/// same with or without `keep_dims`, so only the reduced axes matter here.
final class ReduceLayer: Layer {
    enum Function { case mean, max, min }
    let kind: String
    let function: Function
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let inShape: [Int]
    let reduced: [Bool]
    let outCount: Int

    init(kind: String, function: Function, input: UnsafePointer<Float>, inShape: [Int], axes: Set<Int>, output: UnsafeMutablePointer<Float>) {
        self.kind = kind
        self.function = function
        self.input = input
        self.output = output
        self.inShape = inShape
        self.reduced = (0..<inShape.count).map { axes.contains($0) }
        self.outCount = zip(inShape, reduced).reduce(1) { $0 * ($1.1 ? 1 : $1.0) }
    }

    func run(_ context: RunContext) {
        let rank = inShape.count
        let initial: Float = function == .max ? -.infinity : (function == .min ? .infinity : 0)
        output.initialize(repeating: initial, count: outCount)
        // Output strides along kept axes, 0 along reduced ones.
        var outStrides = [Int](repeating: 0, count: rank)
        var s = 1
        for d in stride(from: rank - 1, through: 0, by: -1) where !reduced[d] { outStrides[d] = s; s *= inShape[d] }
        let count = inShape.reduce(1, *)
        var index = [Int](repeating: 0, count: rank)
        var o = 0
        for i in 0..<count {
            let v = input[i]
            switch function {
            case .mean: output[o] += v
            case .max: if v > output[o] { output[o] = v }
            case .min: if v < output[o] { output[o] = v }
            }
            var d = rank - 1
            while d >= 0 {
                index[d] += 1
                o += outStrides[d]
                if index[d] < inShape[d] { break }
                o -= outStrides[d] * inShape[d]
                index[d] = 0
                d -= 1
            }
        }
        if function == .mean {
            let n = Float(max(count / max(outCount, 1), 1))
            for i in 0..<outCount { output[i] /= n }
        }
    }
}
