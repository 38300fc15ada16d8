/// MediaPipe's `SegmentationSmoothingCalculator` on the CPU
/// (segmentation_smoothing_calculator.cc, `RenderCpu`): blends the new mask with the previous
/// smoothed one where the new one is uncertain (values near 0.5), to reduce jitter in video.
///
/// MediaPipe's legacy pose solution runs it on the image-sized masks with
/// `combine_with_previous_ratio: 0.7` (pose_segmentation_filtering.pbtxt), and so does the Tasks
/// HolisticLandmarker graph (holistic_pose_tracking.cc); the Tasks PoseLandmarker graph does not
/// (pose_landmarker_graph.cc has no such node).
enum SegmentationSmoothing {
    /// The legacy pose graph's `combine_with_previous_ratio`.
    static let poseCombineWithPreviousRatio: Float = 0.7
    /// holistic_pose_tracking.cc's `combine_with_previous_ratio`.
    static let holisticCombineRatio: Float = 0.7

    /// The smoothed mask. Without a previous mask of the same size the current one passes through
    /// (MediaPipe passes it through when MASK_PREVIOUS is empty; it rejects a size change).
    static func smooth(current: [Float], previous: [Float]?, combineWithPreviousRatio ratio: Float) -> [Float] {
        guard let previous, previous.count == current.count else { return current }
        return zip(current, previous).map { blend(previous: $1, new: $0, ratio: ratio) }
    }

    /// One pixel. MediaPipe approximates the squared uncertainty
    /// `1 - (1 - H(p))^2` (H the binary entropy) by a polynomial in `(p - 0.5)^2`; the coefficients
    /// are double literals stored in floats, and every operation is a float one.
    @inline(__always) static func blend(previous: Float, new: Float, ratio: Float) -> Float {
        let c1 = Float(5.68842 as Double), c2 = Float(-0.748699 as Double), c3 = Float(-57.8051 as Double)
        let c4 = Float(291.309 as Double), c5 = Float(-624.717 as Double)
        let t = new - 0.5
        let x = t * t
        let polynomial = x * (c1 + x * (c2 + x * (c3 + x * (c4 + x * c5))))
        // std::min(1.0f, v) is `v < 1 ? v : 1`.
        let uncertainty = 1 - (polynomial < 1 ? polynomial : 1)
        return new + (previous - new) * (uncertainty * ratio)
    }
}
