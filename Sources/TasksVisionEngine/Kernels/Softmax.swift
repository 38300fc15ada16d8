/// SOFTMAX over the last axis: exp((x - max) * beta) / sum. On an FMA kernel set with beta 1
/// (what TFLite delegates to XNNPACK), as XNNPACK computes it: its exp approximation, the sum in
/// the order of the kernel XNNPACK picks on this CPU, and each value times the rounded 1 / sum.
final class SoftmaxLayer: Layer {
    let kind = "SOFTMAX"
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let rows: Int, depth: Int
    let beta: Float
    /// The vector width whose summation order XNNPACK's kernel follows (0: the portable sum).
    let xnnpackLanes: Int

    init(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, rows: Int, depth: Int, beta: Float,
         kernels: Microkernels = .portable) {
        self.input = input
        self.output = output
        self.rows = rows
        self.depth = depth
        self.beta = beta
        xnnpackLanes = beta == 1 ? kernels.elementwise?.lanes ?? 0 : 0
    }

    func run(_ context: RunContext) {
        if xnnpackLanes > 0 {
            for r in 0..<rows {
                let x = input + r * depth, y = output + r * depth
                var m = -Float.infinity
                for i in 0..<depth { m = max(m, x[i]) }
                for i in 0..<depth { y[i] = XNNPACKElementwise.expMinusMax(x[i] - m) }
                let scale = 1 / XNNPACKElementwise.sum(UnsafePointer(y), count: depth, lanes: xnnpackLanes)
                for i in 0..<depth { y[i] *= scale }
            }
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
