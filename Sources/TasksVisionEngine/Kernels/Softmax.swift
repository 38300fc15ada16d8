/// SOFTMAX over the last axis: exp((x - max) * beta) / sum.
final class SoftmaxLayer: Layer {
    let kind = "SOFTMAX"
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let rows: Int, depth: Int
    let beta: Float

    init(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, rows: Int, depth: Int, beta: Float) {
        self.input = input
        self.output = output
        self.rows = rows
        self.depth = depth
        self.beta = beta
    }

    func run(_ context: RunContext) {
        for r in 0..<rows {
            let x = input + r * depth, y = output + r * depth
            var m = -Float.infinity
            for i in 0..<depth { m = max(m, x[i]) }
            var sum: Float = 0
            for i in 0..<depth { let e = expf((x[i] - m) * beta); y[i] = e; sum += e }
            for i in 0..<depth { y[i] /= sum }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
