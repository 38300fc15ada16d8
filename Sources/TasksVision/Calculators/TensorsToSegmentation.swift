/// MediaPipe's `TensorsToSegmentationCalculator` on the CPU
/// (tensors_to_segmentation_converter_opencv.cc): one float per pixel of an HWC tensor
/// through the activation, into a `VEC32F1` mask of the tensor's size.
///
/// The calculator then `cv::resize`s the mask to its OUTPUT_SIZE input; the pose graph
/// (pose_landmarks_detector_graph.cc) connects none, so the size is the tensor's and OpenCV's
/// resize to the same size is a copy. That step is not reproduced here.
enum TensorsToSegmentation {
    /// `TensorsToSegmentationCalculatorOptions.Activation`.
    enum Activation: Equatable {
        /// The value as it is (one channel).
        case none
        /// `1.0 / (std::exp(-x) + 1.0)` (one channel), as the pose graph configures it.
        case sigmoid
        /// Of two channels, the probability of `outputLayerIndex` (0 or 1).
        case softmax(outputLayerIndex: Int)
    }

    /// The mask (`width * height` values, row-major), or nil when the tensor is too small or its
    /// channel count does not fit the activation (MediaPipe's RET_CHECKs).
    static func mask(_ tensor: UnsafeBufferPointer<Float>, width: Int, height: Int, channels: Int,
                     activation: Activation) -> [Float]? {
        let count = width * height
        guard width > 0, height > 0, tensor.count >= count * channels else { return nil }
        switch activation {
        case .none:
            guard channels == 1 else { return nil }
            return Array(tensor[0..<count])
        case .sigmoid:
            guard channels == 1 else { return nil }
            // MediaPipe writes `1.0 / (std::exp(-pixel0) + 1.0)`: a float exp, the sum and the
            // quotient in double, rounded to float once on the store.
            return (0..<count).map { i in Float(1.0 / (Double(FloatMath.exp(-tensor[i])) + 1.0)) }
        case .softmax(let index):
            guard channels == 2, index == 0 || index == 1 else { return nil }
            return (0..<count).map { i in
                let p0 = tensor[2 * i], p1 = tensor[2 * i + 1]
                let hi = Swift.max(p0, p1), lo = Swift.min(p0, p1)
                let denominator = 1 + FloatMath.exp(lo - hi)
                return FloatMath.exp(tensor[2 * i + index] - hi) / denominator
            }
        }
    }
}
