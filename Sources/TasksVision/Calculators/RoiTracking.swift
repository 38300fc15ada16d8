/// MediaPipe's `RoiTrackingCalculator` (modules/holistic_landmark/calculators/roi_tracking_calculator.cc)
/// with rect and landmarks requirements: keeps the previous frame's rect (from its landmarks) while the
/// current frame's re-crop rect is close to it (rotation, translation and size within the limits) and
/// the previous landmarks all lie inside the re-crop rect grown by a margin; otherwise takes the
/// re-crop rect. The holistic landmarker tracks its hands and face with it.
public struct RoiTracking: Sendable, Equatable {
    /// `rect_requirements`: the largest change of rotation (degrees), and of position and size as fractions of
    /// the re-crop rect's size.
    public var rotationDegrees: Float, translation: Float, scale: Float
    /// `landmarks_requirements.recrop_rect_margin`: the re-crop rect's growth (negative: shrink) before the
    /// previous landmarks are checked against it.
    public var recropRectMargin: Float

    public init(rotationDegrees: Float, translation: Float, scale: Float, recropRectMargin: Float) {
        self.rotationDegrees = rotationDegrees; self.translation = translation; self.scale = scale
        self.recropRectMargin = recropRectMargin
    }

    /// holistic_hand_tracking.cc's options.
    public static let holisticHand = RoiTracking(rotationDegrees: 40, translation: 0.2, scale: 0.4,
                                                 recropRectMargin: -0.1)
    /// holistic_face_tracking.cc's options.
    public static let holisticFace = RoiTracking(rotationDegrees: 15, translation: 0.1, scale: 0.3,
                                                 recropRectMargin: -0.2)

    /// The rect to run the landmark model on: nil without a re-crop rect (the object is not on this frame),
    /// the re-crop rect without a previous frame's rect, else whichever the requirements choose.
    public func trackingRect(previousLandmarks: [NormalizedLandmark]?, previousRect: NormalizedRect?,
                             recrop: NormalizedRect?, imageWidth: Int, imageHeight: Int) -> NormalizedRect? {
        guard let recrop else { return nil }
        guard let previousRect else { return recrop }
        let rectOK = rectRequirementsSatisfied(previousRect, recrop, imageWidth: imageWidth, imageHeight: imageHeight)
        let landmarksOK = landmarksRequirementsSatisfied(previousLandmarks ?? [], recrop, imageWidth: imageWidth,
                                                         imageHeight: imageHeight)
        return rectOK && landmarksOK ? previousRect : recrop
    }

    /// Both rects turned so the re-crop rect is upright; the changes measured along its axes, in pixels.
    func rectRequirementsSatisfied(_ prev: NormalizedRect, _ recrop: NormalizedRect, imageWidth: Int,
                                   imageHeight: Int) -> Bool {
        let w = Float(imageWidth), h = Float(imageHeight)
        let rotation = -recrop.rotation
        let cosa = FloatMath.cos(rotation), sina = FloatMath.sin(rotation)
        let prevX = prev.xCenter * w * cosa - prev.yCenter * h * sina
        let prevY = prev.xCenter * w * sina + prev.yCenter * h * cosa
        let prevWidth = prev.width * w, prevHeight = prev.height * h
        // `rotation() / M_PI * 180.f`: a float over a double, in double.
        let prevRotation = Float(Double(prev.rotation) / Double.pi * 180)
        let recropX = recrop.xCenter * w * cosa - recrop.yCenter * h * sina
        let recropY = recrop.xCenter * w * sina + recrop.yCenter * h * cosa
        let recropWidth = recrop.width * w, recropHeight = recrop.height * h
        let recropRotation = Float(Double(recrop.rotation) / Double.pi * 180)
        var satisfied = true
        var rotationDiff = prevRotation - recropRotation
        if rotationDiff > 180 { rotationDiff -= 360 }
        if rotationDiff < -180 { rotationDiff += 360 }
        if abs(rotationDiff) > rotationDegrees { satisfied = false }
        if abs(prevX - recropX) > recropWidth * translation { satisfied = false }
        if abs(prevY - recropY) > recropHeight * translation { satisfied = false }
        if abs(prevWidth - recropWidth) > recropWidth * scale { satisfied = false }
        if abs(prevHeight - recropHeight) > recropHeight * scale { satisfied = false }
        return satisfied
    }

    /// Every previous landmark strictly inside the re-crop rect grown by the margin, along its axes.
    func landmarksRequirementsSatisfied(_ landmarks: [NormalizedLandmark], _ recrop: NormalizedRect,
                                        imageWidth: Int, imageHeight: Int) -> Bool {
        let w = Float(imageWidth), h = Float(imageHeight)
        let rotation = -recrop.rotation
        let cosa = FloatMath.cos(rotation), sina = FloatMath.sin(rotation)
        let rectX = recrop.xCenter * w * cosa - recrop.yCenter * h * sina
        let rectY = recrop.xCenter * w * sina + recrop.yCenter * h * cosa
        let rectWidth = recrop.width * w * (1 + recropRectMargin)
        let rectHeight = recrop.height * h * (1 + recropRectMargin)
        let left = rectX - rectWidth * 0.5, right = rectX + rectWidth * 0.5
        let top = rectY - rectHeight * 0.5, bottom = rectY + rectHeight * 0.5
        for lm in landmarks {
            let x = lm.x * w * cosa - lm.y * h * sina
            let y = lm.x * w * sina + lm.y * h * cosa
            if !(left < x && x < right && top < y && y < bottom) { return false }
        }
        return true
    }
}
