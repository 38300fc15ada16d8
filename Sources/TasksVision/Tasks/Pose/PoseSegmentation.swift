/// The pose landmarker's segmentation masks, as MediaPipe's Tasks graph computes them
/// (pose_landmarks_detector_graph.cc, `output_segmentation_mask`): the landmark model's
/// segmentation tensor through `TensorsToSegmentationCalculator` (sigmoid), then
/// `InverseMatrixCalculator` on the crop's MATRIX (ImageToTensorCalculator's
/// `GetRotatedSubRectToRectTransformMatrix`, no flip) and `WarpAffineCalculator` (BORDER_ZERO,
/// OUTPUT_SIZE the input image's size) back onto the whole image.
extension PoseLandmarksStage {
    /// The landmark model's segmentation output: the third of its five outputs (the graph's
    /// SplitTensorVectorCalculator), a 1 x H x W x 1 tensor (256 x 256 for BlazePose).
    static let segmentationOutput = 2

    /// The mask of the landmark model's last run on the crop `roi` of `image`, in the image's
    /// stored pixels; nil when the model has no usable segmentation output.
    func segmentationMask(_ image: MPImage, roi: RotatedRect) -> Mask? {
        let interpreter = model.interpreter
        guard interpreter.outputs.count > Self.segmentationOutput else { return nil }
        let shape = interpreter.outputs[Self.segmentationOutput].shape
        // GetHwcFromDims: [H, W, C] or [1, H, W, C].
        let hwc = shape.count == 4 && shape[0] == 1 ? Array(shape[1...]) : shape
        guard hwc.count == 3 else { return nil }
        let raw = interpreter.stageOutput(Self.segmentationOutput) {
            TensorsToSegmentation.mask($0, width: hwc[1], height: hwc[0], channels: hwc[2], activation: .sigmoid)
        }
        let matrix = ImageToTensor.transformMatrix(roi, imageWidth: image.pixelWidth, imageHeight: image.pixelHeight,
                                                   flipHorizontally: false)
        guard let raw, let inverse = InverseMatrix.invert(matrix) else { return nil }
        let warped = WarpAffine.run(raw, width: hwc[1], height: hwc[0], matrix: inverse, outputWidth: image.pixelWidth,
                                    outputHeight: image.pixelHeight)
        return Mask(checkedWidth: image.pixelWidth, height: image.pixelHeight, values: warped)
    }
}

extension PosePipeline {
    /// The legacy pose solution's temporal filter (pose_segmentation_filtering.pbtxt), when
    /// `smoothsSegmentation` is set: each pose's mask blended with that pose's previous smoothed
    /// mask; a frame without the pose drops its previous mask (the loopback then has none).
    func smoothSegmentation(_ poses: inout [Pose]) {
        let ratio = SegmentationSmoothing.poseCombineWithPreviousRatio
        var smoothed: [Mask] = []
        for i in poses.indices {
            guard let mask = poses[i].segmentationMask else { continue }
            let previous = i < previousMasks.count && previousMasks[i].width == mask.width
                && previousMasks[i].height == mask.height ? previousMasks[i].float32Data : nil
            let values = SegmentationSmoothing.smooth(current: mask.float32Data, previous: previous,
                                                      combineWithPreviousRatio: ratio)
            let result = Mask(checkedWidth: mask.width, height: mask.height, values: values)
            poses[i].segmentationMask = result
            smoothed.append(result)
        }
        previousMasks = smoothed
    }
}
