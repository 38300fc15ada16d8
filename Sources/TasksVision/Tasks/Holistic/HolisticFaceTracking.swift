/// The face of the holistic landmarker, as holistic_face_tracking.cc builds it: a region from the pose's
/// eleven face landmarks (their box, levelled by the eyes, tripled and squared), the face detector on that
/// region, the detection's keypoints box doubled and squared as the re-crop rect, kept from the previous
/// frame's face landmarks while `RoiTracking` allows; then the face mesh model on that region.
struct HolisticFaceTracking {
    /// The previous frame's 478 landmarks (the loopback ticks every frame).
    private(set) var previousLandmarks: [NormalizedLandmark]?

    /// The pose landmarks of the face: nose to mouth (`SplitToRanges({0, 11})`).
    static let poseFaceLandmarks = 0..<11
    /// Right eye (5) to left eye (2) levelled (`target_angle` 0), tripled and squared.
    static let roiFromPose = RectTransformation(scaleX: 3, scaleY: 3, squareLong: true)
    /// The detection's keypoints box: eye to eye levelled, doubled and squared.
    static let roiFromDetection = RectTransformation(scaleX: 2, scaleY: 2, squareLong: true)
    /// The previous landmarks' box: eye corner 33 to 263 levelled, scaled by 1.5 (not squared).
    static let roiFromLandmarks = RectTransformation(scaleX: 1.5, scaleY: 1.5)

    /// The face region from the pose landmarks (normalized, stored pixels); nil with too few landmarks.
    static func regionFromPose(_ pose: [NormalizedLandmark], imageWidth w: Int, imageHeight h: Int) -> NormalizedRect? {
        guard pose.count >= poseFaceLandmarks.upperBound else { return nil }
        let detection = LandmarksToDetection.detection(Array(pose[poseFaceLandmarks]))
        let rect = DetectionsToRects.rect(detection, imageWidth: w, imageHeight: h, startKeypoint: 5, endKeypoint: 2,
                                          targetAngle: 0)
        return roiFromPose.apply(rect, imageWidth: w, imageHeight: h)
    }

    /// The re-crop rect of the face detector's first detection in `region`; nil when it finds none.
    static func regionFromDetection(_ image: MPImage, region: NormalizedRect,
                                    detector: DetectorStage) -> NormalizedRect? {
        let (w, h) = (image.pixelWidth, image.pixelHeight)
        // ImageToTensorCalculator skips a zero rect, and the detector then gives nothing.
        guard region.width != 0 || region.height != 0 else { return nil }
        let roi = RotatedRect(centerX: region.xCenter * Float(w), centerY: region.yCenter * Float(h),
                              width: region.width * Float(w), height: region.height * Float(h),
                              rotation: region.rotation)
        guard let first = detector.run(image, region: roi).projected().first,
              let rect = DetectionsToRects.keypointsRect(first, imageWidth: w, imageHeight: h, startKeypoint: 0,
                                                         endKeypoint: 1, targetAngle: 0) else { return nil }
        return roiFromDetection.apply(rect, imageWidth: w, imageHeight: h)
    }

    /// The previous frame's face rect.
    static func previousRect(_ landmarks: [NormalizedLandmark], imageWidth w: Int,
                             imageHeight h: Int) -> NormalizedRect {
        let rect = DetectionsToRects.rect(LandmarksToDetection.detection(landmarks), imageWidth: w, imageHeight: h,
                                          startKeypoint: 33, endKeypoint: 263, targetAngle: 0)
        return roiFromLandmarks.apply(rect, imageWidth: w, imageHeight: h)
    }

    /// One frame, given the pose's (smoothed) landmarks; nil when the face is not found.
    mutating func track(_ image: MPImage, pose: [NormalizedLandmark], detector: DetectorStage,
                        landmarks stage: FaceLandmarksStage, minPresence: Float) -> FacePipeline.Face? {
        let (w, h) = (image.pixelWidth, image.pixelHeight)
        let previous = previousLandmarks
        previousLandmarks = nil
        guard let region = Self.regionFromPose(pose, imageWidth: w, imageHeight: h),
              let recrop = Self.regionFromDetection(image, region: region, detector: detector),
              let rect = RoiTracking.holisticFace.trackingRect(
                previousLandmarks: previous, previousRect: previous.map { Self.previousRect($0, imageWidth: w,
                                                                                             imageHeight: h) },
                recrop: recrop, imageWidth: w, imageHeight: h),
              let face = stage.landmarks(image, rect: rect, minPresence: minPresence) else { return nil }
        previousLandmarks = face.landmarks
        return face
    }
}
