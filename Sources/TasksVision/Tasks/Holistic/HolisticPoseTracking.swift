/// The pose part of the holistic landmarker, as holistic_pose_tracking.cc builds it: the pose detector only
/// while no region is carried from the previous frame, the landmark model on that region, then the next
/// frame's region from the auxiliary landmarks after smoothing, and the landmarks, world landmarks and mask
/// smoothed over time. A first frame (and every image-mode image, which starts afresh) passes through the
/// filters unchanged, up to the round trip of normalized landmarks through pixels.
struct HolisticPoseTracking {
    /// What one frame gives: 33 landmarks (normalized) and world landmarks, both smoothed, and the mask when
    /// asked for (the image's size, smoothed with the previous one).
    struct Output {
        var landmarks: [NormalizedLandmark]
        var worldLandmarks: [Landmark]
        var segmentationMask: Mask?
    }

    let detector: DetectorStage
    let landmarksStage: PoseLandmarksStage
    let minPresence: Float
    let segmentation: Bool

    /// The region from the previous frame's auxiliary landmarks (the loopback's ROI).
    private(set) var previousRoi: NormalizedRect?
    /// The mask of the last frame that had one, smoothed (the mask loopback ticks on masks).
    var previousMask: Mask?
    /// The smoothing of holistic_pose_tracking.cc, with its comments' alphas: auxiliary landmarks from about
    /// 0.002 (static) to 0.68 (fast); landmarks 0.01 to 0.94; world landmarks 0.02 to 0.8.
    var auxiliarySmoothing = LandmarksSmoothing(minCutoff: 0.01, beta: 10, derivateCutoff: 1)
    var visibilitySmoothing = VisibilitySmoothing(alpha: 0.1)
    var landmarkSmoothing = LandmarksSmoothing(minCutoff: 0.05, beta: 80, derivateCutoff: 1)
    var worldVisibilitySmoothing = VisibilitySmoothing(alpha: 0.1)
    var worldSmoothing = LandmarksSmoothing(minCutoff: 0.1, beta: 40, derivateCutoff: 1, disableValueScaling: true)
    /// How many frames ran the pose detector.
    private(set) var detectorRuns = 0

    /// `kRoiFromDetectionScaleFactor` and `kRoiFromLandmarksScaleFactor`, squared on the long side.
    static let roiTransformation = RectTransformation(scaleX: 1.25, scaleY: 1.25, squareLong: true)

    init(detector: DetectorStage, landmarksStage: PoseLandmarksStage, minPresence: Float, segmentation: Bool) {
        self.detector = detector
        self.landmarksStage = landmarksStage
        self.minPresence = minPresence
        self.segmentation = segmentation
    }

    /// The region the landmark model runs on: the previous frame's, else the first pose detection's (its
    /// alignment-point rect, scaled by 1.25 and squared); nil when there is neither.
    mutating func region(_ image: MPImage) -> NormalizedRect? {
        if let previousRoi { return previousRoi }
        detectorRuns += 1
        // The detector graph removes the letterbox only; the image here is upright, so that is exact.
        guard let first = detector.run(image).letterboxRemoved().first, first.keypoints.count >= 2 else { return nil }
        return PosePipeline.rect(detection: first, imageWidth: image.pixelWidth, imageHeight: image.pixelHeight)
    }

    /// One frame at `timestampMicroseconds`; nil when no pose is found.
    mutating func track(_ image: MPImage, timestampMicroseconds t: Int64) -> Output? {
        let (w, h) = (image.pixelWidth, image.pixelHeight)
        let roi = region(image)
        previousRoi = nil
        guard let roi, let pose = landmarksStage.landmarks(image, rect: roi, minPresence: minPresence,
                                                           segmentation: segmentation) else {
            // The smoothing nodes fed the image size reset on a frame without landmarks; the visibility
            // filters and the world-landmark filter get no packet and keep their state.
            auxiliarySmoothing.reset()
            landmarkSmoothing.reset()
            return nil
        }
        // The scale rect of the raw auxiliary landmarks (not scaled); the next frame's region from the smoothed ones.
        let aux = pose.auxiliary
        let scaleRoi = AlignmentPointsRects.rect(center: SIMD2(aux[0].x, aux[0].y), scale: SIMD2(aux[1].x, aux[1].y),
                                                 imageWidth: w, imageHeight: h)
        let smoothedAux = auxiliarySmoothing.smooth(aux, imageWidth: w, imageHeight: h, objectScaleRoi: scaleRoi,
                                                    timestampMicroseconds: t)
        let next = AlignmentPointsRects.rect(center: SIMD2(smoothedAux[0].x, smoothedAux[0].y),
                                             scale: SIMD2(smoothedAux[1].x, smoothedAux[1].y),
                                             imageWidth: w, imageHeight: h)
        previousRoi = Self.roiTransformation.apply(next, imageWidth: w, imageHeight: h)
        let landmarks = landmarkSmoothing.smooth(visibilitySmoothing.smooth(pose.landmarks), imageWidth: w,
                                                 imageHeight: h, objectScaleRoi: scaleRoi, timestampMicroseconds: t)
        let world = worldSmoothing.smooth(worldVisibilitySmoothing.smooth(pose.worldLandmarks),
                                          timestampMicroseconds: t)
        var mask: Mask?
        if let current = pose.segmentationMask {
            mask = smoothed(current)
            previousMask = mask
        }
        return Output(landmarks: landmarks, worldLandmarks: world, segmentationMask: mask)
    }

    /// `SegmentationSmoothingCalculator` (ratio 0.7) against the last mask. MediaPipe fails when that mask has
    /// another size (a video whose frames change size); here the new mask then passes through.
    func smoothed(_ current: Mask) -> Mask {
        guard let previousMask, previousMask.width == current.width, previousMask.height == current.height else {
            return current
        }
        let values = SegmentationSmoothing.smooth(current: current.float32Data, previous: previousMask.float32Data,
                                                  combineWithPreviousRatio: SegmentationSmoothing.holisticCombineRatio)
        return Mask(checkedWidth: current.width, height: current.height, values: values)
    }
}
