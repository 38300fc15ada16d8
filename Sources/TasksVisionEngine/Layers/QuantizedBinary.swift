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
    let kernel: (QS8BinaryArguments) -> Void
    /// The kernel's runs: the whole tensor when the shapes are equal; else, when one operand repeats a contiguous
    /// trailing block (a per-channel vector, a scalar) of the other, runs of that block's length.
    let runs: (length: Int, swapped: Bool, count: Int)?

    init(kind: String, operation: Operation, a: UnsafeRawPointer, aShape: [Int], aq: QuantizedActivation,
         b: UnsafeRawPointer, bShape: [Int], bq: QuantizedActivation, output: UnsafeMutableRawPointer, outShape: [Int],
         oq: QuantizedActivation, bounds: (min: Int32, max: Int32), kernel: @escaping (QS8BinaryArguments) -> Void) {
        self.kernel = kernel
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
        let aCount = aShape.reduce(1, *), bCount = bShape.reduce(1, *)
        if sameShapes {
            runs = (count, false, 1)
        } else if aCount == count, Self.repeatsTrailingBlock(bShape, of: outShape) {
            runs = (bCount, false, count / max(bCount, 1))
        } else if bCount == count, Self.repeatsTrailingBlock(aShape, of: outShape) {
            runs = (aCount, true, count / max(aCount, 1))
        } else {
            runs = nil
        }
    }

    /// Whether `small` (padded to the output's rank) is 1 in some leading axes and equal to the output in the rest.
    static func repeatsTrailingBlock(_ small: [Int], of out: [Int]) -> Bool {
        guard small.count == out.count else { return false }
        let first = small.firstIndex { $0 != 1 } ?? small.count
        return (first..<out.count).allSatisfy { small[$0] == out[$0] }
    }

    /// The kernel's arguments for `length` values of the output from `a` and `b` (b one value if it has one),
    /// operands swapped when the broadcast one is a (ADD and MUL are symmetric in their parameters).
    func arguments(_ x: UnsafeRawPointer, _ y: UnsafeRawPointer, count: Int, yIsScalar: Bool, swapped: Bool,
                   _ out: UnsafeMutableRawPointer) -> QS8BinaryArguments {
        QS8BinaryArguments(operation: operation == .mul ? .multiply : .add, unsigned: type == .uint8, count: count,
                           a: x, b: y, bIsScalar: yIsScalar, output: out,
                           aMultiplier: swapped ? bMultiplier : aMultiplier,
                           bMultiplier: swapped ? aMultiplier : bMultiplier, bias: bias, shift: shift,
                           aZeroPoint: swapped ? bZeroPoint : aZeroPoint, bZeroPoint: swapped ? aZeroPoint : bZeroPoint,
                           scale: scale, zeroPoint: zeroPoint, min: lo, max: hi)
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
        if let runs {
            let (length, swapped, repeats) = runs
            let big = swapped ? b : a, small = swapped ? a : b
            if length == 1 {
                kernel(arguments(big, small, count: count, yIsScalar: true, swapped: swapped, output))
            } else if length == count {
                // Equal shapes: chunks of the whole.
                let chunk = 16384, chunks = (count + chunk - 1) / chunk
                parallelFor(chunks, context: context) { item, _ in
                    let start = item * chunk, n = min(chunk, count - start)
                    kernel(arguments(big + start, small + start, count: n, yIsScalar: false, swapped: swapped,
                                     output + start))
                }
            } else {
                for r in 0..<repeats {
                    let start = r * length
                    kernel(arguments(big + start, small, count: length, yIsScalar: false, swapped: swapped,
                                     output + start))
                }
            }
            return
        }
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
