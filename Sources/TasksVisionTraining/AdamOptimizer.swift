#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Adam as Keras 2.11+ implements it (`tf.keras.optimizers.Adam`, the "adam" Model Maker
/// compiles with): beta1 0.9, beta2 0.999, epsilon 1e-7 added to sqrt(v), no AMSGrad; the step
/// count runs across epochs and the bias corrections fold into the rate:
/// `alpha = lr * sqrt(1 - beta2^t) / (1 - beta1^t)`, `w -= alpha * m / (sqrt(v) + epsilon)`.
public struct AdamOptimizer: Sendable {
    public var beta1 = 0.9
    public var beta2 = 0.999
    public var epsilon = 1e-7
    /// Steps taken so far.
    public private(set) var iterations = 0
    private var m: [[Double]] = []
    private var v: [[Double]] = []

    public init() {}

    /// One step on every parameter array, `gradients[i]` matching `parameters[i]`.
    mutating func step(_ parameters: inout [[Double]], _ gradients: [[Double]], learningRate: Double) {
        if m.isEmpty {
            m = parameters.map { [Double](repeating: 0, count: $0.count) }
            v = m
        }
        iterations += 1
        let t = Double(iterations)
        let alpha = learningRate * (1 - pow(beta2, t)).squareRoot() / (1 - pow(beta1, t))
        for i in parameters.indices {
            for j in parameters[i].indices {
                let g = gradients[i][j]
                m[i][j] += (g - m[i][j]) * (1 - beta1)
                v[i][j] += (g * g - v[i][j]) * (1 - beta2)
                parameters[i][j] -= m[i][j] * alpha / (v[i][j].squareRoot() + epsilon)
            }
        }
    }
}
