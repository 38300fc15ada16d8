import TasksVisionFormat

/// One-operand elementwise ops: RELU, RELU6, RELU_N1_TO_1, LOGISTIC, TANH.
final class UnaryElementwiseLayer: Layer {
    enum Function { case relu, relu6, reluN1To1, logistic, tanh }
    let kind: String
    let function: Function
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let count: Int
    /// LOGISTIC as XNNPACK's kernel for this CPU computes it (nil: the portable formula).
    let sigmoid: ((Float) -> Float)?

    init(kind: String, function: Function, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int,
         kernels: Microkernels = .portable) {
        self.kind = kind
        self.function = function
        self.input = input
        self.output = output
        self.count = count
        sigmoid = kernels.elementwise?.sigmoid
    }

    var flops: Double { Double(count) }

    func run(_ context: RunContext) {
        switch function {
        case .relu: clamp(0, .infinity)
        case .relu6: clamp(0, 6)
        case .reluN1To1: clamp(-1, 1)
        case .logistic:
            if let sigmoid { for i in 0..<count { output[i] = sigmoid(input[i]) } } else {
                for i in 0..<count { output[i] = Self.logistic(input[i]) }
            }
        case .tanh: for i in 0..<count { output[i] = tanhf(input[i]) }
        }
    }

    /// 1 / (1 + e^-x), written to avoid overflow for large |x|.
    @inline(__always)
    static func logistic(_ x: Float) -> Float {
        if x >= 0 { return 1 / (1 + expf(-x)) }
        let e = expf(x)
        return e / (1 + e)
    }

    @inline(__always)
    func clamp(_ lo: Float, _ hi: Float) {
        let lo8 = SIMD8<Float>(repeating: lo), hi8 = SIMD8<Float>(repeating: hi)
        var i = 0
        while i + 8 <= count {
            let v = load8(input + i)
            store8(clampLanes(v, lo8, hi8), output + i)
            i += 8
        }
        while i < count { output[i] = min(max(input[i], lo), hi); i += 1 }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
