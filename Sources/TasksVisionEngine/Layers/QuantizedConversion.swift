import TasksVisionFormat

/// QUANTIZE of float32 values as XNNPACK's `f32-qs8-vcvt` / `f32-qu8-vcvt` compute it (the TFLite delegate runs it):
/// `x * (1 / scale)` in float, at most 32767, converted rounding to nearest even (cvtps2dq: out of range or NaN
/// below gives the lowest), plus the zero point with 16-bit saturation, saturated to the output type.
final class QuantizeLayer: Layer {
    let kind = "QUANTIZE"
    let input: UnsafePointer<Float>
    let output: UnsafeMutableRawPointer
    let count: Int
    let inverseScale: Float
    let zeroPoint: Int32
    let lo: Int32, hi: Int32

    init(input: UnsafePointer<Float>, output: UnsafeMutableRawPointer, count: Int, quantization: QuantizedActivation) {
        self.input = input; self.output = output; self.count = count
        inverseScale = 1 / quantization.scale
        zeroPoint = quantization.zeroPoint
        lo = quantization.lo; hi = quantization.hi
    }

    var flops: Double { Double(count) }
    var parallelWork: Double { flops * memoryBoundWorkFactor }

    /// One value, as the kernels compute it.
    @inline(__always) static func quantize(_ x: Float, inverseScale: Float, zeroPoint: Int32, lo: Int32,
                                           hi: Int32) -> Int32 {
        let y = x * inverseScale
        // minps(y, 32767): a NaN gives the second operand, as the comparison does here.
        let bounded = y < 32767 ? y : 32767
        let rounded = bounded.rounded(.toNearestOrEven)
        let q: Int32 = rounded >= -32768 ? Int32(rounded) : -32768
        return min(max(q + zeroPoint, lo), hi)
    }

    func run(_ context: RunContext) {
        let out = output.assumingMemoryBound(to: UInt8.self)
        for i in 0..<count {
            out[i] = UInt8(truncatingIfNeeded: Self.quantize(input[i], inverseScale: inverseScale, zeroPoint: zeroPoint,
                                                             lo: lo, hi: hi))
        }
    }
}

/// DEQUANTIZE to float32 as XNNPACK's `qs8-f32-vcvt` / `qu8-f32-vcvt`: `Float(q - zeroPoint) * scale`, one rounding,
/// on the kernel set's vectors (`QuantizedMicrokernels.dequantize`), in chunks split between threads.
final class DequantizeLayer: Layer {
    let kind = "DEQUANTIZE"
    let input: UnsafeRawPointer
    let output: UnsafeMutablePointer<Float>
    let count: Int
    let quantization: QuantizedActivation
    let kernel: (UnsafeRawPointer, UnsafeMutablePointer<Float>, Int, Bool, Int32, Float) -> Void

    init(input: UnsafeRawPointer, output: UnsafeMutablePointer<Float>, count: Int, quantization: QuantizedActivation,
         kernel: @escaping (UnsafeRawPointer, UnsafeMutablePointer<Float>, Int, Bool, Int32, Float) -> Void) {
        self.input = input; self.output = output; self.count = count; self.quantization = quantization
        self.kernel = kernel
    }

    var flops: Double { Double(count) }
    var parallelWork: Double { flops * memoryBoundWorkFactor }

    func run(_ context: RunContext) {
        let chunk = 65536, chunks = (count + chunk - 1) / chunk
        let unsigned = quantization.type == .uint8
        parallelFor(chunks, context: context) { item, _ in
            let first = item * chunk
            kernel(input + first, output + first, min(chunk, count - first), unsigned, quantization.zeroPoint,
                   quantization.scale)
        }
    }
}

/// QUANTIZE from one quantized tensor to another. Two arithmetics, as the references split the work:
/// - same type and `inputScale / outputScale` within [1/256, 128]: XNNPACK's `qs8-vcvt` / `qu8-vcvt` (the TFLite
///   delegate takes the node): a multiplier `lrintf(256 * ratio)`, `zeroPoint + ((q - inputZeroPoint) * multiplier
///   + 128) >> 8`, clamped;
/// - otherwise (int8 <-> uint8, or a ratio outside that range): TFLite's optimized `Requantize`, `zeroPoint +
///   MultiplyByQuantizedMultiplier(q - inputZeroPoint, ratio)` with the double-rounding fixed-point multiplier: in
///   groups of 16 its NEON path (through NEON_2_SSE on x86: `vqrdmulh`, then a rounding shift, ties toward
///   +infinity), the last `count % 16` values gemmlowp's scalar rounding (ties away from zero).
final class RequantizeLayer: Layer {
    let kind = "QUANTIZE"
    let input: UnsafeRawPointer
    let output: UnsafeMutableRawPointer
    let count: Int
    let from: QuantizedActivation, to: QuantizedActivation
    /// XNNPACK's 8.8 fixed-point multiplier, or nil for TFLite's arithmetic.
    let xnnpackMultiplier: Int32?
    let tflite: (multiplier: Int32, shift: Int)
    /// The output of every possible input byte (the conversion is a function of one byte), for the values TFLite's
    /// vector loop converts and for its scalar tail (the same table but for TFLite's arithmetic).
    private var table = [UInt8](repeating: 0, count: 256)
    private var tailTable = [UInt8](repeating: 0, count: 256)
    /// Values converted by the first table.
    let vectorCount: Int
    /// 0x80 when both tables map every byte to itself with the top bit flipped (0 when they are the identity).
    private(set) var byteFlip: UInt8?

    init(input: UnsafeRawPointer, output: UnsafeMutableRawPointer, count: Int, from: QuantizedActivation,
         to: QuantizedActivation) {
        self.input = input; self.output = output; self.count = count; self.from = from; self.to = to
        let ratio = from.scale / to.scale
        xnnpackMultiplier = Self.runsOnXNNPACK(from: from, to: to)
            ? Int32(lrintf(256 * ratio)) : nil
        tflite = QuantizedArithmetic.quantizeMultiplier(Double(from.scale) / Double(to.scale))
        vectorCount = xnnpackMultiplier == nil ? count / 16 * 16 : count
        for byte in 0..<256 {
            let q = from.type == .int8 ? Int32(Int8(truncatingIfNeeded: byte)) : Int32(byte)
            table[byte] = UInt8(truncatingIfNeeded: convert(q, vectorLane: true))
            tailTable[byte] = UInt8(truncatingIfNeeded: convert(q, vectorLane: false))
        }
        for flip: UInt8 in [0, 0x80] where (0..<256).allSatisfy({
            table[$0] == UInt8($0) ^ flip && tailTable[$0] == UInt8($0) ^ flip
        }) {
            byteFlip = flip
        }
    }

    /// Whether the TFLite delegate gives this conversion to XNNPACK (xnnpack_delegate.cc, QUANTIZE).
    static func runsOnXNNPACK(from: QuantizedActivation, to: QuantizedActivation) -> Bool {
        let ratio = from.scale / to.scale
        return from.type == to.type && ratio >= 1 / 256 && ratio <= 128
    }

    func convert(_ q: Int32, vectorLane: Bool) -> Int32 {
        let value: Int32
        if let m = xnnpackMultiplier {
            value = to.zeroPoint + (((q - from.zeroPoint) * m + 0x80) >> 8)
        } else if vectorLane {
            value = to.zeroPoint + QuantizedArithmetic.neonMultiplyByQuantizedMultiplier(
                q - from.zeroPoint, tflite.multiplier, tflite.shift)
        } else {
            value = to.zeroPoint + QuantizedArithmetic.multiplyByQuantizedMultiplier(q - from.zeroPoint,
                                                                                     tflite.multiplier, tflite.shift)
        }
        return min(max(value, to.lo), to.hi)
    }

    var flops: Double { Double(count) }
    var parallelWork: Double { flops * memoryBoundWorkFactor }

    func run(_ context: RunContext) {
        let x = input.assumingMemoryBound(to: UInt8.self), y = output.assumingMemoryBound(to: UInt8.self)
        if let flip = byteFlip {
            // Every byte's output is the byte with its top bit flipped (uint8 <-> int8 at one scale, zero points
            // 128 apart: a model's uint8 input): eight bytes at a time.
            let raw = UnsafeRawPointer(x), out = UnsafeMutableRawPointer(y)
            let mask = UInt64(flip) &* 0x0101_0101_0101_0101
            var i = 0
            while i + 8 <= count {
                out.storeBytes(of: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ mask, toByteOffset: i,
                               as: UInt64.self)
                i += 8
            }
            while i < count { y[i] = x[i] ^ flip; i += 1 }
            return
        }
        table.withUnsafeBufferPointer { t in
            for i in 0..<vectorCount { y[i] = t[Int(x[i])] }
        }
        tailTable.withUnsafeBufferPointer { t in
            for i in vectorCount..<count { y[i] = t[Int(x[i])] }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif
