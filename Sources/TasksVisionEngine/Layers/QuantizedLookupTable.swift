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

    /// The set's vector lookup (`x8LUT`), or nil for the scalar loop.
    let kernel: ((UnsafePointer<UInt8>, UnsafeMutablePointer<UInt8>, Int, UnsafePointer<UInt8>) -> Void)?

    init(kind: String, input: UnsafeRawPointer, output: UnsafeMutableRawPointer, count: Int, table: [UInt8],
         kernel: ((UnsafePointer<UInt8>, UnsafeMutablePointer<UInt8>, Int, UnsafePointer<UInt8>) -> Void)? = nil) {
        precondition(table.count == 256, "a byte table has 256 entries")
        self.kernel = kernel
        self.kind = kind
        self.input = input.assumingMemoryBound(to: UInt8.self)
        self.output = output.assumingMemoryBound(to: UInt8.self)
        self.count = count
        self.table = table
    }

    var flops: Double { Double(count) }
    var parallelWork: Double { flops * memoryBoundWorkFactor }

    func run(_ context: RunContext) {
        let chunk = 65536, chunks = (count + chunk - 1) / chunk
        table.withUnsafeBufferPointer { t in
            parallelFor(chunks, context: context) { item, _ in
                let first = item * chunk, end = min(count, first + chunk)
                if let kernel, let base = t.baseAddress {
                    kernel(input + first, output + first, end - first, base)
                } else {
                    for i in first..<end { output[i] = t[Int(input[i])] }
                }
            }
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

/// The tables of the byte functions TFLite's built-in kernels compute with fixed-point arithmetic (the delegate does
/// not take them), and XNNPACK's integer LEAKY_RELU, each reproduced value by value.
extension QuantizedLookupTableLayer {
    /// Every byte's value as `from`'s type (an int8 byte as its two's-complement value).
    static func inputValue(_ byte: Int, _ x: QuantizedActivation) -> Int32 {
        x.type == .int8 ? Int32(Int8(truncatingIfNeeded: byte)) : Int32(byte)
    }

    /// TFLite's quantized RELU, RELU6 and RELU_N1_TO_1 (`QuantizedReluX`, reference `ReluX`):
    /// `outputZeroPoint + MultiplyByQuantizedMultiplier(q - inputZeroPoint, inputScale / outputScale)`, clamped to
    /// `outputZeroPoint + roundf(bound / outputScale)` (half away from zero) and the type's range.
    static func tfliteReluTable(from x: QuantizedActivation, to y: QuantizedActivation, low: Float,
                                high: Float?) -> [UInt8] {
        let (multiplier, shift) = QuantizedArithmetic.quantizeMultiplier(Double(x.scale / y.scale))
        let lo = max(y.lo, y.zeroPoint + Int32((low / y.scale).rounded(.toNearestOrAwayFromZero)))
        let hi = high.map { min(y.hi, y.zeroPoint + Int32(($0 / y.scale).rounded(.toNearestOrAwayFromZero))) } ?? y.hi
        return (0..<256).map { byte in
            let v = y.zeroPoint + QuantizedArithmetic.multiplyByQuantizedMultiplier(inputValue(byte, x) - x.zeroPoint,
                                                                                   multiplier, shift)
            return UInt8(truncatingIfNeeded: min(max(v, lo), hi))
        }
    }

    /// XNNPACK's `qs8-vlrelu` / `qu8-vlrelu`: multipliers `lrintf(256 * ratio)` for the positive side and
    /// `lrintf(256 * ratio * alpha)` for the negative one, `(outputZeroPoint << 8 + 128 + (q - inputZeroPoint) * m)
    /// >> 8`, clamped.
    static func xnnpackLeakyReluTable(from x: QuantizedActivation, to y: QuantizedActivation, alpha: Float) -> [UInt8] {
        let positive = x.scale / y.scale, negative = positive * alpha
        let mp = Int32(lrintf(256 * positive)), mn = Int32(lrintf(256 * negative))
        let bias = (y.zeroPoint << 8) + 0x80
        return (0..<256).map { byte in
            let acc = inputValue(byte, x) - x.zeroPoint
            let v = (bias + acc * (acc < 0 ? mn : mp)) >> 8
            return UInt8(truncatingIfNeeded: min(max(v, y.lo), y.hi))
        }
    }

    /// TFLite's quantized HARD_SWISH (reference_ops::HardSwish, which its x86 build runs): 16-bit fixed point with
    /// gemmlowp's rounding, the input on a scale 128 times finer, a "relu-ish" factor in [0, 1] and a final shift.
    static func tfliteHardSwishTable(from x: QuantizedActivation, to y: QuantizedActivation) -> [UInt8] {
        let hires = (1 / Float(128)) * x.scale
        let (outputMultiplier32, outputExponent) = QuantizedArithmetic.quantizeMultiplier(Double(hires / y.scale))
        let (reluishMultiplier32, reluishExponent) = QuantizedArithmetic.quantizeMultiplier(
            Double(hires / (3 / Float(32768))))
        let outputMultiplier = downScale(outputMultiplier32), reluishMultiplier = downScale(reluishMultiplier32)
        return (0..<256).map { byte in
            let input = Int16(truncatingIfNeeded: inputValue(byte, x) - x.zeroPoint)
            let hiresInput = Int16(truncatingIfNeeded: Int32(input) * 128)
            let preshiftOutput = roundingDoublingHighMul16(hiresInput, outputMultiplier)
            var reluish = hiresInput
            if reluishExponent > 0 { reluish = saturatingLeftShift16(reluish, reluishExponent - 1) }
            reluish = roundingDoublingHighMul16(reluish, reluishMultiplier)
            if reluishExponent > 0 { reluish = saturatingLeftShift16(reluish, 1) }
            if reluishExponent < 0 { reluish = roundingDivideByPOT16(reluish, -reluishExponent) }
            reluish = Int16(truncatingIfNeeded: (Int32(reluish) + (1 << 15)) >> 1)
            let product = doublingHighMul16(reluish, preshiftOutput)
            var out = Int32(roundingDivideByPOT16(product, -outputExponent))
            out = Int32(Int16(truncatingIfNeeded: out + y.zeroPoint))
            return UInt8(truncatingIfNeeded: min(max(out, y.lo), y.hi))
        }
    }

    /// `DownScaleInt32ToInt16Multiplier`.
    static func downScale(_ m: Int32) -> Int16 {
        if m >= Int32.max - (1 << 15) { return Int16.max }
        return Int16(truncatingIfNeeded: (m + (1 << 15)) >> 16)
    }

    /// gemmlowp's 16-bit `SaturatingRoundingDoublingHighMul`.
    static func roundingDoublingHighMul16(_ a: Int16, _ b: Int16) -> Int16 {
        if a == b && a == Int16.min { return Int16.max }
        let ab = Int32(a) * Int32(b)
        let nudge: Int32 = ab >= 0 ? 1 << 14 : 1 - (1 << 14)
        return Int16(truncatingIfNeeded: (ab + nudge) / (1 << 15))
    }

    /// TFLite's `SaturatingDoublingHighMul` (rounding toward zero).
    static func doublingHighMul16(_ a: Int16, _ b: Int16) -> Int16 {
        if a == b && a == Int16.min { return Int16.max }
        return Int16(truncatingIfNeeded: (Int32(a) * Int32(b)) / (1 << 15))
    }

    /// gemmlowp's `RoundingDivideByPOT` on 16 bits.
    static func roundingDivideByPOT16(_ x: Int16, _ exponent: Int) -> Int16 {
        let mask = Int32((1 << exponent) - 1), v = Int32(x)
        let remainder = v & mask, threshold = (mask >> 1) + (v < 0 ? 1 : 0)
        return Int16(truncatingIfNeeded: (v >> Int32(exponent)) + (remainder > threshold ? 1 : 0))
    }

    /// TFLite's `SaturatingLeftShift` on 16 bits.
    static func saturatingLeftShift16(_ x: Int16, _ amount: Int) -> Int16 {
        Int16(clamping: Int64(x) * (Int64(1) << Int64(amount)))
    }
}
