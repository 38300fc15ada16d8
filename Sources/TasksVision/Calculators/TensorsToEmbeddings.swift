#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// MediaPipe's `TensorsToEmbeddingsCalculator` (mediapipe/tasks/cc/components/calculators/
/// tensors_to_embeddings_calculator.cc): a head's float tensor as an embedding, L2-normalized and scalar-quantized
/// when asked. The arithmetic is MediaPipe's: the squared norm summed in float in index order, `1 / sqrt` of it
/// (1 for an all-zero vector), each value times that; quantized as `roundf(v * 128)` clamped to [-128, 127].
enum TensorsToEmbeddings {
    /// `GetInverseL2Norm`.
    static func inverseL2Norm(_ values: UnsafeBufferPointer<Float>) -> Float {
        var squared: Float = 0
        for v in values { squared += v * v }
        return squared > 0 ? 1 / squared.squareRoot() : 1
    }

    /// `FillFloatEmbedding`.
    static func floatEmbedding(_ values: UnsafeBufferPointer<Float>, l2Normalize: Bool) -> [Float] {
        let scale = l2Normalize ? inverseL2Norm(values) : 1
        return values.map { $0 * scale }
    }

    /// `FillQuantizedEmbedding`.
    static func quantizedEmbedding(_ values: UnsafeBufferPointer<Float>, l2Normalize: Bool) -> [Int8] {
        let scale = l2Normalize ? inverseL2Norm(values) : 1
        return values.map { v in
            let q = roundf(v * scale * 128)
            // static_cast<int> of a float outside int's range is undefined in C++; clamped first here.
            return Int8(max(-128, min(127, q.isNaN ? 0 : q)))
        }
    }
}

/// MediaPipe's `TensorsDequantizationCalculator`: `scale * (q - zero_point)`, the difference in integers.
enum TensorsDequantization {
    static func dequantize(_ q: UnsafeBufferPointer<UInt8>, scale: Float, zeroPoint: Int,
                           into out: UnsafeMutableBufferPointer<Float>) {
        for i in 0..<min(q.count, out.count) { out[i] = scale * Float(Int(q[i]) - zeroPoint) }
    }
}
