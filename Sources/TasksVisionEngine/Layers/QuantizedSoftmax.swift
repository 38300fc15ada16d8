import Foundation
import TasksVisionFormat

/// 8-bit SOFTMAX as TFLite's built-in kernel computes it on x86 (`optimized_ops::Softmax` with the float table of
/// `PopulateSoftmaxLookupTable`; the delegate does not take quantized softmax): per row, `expf(-inputScale * beta *
/// (max - q))` from a 256-entry table, summed in float in order, `1 / (sum * outputScale)`, each value times it,
/// rounded (int8: half away from zero; uint8: `+ 0.5` truncated), plus the output zero point, clamped.
final class QuantizedSoftmaxLayer: Layer {
    let kind = "SOFTMAX"
    let input: UnsafeRawPointer
    let output: UnsafeMutableRawPointer
    let rows: Int, depth: Int
    let inputType: TensorType, outputType: TensorType
    let outputScale: Float, outputZeroPoint: Int32
    /// `table[255 - v] = expf(-inputScale * beta * v)`.
    let table: [Float]

    init(input: UnsafeRawPointer, output: UnsafeMutableRawPointer, rows: Int, depth: Int, beta: Float,
         from: QuantizedActivation, to: QuantizedActivation) {
        self.input = input; self.output = output; self.rows = rows; self.depth = depth
        inputType = from.type; outputType = to.type
        outputScale = to.scale; outputZeroPoint = to.zeroPoint
        let scale = -from.scale * beta
        var t = [Float](repeating: 0, count: 256)
        for v in 0...255 { t[255 - v] = expf(scale * Float(v)) }
        table = t
    }

    var flops: Double { Double(rows * depth) * 4 }
    var parallelWork: Double { flops * memoryBoundWorkFactor }

    func run(_ context: RunContext) {
        switch (inputType == .int8, outputType == .int8) {
        case (true, true): run(Int8.self, Int8.self)
        case (true, false): run(Int8.self, UInt8.self)
        case (false, true): run(UInt8.self, Int8.self)
        case (false, false): run(UInt8.self, UInt8.self)
        }
    }

    private func run<In: FixedWidthInteger, Out: FixedWidthInteger>(_: In.Type, _: Out.Type) {
        let x = input.assumingMemoryBound(to: In.self), y = output.assumingMemoryBound(to: Out.self)
        let lo = Int32(Out.min), hi = Int32(Out.max)
        table.withUnsafeBufferPointer { t in
            for r in 0..<rows {
                let row = x + r * depth, out = y + r * depth
                var largest = Int32(In.min)
                for j in 0..<depth { largest = max(largest, Int32(row[j])) }
                let base = 255 - Int(largest)
                var sum: Float = 0
                for j in 0..<depth { sum += t[base + Int(row[j])] }
                let inverse = 1 / (sum * outputScale)
                for j in 0..<depth {
                    let p = t[base + Int(row[j])] * inverse
                    let rounded: Int32 = Out.self == UInt8.self
                        ? Int32(truncatingIfNeeded: Int64(p + 0.5)) : Int32(p.rounded(.toNearestOrAwayFromZero))
                    out[j] = Out(truncatingIfNeeded: min(max(rounded + outputZeroPoint, lo), hi))
                }
            }
        }
    }
}
