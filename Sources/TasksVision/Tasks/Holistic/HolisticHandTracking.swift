/// One hand of the holistic landmarker, as holistic_hand_tracking.cc builds it: a coarse region from the
/// pose's wrist, pinky and index (when the wrist's visibility is above 0.1), refined by the hand ROI
/// refinement model, then kept from the previous frame's hand landmarks while `RoiTracking` allows; the
/// hand landmark model on that region, and its world landmarks moved onto the pose's wrist.
struct HolisticHandTracking {
    /// The pose landmarks of one side: wrist, pinky and index (`PoseIndices`).
    struct Side: Sendable, Equatable {
        let wrist: Int, pinky: Int, index: Int
        /// kLeftWrist, kLeftPinky1, kLeftIndex1.
        static let left = Side(wrist: 15, pinky: 17, index: 19)
        /// kRightWrist, kRightPinky1, kRightIndex1.
        static let right = Side(wrist: 16, pinky: 18, index: 20)
    }

    /// One frame's hand: 21 landmarks (normalized) and world landmarks aligned with the pose's.
    struct Output {
        var landmarks: [NormalizedLandmark]
        var worldLandmarks: [Landmark]
    }

    let side: Side
    /// The previous frame's landmarks (the loopback ticks every frame, so one frame without the hand drops them).
    private(set) var previousLandmarks: [NormalizedLandmark]?

    /// `IsOverThreshold(visibility, 0.1)` (a double threshold).
    static let minWristVisibility = 0.1
    /// The coarse region from the pose: `ScaleAndShiftAndMakeSquareLong(2.7, 2.7, 0, -0.1)`.
    static let roiFromPose = RectTransformation(scaleX: 2.7, scaleY: 2.7, shiftX: 0, shiftY: -0.1, squareLong: true)

    init(side: Side) { self.side = side }

    /// The coarse hand region from the pose landmarks (normalized, stored pixels); nil when the wrist is not
    /// visible enough or the landmarks are too few.
    func regionFromPose(_ pose: [NormalizedLandmark], imageWidth w: Int, imageHeight h: Int) -> NormalizedRect? {
        guard pose.indices.contains(max(side.wrist, side.pinky, side.index)) else { return nil }
        let palm = [pose[side.wrist], pose[side.pinky], pose[side.index]]
        guard Double(palm[0].visibility ?? 0) > Self.minWristVisibility,
              let rect = HandDetectionsFromPoseToRects.rect(LandmarksToDetection.detection(palm), imageWidth: w,
                                                            imageHeight: h) else { return nil }
        return Self.roiFromPose.apply(rect, imageWidth: w, imageHeight: h)
    }

    /// The previous frame's hand rect (`HandLandmarksToRectCalculator`, then scaled by 2, shifted up by a tenth
    /// and squared).
    static func previousRect(_ landmarks: [NormalizedLandmark], imageWidth w: Int,
                             imageHeight h: Int) -> NormalizedRect {
        RectTransformation.handNextFrame.apply(HandLandmarksToRect.rect(landmarks, imageWidth: w, imageHeight: h),
                                               imageWidth: w, imageHeight: h)
    }

    /// One frame, given the pose's (smoothed) landmarks and world landmarks; nil when the hand is not found.
    mutating func track(_ image: MPImage, pose: [NormalizedLandmark], poseWorld: [Landmark],
                        refinement: HandRoiRefinementStage, landmarks stage: HandLandmarksStage,
                        minPresence: Float) -> Output? {
        let (w, h) = (image.pixelWidth, image.pixelHeight)
        let previous = previousLandmarks
        previousLandmarks = nil
        guard let coarse = regionFromPose(pose, imageWidth: w, imageHeight: h),
              let recrop = refinement.refine(image, rect: coarse),
              let rect = RoiTracking.holisticHand.trackingRect(
                previousLandmarks: previous, previousRect: previous.map { Self.previousRect($0, imageWidth: w,
                                                                                             imageHeight: h) },
                recrop: recrop, imageWidth: w, imageHeight: h),
              let hand = stage.landmarks(image, rect: rect, minPresence: minPresence) else { return nil }
        previousLandmarks = hand.landmarks
        let world = AlignHandToPoseInWorld.align(hand.worldLandmarks, pose: poseWorld, poseWrist: side.wrist)
        return Output(landmarks: hand.landmarks, worldLandmarks: world)
    }
}
