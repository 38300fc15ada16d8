import Foundation
import TasksVisionEngine
import TasksVisionFormat

/// The BlazePose pipeline shared by `PoseLandmarker` (MediaPipe Tasks shape) and
/// `PoseDetector` (ML Kit shape): pose detection, alignment-point rects, the landmark
/// model with heatmap refinement, tracking from the auxiliary landmarks, smoothing.
final class PosePipeline: RegionFramedPipeline {
    struct Pose {
        /// 33 landmarks in normalized coordinates of the stored pixels.
        var landmarks: [NormalizedLandmark]
        var worldLandmarks: [Landmark]
        var auxiliary: [NormalizedLandmark]
        var presence: Float
        var nextFrameRect: NormalizedRect
        /// The track the pose belongs to (stream modes).
        var trackId: Int?
        /// With `wantsSegmentation`: the pose's mask, in the stored pixels of the input image.
        var segmentationMask: Mask? = nil
    }

    let detector: DetectorStage
    /// The landmark model (`SinglePoseLandmarksDetectorGraph`).
    let landmarkStage: PoseLandmarksStage
    let numPoses: Int
    let minPoseDetectionConfidence: Float
    let minPosePresenceConfidence: Float
    let minTrackingConfidence: Float
    /// MediaPipe's `min_suppression_threshold` default for pose (pose_detector_graph_options.proto).
    static let minSuppressionThreshold: Float = 0.5

    /// Pose rects carried to the next frame with their track IDs (stream modes).
    var tracked: [TrackedRect] = []
    var trackIds = TrackIdCounter()
    var smoother = PoseLandmarkSmoother()
    private(set) var detectorRuns = 0
    /// Each pose carries its segmentation mask (`outputSegmentationMasks`; PoseSegmentation.swift).
    var wantsSegmentation = false
    /// In stream mode, smooth the masks over time as MediaPipe's legacy pose solution does (the
    /// Tasks graph does not, so this is off for results one for one with MediaPipe Tasks).
    var smoothsSegmentation = false
    var previousMasks: [Mask] = []
    /// MediaPipe's pose detector graph removes the letterbox from its detections but never undoes
    /// the ROI's rotation (pose_detector_graph.cc has no DetectionProjectionCalculator, unlike the
    /// palm and face detectors), so for `rotation_degrees` 90/180/270 the keypoints of the turned
    /// tensor are read as if the image were upright and the landmark crop lands elsewhere. The
    /// Tasks-shaped `PoseLandmarker` reproduces that, so its results stay one for one with
    /// MediaPipe's; ML Kit's `PoseDetector` projects through the crop's matrix instead, so a
    /// turned image gives the upright image's pose, turned. (Mirrored orientations, which
    /// MediaPipe does not take, are always projected.)
    let rotatedDetectionAsMediaPipe: Bool

    init(source: consuming ModelSource, threads: Int, numPoses: Int, minPoseDetectionConfidence: Float,
         minPosePresenceConfidence: Float,
         minTrackingConfidence: Float, rotatedDetectionAsMediaPipe: Bool) throws {
        self.rotatedDetectionAsMediaPipe = rotatedDetectionAsMediaPipe
        try source.require(.poseLandmarker)
        // The two models run one after another: their activations share one arena, the larger one's size.
        let options = try Interpreter.Options.sharingOneArena()
        // Both models out of the bundle, and the bundle's bytes gone, before either is converted: the bundle is no
        // longer resident beside the larger model's copy and converted weights.
        let detectorFile = try source.model(TaskBundleLayout.poseDetector)
        let landmarkFile = try source.model(TaskBundleLayout.poseLandmarksDetector)
        _ = consume source
        let detectorModel = try ModelResources(model: consume detectorFile, threads: threads, options: options)
        let landmarkModel = try ModelResources(model: consume landmarkFile, threads: threads, options: options)
        detector = try Self.detectorStage(detectorModel, minPoseDetectionConfidence: minPoseDetectionConfidence,
                                          suppressionThreshold: Self.minSuppressionThreshold)
        landmarkStage = try PoseLandmarksStage(landmarkModel)
        self.numPoses = numPoses
        self.minPoseDetectionConfidence = minPoseDetectionConfidence
        self.minPosePresenceConfidence = minPosePresenceConfidence
        self.minTrackingConfidence = minTrackingConfidence
        GlibcAllocator.returnFreePages()
    }

    /// The pose detector of pose_detector_graph.cc: a 224x224 SSD with 2254 anchors.
    static func detectorStage(_ model: ModelResources, minPoseDetectionConfidence: Float,
                              suppressionThreshold: Float) throws -> DetectorStage {
        guard model.inputWidth == 224, model.inputHeight == 224, model.interpreter.outputs.count == 2,
              model.interpreter.outputs[0].elementCount == 2254 * 12 else {
            throw VisionTaskError.invalidModel(
                "\(model.name) is not a 224x224 BlazePose detector with 2254 boxes")
        }
        try model.requireFloat32("the pose detector")
        return DetectorStage(resources: model, anchors: SsdAnchors.generate(.pose),
                             decoding: .pose(minScore: minPoseDetectionConfidence),
                             range: try model.inputRange(default: .init(min: -1, max: 1)),
                             suppressionThreshold: suppressionThreshold)
    }

    /// A pose detection's landmark rect (normalized, stored pixels): the alignment-point rect of its first two
    /// keypoints (hips centre and the scale point), scaled by 1.25 and squared on its long side.
    static func rect(detection d: RawDetection, imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        let r = AlignmentPointsRects.rect(center: d.keypoints[0], scale: d.keypoints[1], imageWidth: imageWidth,
                                          imageHeight: imageHeight)
        return RectTransformation(scaleX: 1.25, scaleY: 1.25, squareLong: true).apply(r, imageWidth: imageWidth,
                                                                                      imageHeight: imageHeight)
    }

    /// Pose detection: expanded pose rects (normalized, stored pixels), best first.
    func detectPoseRects(_ image: MPImage) -> [NormalizedRect] {
        detectorRuns += 1
        let found = detector.run(image)
        // MediaPipe removes the letterbox here, which ignores the ROI's rotation (see
        // `rotatedDetectionAsMediaPipe`); otherwise a turned or mirrored image is projected with the crop's matrix.
        let asMediaPipe = image.orientation == .up || (rotatedDetectionAsMediaPipe && !image.orientation.isMirrored)
        let located = asMediaPipe ? found.letterboxRemoved() : found.projected()
        return located.prefix(numPoses).map {
            Self.rect(detection: $0, imageWidth: image.pixelWidth, imageHeight: image.pixelHeight)
        }
    }

    /// The landmark model on one pose rect; nil when the pose is not present.
    func landmarks(_ image: MPImage, rect: NormalizedRect) -> Pose? {
        landmarkStage.landmarks(image, rect: rect, minPresence: minPosePresenceConfidence,
                                segmentation: wantsSegmentation)
    }

    /// One frame. In stream mode the detector runs only while fewer than `numPoses` poses
    /// are tracked, and with one pose the landmarks are smoothed over time.
    func process(_ image: MPImage, stream: Bool, timestampMilliseconds: Int) -> [Pose] {
        var rects: [TrackedRect]
        if stream {
            rects = tracked.count >= numPoses ? tracked
                : TrackIdAssociation.poses([tracked, detectPoseRects(image).map { TrackedRect(rect: $0) }],
                                           minSimilarity: minTrackingConfidence)
            rects = trackIds.assign(Array(rects.prefix(numPoses)))
        } else {
            rects = detectPoseRects(image).prefix(numPoses).map { TrackedRect(rect: $0) }
        }
        var poses = rects.compactMap { r in
            landmarks(image, rect: r.rect).map { p in var p = p; p.trackId = r.id; return p }
        }
        if stream {
            tracked = poses.map { TrackedRect(rect: $0.nextFrameRect, id: $0.trackId) }
            if wantsSegmentation && smoothsSegmentation { smoothSegmentation(&poses) }
            if numPoses == 1 {
                if let p = poses.first {
                    let s = smoother.smooth(p.landmarks, world: p.worldLandmarks, roi: p.nextFrameRect,
                                            imageWidth: image.pixelWidth,
                                            imageHeight: image.pixelHeight,
                                            timestampMicroseconds: Int64(timestampMilliseconds) * 1000)
                    poses[0].landmarks = s.0
                    poses[0].worldLandmarks = s.1
                } else {
                    smoother.poseLost()
                }
            }
        }
        return poses
    }

    func reframe(from: ImageRegion, to: ImageRegion) {
        tracked = tracked.map { TrackedRect(rect: from.reframe($0.rect, to: to), id: $0.id) }
        smoother.reset()
    }

    /// Converts a pose from stored-pixel coordinates to the displayed image.
    static func display(_ pose: Pose,
                        orientation o: ImageOrientation) -> (landmarks: [NormalizedLandmark], world: [Landmark]) {
        let hand = HandPipeline.Hand(landmarks: pose.landmarks, worldLandmarks: pose.worldLandmarks,
                                     handedness: ResultCategory(index: 0, score: 0), presence: pose.presence,
                                     nextFrameRect: pose.nextFrameRect)
        return HandPipeline.display(hand, orientation: o)
    }

    static func validate(numPoses: Int, _ confidences: [(String, Float)]) throws {
        try OptionValidation.atLeastOne("numPoses", numPoses)
        try OptionValidation.unitInterval(confidences)
    }
}
