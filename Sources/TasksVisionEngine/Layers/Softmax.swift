/// SOFTMAX over the last axis: exp((x - max) * beta) / sum. On an FMA kernel set with beta 1
/// (what TFLite delegates to XNNPACK), as XNNPACK computes it: its exp approximation, the sum in
/// the order of the kernel XNNPACK picks on this CPU, and each value times the rounded 1 / sum.
final class SoftmaxLayer: Layer {
    let kind = "SOFTMAX"
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let rows: Int, depth: Int
    let beta: Float
    /// XNNPACK's kernels for this CPU (nil: the portable formula).
    let xnnpack: XNNPACKElementwise.Variant?

    init(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, rows: Int, depth: Int, beta: Float,
         kernels: Microkernels = .portable) {
        self.input = input
        self.output = output
        self.rows = rows
        self.depth = depth
        self.beta = beta
        xnnpack = beta == 1 ? kernels.elementwise : nil
    }

    func run(_ context: RunContext) {
        if let xnnpack {
            for r in 0..<rows { xnnpack.softmax(input + r * depth, output + r * depth, count: depth) }
            return
        }
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
