import TasksVisionEngine
import TasksVisionFormat

/// MediaPipe's `SinglePoseLandmarksDetectorGraph` (pose_landmarks_detector_graph.cc): the pose rect's
/// rotated crop through the BlazePose landmark model, the presence score against a threshold, the 39
/// landmarks refined from the heatmap and projected back (33 pose landmarks and 2 auxiliary ones), the
/// world landmarks with the landmarks' visibility and presence, the next frame's rect, and, when asked,
/// the segmentation mask (PoseSegmentation.swift). The pose landmarker and the holistic landmarker run it
/// on their own rects.
struct PoseLandmarksStage {
    let model: ModelResources
    let range: ImageToTensor.ValueRange

    init(_ model: ModelResources) throws {
        let outs = model.interpreter.outputs
        guard outs.count == 5, outs[0].elementCount == 39 * 5, outs[4].elementCount == 39 * 3, outs[3].shape.count == 4,
            outs[3].shape[3] == 39 else {
            throw VisionTaskError.invalidModel(
                "\(model.name) is not a BlazePose landmark model (5 outputs, 39 landmarks)")
        }
        self.model = model
        try model.requireFloat32("the pose landmarker")
        range = try model.inputRange(default: .init(min: 0, max: 1))
    }

    /// The model on one pose rect; nil for a zero rect or when the pose's presence is not above
    /// `minPresence`. With `segmentation`, the pose carries its mask.
    func landmarks(_ image: MPImage, rect: NormalizedRect, minPresence: Float,
                   segmentation: Bool) -> PosePipeline.Pose? {
        let W = Float(image.pixelWidth), H = Float(image.pixelHeight)
        guard rect.width > 0 || rect.height > 0 else { return nil }
        let roi = RotatedRect(centerX: rect.xCenter * W, centerY: rect.yCenter * H, width: rect.width * W,
                              height: rect.height * H, rotation: rect.rotation)
        let (tw, th) = (model.inputWidth, model.inputHeight)
        let pixels = ImageToTensor.warp(image, roi: roi, width: tw, height: th, border: .replicate)
        let interpreter = model.interpreter
        interpreter.stageInput(0) { ImageToTensor.convert(pixels, range: range, into: $0) }
        interpreter.invoke()
        let presence = interpreter.stageOutput(1) { $0[0] }
        guard presence > minPresence else { return nil }
        let raw = interpreter.stageOutput(0) {
            TensorsToLandmarks.normalized($0, count: 39, dimensions: 5, inputWidth: tw, inputHeight: th, normalizeZ: 1,
                                          visibilityPresenceSigmoid: true)
        }
        let heatShape = interpreter.outputs[3].shape
        let refined = interpreter.stageOutput(3) {
            RefineLandmarksFromHeatmap.refine(raw, heatmap: $0, height: heatShape[1], width: heatShape[2],
                                              channels: heatShape[3])
        }
        var world = interpreter.stageOutput(4) { TensorsToLandmarks.world($0, count: 33) }
        for i in 0..<33 {
            world[i].visibility = refined[i].visibility
            world[i].presence = refined[i].presence
        }
        let projected = LandmarkProjection.project(Array(refined[0..<33]), rect: rect)
        let auxiliary = LandmarkProjection.project(Array(refined[33..<35]), rect: rect)
        let next = AlignmentPointsRects.rect(center: SIMD2(auxiliary[0].x, auxiliary[0].y),
                                             scale: SIMD2(auxiliary[1].x, auxiliary[1].y),
                                             imageWidth: image.pixelWidth, imageHeight: image.pixelHeight)
        let nextRect = RectTransformation(scaleX: 1.25, scaleY: 1.25, squareLong: true).apply(next,
            imageWidth: image.pixelWidth, imageHeight: image.pixelHeight)
        var pose = PosePipeline.Pose(landmarks: projected,
                                     worldLandmarks: LandmarkProjection.projectWorld(world, rect: rect),
                                     auxiliary: auxiliary, presence: presence, nextFrameRect: nextRect)
        if segmentation { pose.segmentationMask = segmentationMask(image, roi: roi) }
        return pose
    }
}
