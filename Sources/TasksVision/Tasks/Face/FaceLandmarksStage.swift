import TasksVisionEngine
import TasksVisionFormat

/// MediaPipe's `SingleFaceLandmarksDetectorGraph` (face_landmarks_detector_graph.cc): the face rect's
/// rotated crop (stretched, replicated border) through face_landmarks_detector.tflite, the presence
/// logit's sigmoid, and the 478 landmarks projected back through the rect (`LandmarkProjectionCalculator`
/// with the image's dimensions). The face landmarker and the holistic landmarker run it on their own rects.
struct FaceLandmarksStage {
    let model: ModelResources
    let range: ImageToTensor.ValueRange
    /// Output indices of the model: landmarks, presence logit, tongue_out.
    let outputs: (landmarks: Int, presence: Int, tongue: Int?)

    static let landmarkCount = 478

    init(_ model: ModelResources) throws {
        let outs = model.interpreter.outputs
        guard let lm = outs.firstIndex(where: { $0.elementCount == Self.landmarkCount * 3 }),
              let presence = outs.indices.first(where: { outs[$0].elementCount == 1 && outs[$0].shape.count == 4 }),
              model.inputWidth > 0, model.inputHeight > 0 else {
            throw VisionTaskError.invalidModel("\(model.name) is not a 478-landmark face mesh model "
                                               + "(outputs \(outs.map(\.shape)))")
        }
        let tongue = outs.indices.first { $0 != presence && outs[$0].elementCount == 1 }
        outputs = (lm, presence, tongue)
        self.model = model
        try model.requireFloat32("the face landmarker")
        range = try model.inputRange(default: .init(min: 0, max: 1))
    }

    /// The model's input for a face rect (the stretched rotated crop); nil for a zero rect.
    func crop(_ image: MPImage, rect: NormalizedRect) -> [UInt8]? {
        ImageToTensor.warp(image, rect: rect, width: model.inputWidth, height: model.inputHeight)
    }

    /// The model on one face rect, with the face whatever its presence; nil for a zero rect. The face's next
    /// frame rect is the face landmarker's (`FaceRects.fromLandmarks`).
    func run(_ image: MPImage, rect: NormalizedRect) -> FacePipeline.Face? {
        guard let pixels = crop(image, rect: rect) else { return nil }
        let interpreter = model.interpreter
        interpreter.stageInput(0) { ImageToTensor.convert(pixels, range: range, into: $0) }
        interpreter.invoke()
        let presence = interpreter.stageOutput(outputs.presence) { TensorsToLandmarks.sigmoid($0[0]) }
        let tongue = outputs.tongue.map { t in interpreter.stageOutput(t) { $0[0] } } ?? 0
        let local = interpreter.stageOutput(outputs.landmarks) {
            TensorsToLandmarks.normalized($0, count: Self.landmarkCount, dimensions: 3,
                                          inputWidth: model.inputWidth, inputHeight: model.inputHeight)
        }
        let projected = LandmarkProjection.project(local, rect: rect, imageWidth: image.pixelWidth,
                                                   imageHeight: image.pixelHeight)
        let next = FaceRects.fromLandmarks(projected, imageWidth: image.pixelWidth, imageHeight: image.pixelHeight)
        return FacePipeline.Face(landmarks: projected, presence: presence, tongueOut: tongue, nextFrameRect: next)
    }

    /// The model on one face rect; nil when the face is not present (presence at or below `minPresence`,
    /// MediaPipe's `ThresholdingCalculator`).
    func landmarks(_ image: MPImage, rect: NormalizedRect, minPresence: Float) -> FacePipeline.Face? {
        run(image, rect: rect).flatMap { Double($0.presence) > Double(minPresence) ? $0 : nil }
    }
}
