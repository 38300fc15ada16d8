import TasksVisionFormat

/// One-operand elementwise ops: RELU, RELU6, RELU_N1_TO_1, LOGISTIC, TANH, NEG, SQRT, RSQRT, HARD_SWISH.
final class UnaryElementwiseLayer: Layer {
    enum Function { case relu, relu6, reluN1To1, logistic, tanh, neg, sqrt, rsqrt, hardSwish }
    let kind: String
    let function: Function
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let count: Int
    /// LOGISTIC as XNNPACK's kernel for this CPU computes it, over a run of floats (nil: the portable formula).
    let sigmoid: ((UnsafePointer<Float>, UnsafeMutablePointer<Float>, Int) -> Void)?
    /// SQRT and RSQRT as XNNPACK's kernels for this CPU compute them (nil: correctly rounded, as TFLite's builtins).
    let squareRoots: XNNPACKElementwise.Variant?
    /// HARD_SWISH from the kernel set (XNNPACK's vhswish: a fused multiply-add, on every set).
    let hardSwish: (UnsafePointer<Float>, UnsafeMutablePointer<Float>, Int) -> Void

    init(kind: String, function: Function, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int,
         kernels: Microkernels = .portable) {
        self.kind = kind
        self.function = function
        self.input = input
        self.output = output
        self.count = count
        sigmoid = kernels.elementwise?.sigmoidRun(on: kernels.features)
        squareRoots = kernels.squareRoots
        hardSwish = kernels.hardSwish
        clampRun = kernels.clamp
    }

    /// The set's clamp kernel (RELU, RELU6, RELU_N1_TO_1).
    let clampRun: (UnsafePointer<Float>, UnsafeMutablePointer<Float>, Int, Float, Float) -> Void

    var flops: Double { Double(count) }

    /// Memory-bound but for the transcendental functions, which cost several times a copy per element.
    var parallelWork: Double {
        let weight: Double = function == .logistic || function == .tanh ? 4 : 1
        return Double(count) * memoryBoundWorkFactor * weight
    }

    /// Floats per work item: 64 KB, enough to repay a claim and to split a large map over the threads. Each element
    /// is computed alone, so how the run is split never changes a value.
    static let floatsPerItem = 16_384

    func run(_ context: RunContext) {
        let per = Self.floatsPerItem
        parallelFor((count + per - 1) / per, context: context) { item, _ in
            let start = item * per
            run(from: start, count: min(per, count - start))
        }
    }

    /// Elements `start..<start + n`.
    private func run(from start: Int, count n: Int) {
        let input = self.input + start, output = self.output + start
        switch function {
        case .relu: clampRun(input, output, n, 0, .infinity)
        case .relu6: clampRun(input, output, n, 0, 6)
        case .reluN1To1: clampRun(input, output, n, -1, 1)
        case .logistic:
            if let sigmoid { sigmoid(input, output, n) } else {
                for i in 0..<n { output[i] = Self.logistic(input[i]) }
            }
        case .tanh: for i in 0..<n { output[i] = tanhf(input[i]) }
        case .neg: for i in 0..<n { output[i] = -input[i] }
        case .sqrt:
            if squareRoots?.squareRoots(input, output, count: n, inverse: false) != true {
                for i in 0..<n { output[i] = input[i].squareRoot() }
            }
        case .rsqrt:
            // TFLite's builtin RSQRT: 1.f / std::sqrt(x), two roundings.
            if squareRoots?.squareRoots(input, output, count: n, inverse: true) != true {
                for i in 0..<n { output[i] = 1 / input[i].squareRoot() }
            }
        case .hardSwish: hardSwish(input, output, n)
        }
    }

    /// 1 / (1 + e^-x), written to avoid overflow for large |x|.
    @inline(__always)
    static func logistic(_ x: Float) -> Float {
        if x >= 0 { return 1 / (1 + expf(-x)) }
        let e = expf(x)
        return e / (1 + e)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
