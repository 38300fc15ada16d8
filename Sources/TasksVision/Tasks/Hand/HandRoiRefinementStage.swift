import TasksVisionEngine
import TasksVisionFormat

/// MediaPipe's `HandRoiRefinementGraph` (hand_landmarker/hand_roi_refinement_graph.cc), which the holistic
/// landmarker runs on the coarse hand region it takes from the pose: the region's rotated crop, letterboxed
/// (keep_aspect_ratio) with a replicated border, through hand_roi_refinement.tflite (the legacy holistic
/// graph's hand_recrop model: 256x256 in, two points out, a centre and a guide), the two points projected
/// through the crop's matrix, and the refined rect: the alignment-point rect of the two points rotated to
/// -90 degrees, shifted up by a tenth and squared on its long side.
struct HandRoiRefinementStage {
    let model: ModelResources
    let range: ImageToTensor.ValueRange

    init(_ model: ModelResources) throws {
        let outs = model.interpreter.outputs
        guard model.interpreter.inputs.count == 1, model.inputWidth > 0, model.inputHeight > 0, outs.count == 1,
              outs[0].elementCount == 4 else {
            throw VisionTaskError.invalidModel("\(model.name) is not a hand ROI refinement model (an image in, "
                                               + "two points out; outputs \(outs.map(\.shape)))")
        }
        self.model = model
        // MediaPipe's preprocessing refuses a float input without normalization metadata; the legacy graph fed
        // the same model [0, 1].
        try model.requireFloat32("hand ROI refinement")
        range = try model.inputRange(default: .init(min: 0, max: 1))
    }

    /// The refined hand rect of a coarse one (normalized, stored pixels); nil for a zero rect (MediaPipe's
    /// image-to-tensor step skips those).
    func refine(_ image: MPImage, rect: NormalizedRect) -> NormalizedRect? {
        guard rect.width != 0 || rect.height != 0 else { return nil }
        let W = Float(image.pixelWidth), H = Float(image.pixelHeight)
        var roi = RotatedRect(centerX: rect.xCenter * W, centerY: rect.yCenter * H, width: rect.width * W,
                              height: rect.height * H, rotation: rect.rotation)
        let (tw, th) = (model.inputWidth, model.inputHeight)
        // keep_aspect_ratio: the region grows to the tensor's shape (the holistic graph's regions are square).
        _ = ImageToTensor.padRoi(&roi, tensorWidth: tw, tensorHeight: th)
        let pixels = ImageToTensor.warp(image, roi: roi, width: tw, height: th, border: Self.border)
        let interpreter = model.interpreter
        interpreter.stageInput(0) { ImageToTensor.convert(pixels, range: range, into: $0) }
        interpreter.invoke()
        let local = interpreter.stageOutput(0) {
            TensorsToLandmarks.normalized($0, count: Self.landmarkCount, dimensions: 2, inputWidth: tw,
                                          inputHeight: th)
        }
        // The padding is not removed: the matrix of the padded crop takes the points to the image.
        let matrix = ImageToTensor.transformMatrix(roi, imageWidth: image.pixelWidth, imageHeight: image.pixelHeight,
                                                   flipHorizontally: false)
        let points = LandmarkProjection.project(local, matrix: matrix)
        let detection = LandmarksToDetection.detection(points)
        let aligned = AlignmentPointsRects.rect(center: detection.keypoints[0], scale: detection.keypoints[1],
                                                imageWidth: image.pixelWidth, imageHeight: image.pixelHeight,
                                                targetAngle: Self.targetAngle)
        return Self.transformation.apply(aligned, imageWidth: image.pixelWidth, imageHeight: image.pixelHeight)
    }

    /// `BORDER_REPLICATE` of the image-to-tensor step.
    static let border = ImageToTensor.BorderMode.replicate
    /// The model's two points (`num_landmarks`), x and y each (`normalize_z` 1 leaves the absent z at 0).
    static let landmarkCount = 2
    /// `target_angle=-90` (degrees) of the alignment-point rect, as `DetectionsToRectsCalculator` turns it into
    /// radians: `M_PI * degrees / 180.f` in double, stored in a float.
    static let targetAngle = Float(Double.pi * -90 / 180)
    /// `ScaleAndShiftAndMakeSquareLong(1, 1, 0, -0.1)`.
    static let transformation = RectTransformation(scaleX: 1, scaleY: 1, shiftX: 0, shiftY: -0.1, squareLong: true)
}
