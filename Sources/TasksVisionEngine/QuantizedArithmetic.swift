import TasksVisionFormat
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// The rounding rules of the two references the quantized ops follow (docs/engine.md, "Quantized models"):
/// XNNPACK's (the TFLite delegate's QS8 operators: float requantization, rounded to nearest even) and TFLite's
/// built-in int8 kernels (fixed-point multipliers, rounding half away from zero). Each is a pure function,
/// written as the C it reproduces evaluates it (float operations rounded one at a time, in the same order).
enum QuantizedArithmetic {
    /// XNNPACK's `xnn_qs8_quantize` / `xnn_qu8_quantize` of a float bound (a fused activation's 0 and 6, a clamp's
    /// limits): `lrintf(clamp(value / scale + zeroPoint, lo, hi))`, ties to even.
    static func xnnpackQuantize(_ value: Float, scale: Float, zeroPoint: Int32, lo: Int32, hi: Int32) -> Int32 {
        let v = value / scale + Float(zeroPoint)
        let clamped = Swift.min(Swift.max(v, Float(lo)), Float(hi))
        return Int32(clamped.rounded(.toNearestOrEven))
    }

    /// The quantized bounds XNNPACK gives a fused activation (RELU, RELU6, RELU_N1_TO_1) on an output of `scale` and
    /// `zeroPoint`, within the type's range [lo, hi].
    static func xnnpackActivationBounds(_ activation: FusedActivation, scale: Float, zeroPoint: Int32,
                                        lo: Int32, hi: Int32) -> (min: Int32, max: Int32)? {
        func q(_ v: Float) -> Int32 { xnnpackQuantize(v, scale: scale, zeroPoint: zeroPoint, lo: lo, hi: hi) }
        switch activation {
        case .none: return (lo, hi)
        case .relu: return (q(0), hi)
        case .relu6: return (q(0), q(6))
        case .reluN1To1: return (q(-1), q(1))
        default: return nil
        }
    }

    /// TFLite's `CalculateActivationRangeQuantized` (kernel_util.cc): `zeroPoint + round(value / scale)` with
    /// rounding half away from zero, intersected with [lo, hi].
    static func tfliteActivationBounds(_ activation: FusedActivation, scale: Float, zeroPoint: Int32,
                                       lo: Int32, hi: Int32) -> (min: Int32, max: Int32)? {
        func q(_ v: Float) -> Int32 {
            zeroPoint + Int32(clamping: Int64((v / scale).rounded(.toNearestOrAwayFromZero)))
        }
        switch activation {
        case .none: return (lo, hi)
        case .relu: return (Swift.max(lo, q(0)), hi)
        case .relu6: return (Swift.max(lo, q(0)), Swift.min(hi, q(6)))
        case .reluN1To1: return (Swift.max(lo, q(-1)), Swift.min(hi, q(1)))
        default: return nil
        }
    }

    /// TFLite's `QuantizeMultiplier` (quantization_util.cc): a positive real multiplier as a Q31 fixed-point
    /// multiplier and a power-of-two exponent, from the double's mantissa rounded half away from zero.
    static func quantizeMultiplier(_ real: Double) -> (multiplier: Int32, shift: Int) {
        guard real > 0 else { return (0, 0) }
        // frexp: real = fraction * 2^exponent, fraction in [0.5, 1).
        let exponent = Int(real.exponent) + 1
        let fraction = real.significand / 2
        var fixed = Int64((fraction * Double(Int64(1) << 31)).rounded(.toNearestOrAwayFromZero))
        var shift = exponent
        if fixed == Int64(1) << 31 { fixed /= 2; shift += 1 }
        if shift < -31 { return (0, 0) }
        return (Int32(fixed), shift)
    }

    /// gemmlowp's `SaturatingRoundingDoublingHighMul`: round(a * b / 2^31), ties away from zero, saturating the one
    /// overflowing case.
    @inline(__always)
    static func saturatingRoundingDoublingHighMul(_ a: Int32, _ b: Int32) -> Int32 {
        if a == b && a == Int32.min { return Int32.max }
        let ab = Int64(a) * Int64(b)
        let nudge: Int64 = ab >= 0 ? 1 << 30 : 1 - (1 << 30)
        // C's division truncates toward zero.
        let sum = ab + nudge
        return Int32(truncatingIfNeeded: sum >= 0 ? sum >> 31 : -((-sum) >> 31))
    }

    /// gemmlowp's `RoundingDivideByPOT`: x / 2^exponent rounded to nearest, ties away from zero.
    @inline(__always)
    static func roundingDivideByPOT(_ x: Int32, _ exponent: Int) -> Int32 {
        let mask = Int32((Int64(1) << exponent) - 1)
        let remainder = x & mask
        let threshold = (mask >> 1) + (x < 0 ? 1 : 0)
        return (x >> Int32(exponent)) + (remainder > threshold ? 1 : 0)
    }

    /// TFLite's `MultiplyByQuantizedMultiplier` (double rounding, TFLite's default build): x times a Q31 multiplier
    /// and a power of two.
    @inline(__always)
    static func multiplyByQuantizedMultiplier(_ x: Int32, _ multiplier: Int32, _ shift: Int) -> Int32 {
        let left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift
        return roundingDivideByPOT(saturatingRoundingDoublingHighMul(x &* (Int32(1) << Int32(left)), multiplier),
                                   right)
    }
}

extension QuantizedArithmetic {
    /// NEON's `vqrdmulhq_s32`: `(2 * a * b + 2^31) >> 32`, ties toward +infinity, saturating the one overflow.
    @inline(__always)
    static func neonRoundingDoublingHighMul(_ a: Int32, _ b: Int32) -> Int32 {
        if a == Int32.min && b == Int32.min { return Int32.max }
        return Int32(truncatingIfNeeded: (2 * Int64(a) * Int64(b) + (Int64(1) << 31)) >> 32)
    }

    /// NEON's `vrshlq_s32` by a negative amount: a right shift rounding to nearest, ties toward +infinity.
    @inline(__always)
    static func neonRoundingShiftRight(_ x: Int32, _ amount: Int) -> Int32 {
        amount <= 0 ? x : Int32(truncatingIfNeeded: (Int64(x) + (Int64(1) << (amount - 1))) >> Int64(amount))
    }

    /// TFLite's `MultiplyByQuantizedMultiplier4Rows` (double-rounding build), the vector half of its optimized
    /// `Requantize`: TFLite's x86 build compiles its NEON paths through NEON_2_SSE (`neon_check.h` defines USE_NEON
    /// when SSE4.1 is on), so the lanes round as NEON does rather than as gemmlowp's scalar code.
    static func neonMultiplyByQuantizedMultiplier(_ x: Int32, _ multiplier: Int32, _ shift: Int) -> Int32 {
        let left = max(shift, 0), right = max(-shift, 0)
        return neonRoundingShiftRight(neonRoundingDoublingHighMul(x &<< Int32(left), multiplier), right)
    }
}

/// The value range of an 8-bit quantized type.
extension TensorType {
    /// [min, max] of int8 or uint8 values (nil for other types).
    var quantizedRange: (lo: Int32, hi: Int32)? {
        switch self {
        case .int8: return (-128, 127)
        case .uint8: return (0, 255)
        default: return nil
        }
    }
}
