import TasksVisionFormat
import TasksVisionKernels

/// An 8-bit ADD or SUB as XNNPACK's `qs8-vadd` / `qu8-vadd` compute it, all in 32-bit integers: each operand's
/// `inputScale / outputScale` as a multiplier of 20 significant bits and a shared right shift,
/// `(bias + a * aMultiplier + b * bMultiplier) >> shift` (the bias folds in the zero points and the rounding half),
/// plus the output zero point with 16-bit saturation, clamped (SUB negates b's multiplier). A fused activation is
/// XNNPACK's separate clamp, its bounds `xnnpackActivationBounds`.
///
/// An 8-bit MUL as XNNPACK's `qs8-vmul ... fp32`: `(a - aZeroPoint) * (b - bZeroPoint)` in 32 bits, times
/// `aScale * bScale / outputScale` in float, rounded to nearest even, plus the zero point, clamped.
///
/// NumPy broadcasting as the float layer's (`BinaryElementwiseLayer.broadcastStrides`).
final class QuantizedBinaryLayer: Layer {
    enum Operation { case add, sub, mul }

    let kind: String
    let operation: Operation
    let a: UnsafeRawPointer, b: UnsafeRawPointer
    let output: UnsafeMutableRawPointer
    let type: TensorType
    let outShape: [Int]
    let aStrides: [Int], bStrides: [Int]
    let count: Int
    let sameShapes: Bool
    // ADD / SUB
    let aMultiplier: Int32, bMultiplier: Int32, bias: Int32, shift: Int32
    // MUL
    let aZeroPoint: Int32, bZeroPoint: Int32, scale: Float
    let zeroPoint: Int32, lo: Int32, hi: Int32

    init(kind: String, operation: Operation, a: UnsafeRawPointer, aShape: [Int], aq: QuantizedActivation,
         b: UnsafeRawPointer, bShape: [Int], bq: QuantizedActivation, output: UnsafeMutableRawPointer, outShape: [Int],
         oq: QuantizedActivation, bounds: (min: Int32, max: Int32)) {
        self.kind = kind; self.operation = operation
        self.a = a; self.b = b; self.output = output; type = oq.type
        self.outShape = outShape
        count = outShape.reduce(1, *)
        sameShapes = aShape.reduce(1, *) == count && bShape.reduce(1, *) == count
        aStrides = BinaryElementwiseLayer.broadcastStrides(aShape, to: outShape)
        bStrides = BinaryElementwiseLayer.broadcastStrides(bShape, to: outShape)
        zeroPoint = oq.zeroPoint; lo = bounds.min; hi = bounds.max
        aZeroPoint = aq.zeroPoint; bZeroPoint = bq.zeroPoint
        scale = aq.scale * bq.scale / oq.scale
        // xnn_init_qs8_add_minmax_scalar_params (b's scale negated for SUB).
        let aRatio = aq.scale / oq.scale, bRatio = (operation == .sub ? -bq.scale : bq.scale) / oq.scale
        let largest = max(abs(aRatio), abs(bRatio))
        let exponent = Int32(largest.bitPattern >> 23) - 127
        let s = 20 - exponent
        func multiplier(_ ratio: Float) -> Int32 {
            let m = Int32(lrintf(Float(bitPattern: abs(ratio).bitPattern &+ (UInt32(bitPattern: s) << 23))))
            return ratio.sign == .minus ? -m : m
        }
        aMultiplier = multiplier(aRatio); bMultiplier = multiplier(bRatio); shift = s
        bias = (Int32(1) << (s - 1)) &- aMultiplier &* aq.zeroPoint &- bMultiplier &* bq.zeroPoint
    }

    /// Whether XNNPACK's ADD parameters exist for these scales (its asserts: each ratio in [2^-10, 2^8)).
    static func addRatiosSupported(_ aq: QuantizedActivation, _ bq: QuantizedActivation,
                                   _ oq: QuantizedActivation) -> Bool {
        let ra = aq.scale / oq.scale, rb = bq.scale / oq.scale
        return ra >= 0x1p-10 && ra < 0x1p8 && rb >= 0x1p-10 && rb < 0x1p8
    }

    var flops: Double { Double(count) }
    var parallelWork: Double { flops * memoryBoundWorkFactor }

    @inline(__always) private func combine(_ x: Int32, _ y: Int32) -> Int32 {
        let v: Int32
        switch operation {
        case .add, .sub:
            let acc = (bias &+ x &* aMultiplier &+ y &* bMultiplier) >> shift
            // packs_epi32 then adds_epi16: 16-bit saturation before the zero point.
            v = min(max(min(max(acc, -32768), 32767) + zeroPoint, -32768), 32767)
        case .mul:
            let product = (x &- aZeroPoint) &* (y &- bZeroPoint)
            v = Int32(requantizeQS8Wide(product, scale: scale, zeroPoint: zeroPoint))
        }
        return min(max(v, lo), hi)
    }

    func run(_ context: RunContext) {
        if type == .int8 {
            run(a.assumingMemoryBound(to: Int8.self), b.assumingMemoryBound(to: Int8.self),
                output.assumingMemoryBound(to: Int8.self))
        } else {
            run(a.assumingMemoryBound(to: UInt8.self), b.assumingMemoryBound(to: UInt8.self),
                output.assumingMemoryBound(to: UInt8.self))
        }
    }

    private func run<T: FixedWidthInteger>(_ x: UnsafePointer<T>, _ y: UnsafePointer<T>,
                                           _ out: UnsafeMutablePointer<T>) {
        if sameShapes {
            for i in 0..<count { out[i] = T(truncatingIfNeeded: combine(Int32(x[i]), Int32(y[i]))) }
            return
        }
        let rank = outShape.count
        var index = [Int](repeating: 0, count: rank)
        var ai = 0, bi = 0
        for i in 0..<count {
            out[i] = T(truncatingIfNeeded: combine(Int32(x[ai]), Int32(y[bi])))
            var d = rank - 1
            while d >= 0 {
                index[d] += 1; ai += aStrides[d]; bi += bStrides[d]
                if index[d] < outShape[d] { break }
                ai -= aStrides[d] * outShape[d]; bi -= bStrides[d] * outShape[d]; index[d] = 0
                d -= 1
            }
        }
    }
}

/// XNNPACK's fp32 requantization of a 32-bit value before the output clamp: `Float(acc) * scale` at most
/// 32767 - zeroPoint... saturated to 16 bits with the zero point added (the vmul kernels pack to 16 bits first).
@inline(__always) func requantizeQS8Wide(_ acc: Int32, scale: Float, zeroPoint: Int32) -> Int32 {
    let scaled = Float(acc) * scale
    let rounded = scaled.rounded(.toNearestOrEven)
    let q: Int32 = rounded >= 2147483648 || rounded.isNaN ? Int32.min : (rounded < -2147483648 ? Int32.min
                                                                            : Int32(rounded))
    return min(max(min(max(q, -32768), 32767) + zeroPoint, -32768), 32767)
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif
