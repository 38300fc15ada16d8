import Foundation
import TasksVisionFormat

/// An 8-bit elementwise function of one byte as a 256-entry table, filled at load as the reference fills or
/// computes it. XNNPACK (LOGISTIC, TANH, ELU, which the TFLite delegate takes) runs its float reference on every
/// byte: `x = (q - zeroPoint) * scale`, the function in float (the sigmoid through a double exponential), then
/// `nearbyint(y * (1 / outputScale) + outputZeroPoint)` clamped. `QuantizedOps` fills other tables the same way.
final class QuantizedLookupTableLayer: Layer {
    let kind: String
    let input: UnsafePointer<UInt8>
    let output: UnsafeMutablePointer<UInt8>
    let count: Int
    let table: [UInt8]

    init(kind: String, input: UnsafeRawPointer, output: UnsafeMutableRawPointer, count: Int, table: [UInt8]) {
        precondition(table.count == 256, "a byte table has 256 entries")
        self.kind = kind
        self.input = input.assumingMemoryBound(to: UInt8.self)
        self.output = output.assumingMemoryBound(to: UInt8.self)
        self.count = count
        self.table = table
    }

    var flops: Double { Double(count) }
    var parallelWork: Double { flops * memoryBoundWorkFactor }

    func run(_ context: RunContext) {
        table.withUnsafeBufferPointer { t in
            for i in 0..<count { output[i] = t[Int(input[i])] }
        }
    }

    /// The table of `function` as XNNPACK's reference unary kernels build it (`init_lut_op_with_config`):
    /// indexed by the input byte (an int8 value's two's-complement byte).
    static func xnnpackTable(from x: QuantizedActivation, to y: QuantizedActivation,
                             _ function: (Float) -> Float) -> [UInt8] {
        let inverse = 1 / y.scale
        return (0..<256).map { byte in
            let q = x.type == .int8 ? Int32(Int8(truncatingIfNeeded: byte)) : Int32(byte)
            let real = (Float(q) - Float(x.zeroPoint)) * x.scale
            var v = function(real) * inverse + Float(y.zeroPoint)
            if v.isNaN { v = 0 }
            v = v.rounded(.toNearestOrEven)
            v = min(max(v, Float(y.lo)), Float(y.hi))
            return UInt8(truncatingIfNeeded: Int32(v))
        }
    }

    /// XNNPACK's `SigmoidOp`: 1 past 100, 0 below -100, else `e / (1 + e)` with `e = exp(x)` in double.
    static func xnnpackSigmoid(_ x: Float) -> Float {
        if x > 100 { return 1 }
        if x < -100 { return 0 }
        let e = exp(Double(x))
        return Float(e / (1 + e))
    }
}
