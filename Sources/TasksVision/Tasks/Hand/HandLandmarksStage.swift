import TasksVisionEngine
import TasksVisionFormat

/// MediaPipe's `SingleHandLandmarksDetectorGraph` (hand_landmarks_detector_graph.cc): the hand rect's
/// rotated crop (stretched, replicated border) through hand_landmarks_detector.tflite, the presence score
/// against a threshold, landmarks and world landmarks projected back through the rect, handedness, and
/// the next frame's rect. The hand landmarker and the holistic landmarker run it on their own rects.
struct HandLandmarksStage {
    let model: ModelResources
    let range: ImageToTensor.ValueRange

    init(_ model: ModelResources) throws {
        guard model.interpreter.outputs.count == 4, model.interpreter.outputs[0].elementCount == 63,
              model.interpreter.outputs[3].elementCount == 63 else {
            throw VisionTaskError.invalidModel("\(model.name) is not a 21-landmark hand model (4 outputs)")
        }
        self.model = model
        try model.requireFloat32("the hand landmarker")
        range = try model.inputRange(default: .init(min: 0, max: 1))
    }

    /// The model's input for one hand rect: the rotated crop, 8-bit RGB; nil for a zero rect (MediaPipe
    /// skips those).
    func crop(_ image: MPImage, rect: NormalizedRect) -> [UInt8]? {
        ImageToTensor.warp(image, rect: rect, width: model.inputWidth, height: model.inputHeight)
    }

    /// The model on one hand rect; nil for a zero rect or when the hand's presence is not above `minPresence`.
    func landmarks(_ image: MPImage, rect: NormalizedRect, minPresence: Float) -> HandPipeline.Hand? {
        crop(image, rect: rect).flatMap { landmarks(image, rect: rect, crop: $0, minPresence: minPresence) }
    }

    /// The model on the crop of one hand rect (`crop(_:rect:)`).
    func landmarks(_ image: MPImage, rect: NormalizedRect, crop pixels: [UInt8],
                   minPresence: Float) -> HandPipeline.Hand? {
        let size = (model.inputWidth, model.inputHeight)
        let interpreter = model.interpreter
        interpreter.stageInput(0) { ImageToTensor.convert(pixels, range: range, into: $0) }
        interpreter.invoke()
        let presence = interpreter.stageOutput(1) { $0[0] }
        guard presence > minPresence else { return nil }
        let raw = interpreter.stageOutput(2) { $0[0] }
        let handedness = raw > 0.5 ? ResultCategory(index: 0, score: raw, categoryName: "Right", displayName: "Right")
            : ResultCategory(index: 1, score: Float(1.0 - Double(raw)), categoryName: "Left", displayName: "Left")
        let local = interpreter.stageOutput(0) {
            TensorsToLandmarks.normalized($0, count: 21, dimensions: 3, inputWidth: size.0, inputHeight: size.1,
                                          normalizeZ: 0.4)
        }
        let world = interpreter.stageOutput(3) { TensorsToLandmarks.world($0, count: 21) }
        let projected = LandmarkProjection.project(local, rect: rect)
        let next = RectTransformation.handNextFrame.apply(
            HandLandmarksToRect.rect(projected, imageWidth: image.pixelWidth, imageHeight: image.pixelHeight),
            imageWidth: image.pixelWidth, imageHeight: image.pixelHeight)
        return HandPipeline.Hand(landmarks: projected,
                                 worldLandmarks: LandmarkProjection.projectWorld(world, rect: rect),
                                 handedness: handedness, presence: presence, nextFrameRect: next)
    }
}
