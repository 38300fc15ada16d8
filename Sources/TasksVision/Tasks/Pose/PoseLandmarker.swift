import Foundation

/// Options of a `PoseLandmarker` (MediaPipe Tasks' `PoseLandmarkerOptions`).
public final class PoseLandmarkerOptions: TaskOptions, @unchecked Sendable {
    /// Maximum number of poses to find.
    public var numPoses = 1
    public var minPoseDetectionConfidence: Float = 0.5
    public var minPosePresenceConfidence: Float = 0.5
    public var minTrackingConfidence: Float = 0.5
    /// Also give each pose's segmentation mask (`PoseLandmarkerResult.segmentationMasks`), as MediaPipe
    /// computes it: the landmark model's mask through the crop's inverse warp to the image size.
    public var shouldOutputSegmentationMasks = false
    /// In video and live-stream mode, blend each mask with the previous frame's (ratio 0.7), as MediaPipe's
    /// legacy pose solution does; MediaPipe Tasks does not smooth masks, so this is off by default.
    public var smoothSegmentationMasks = false
    /// MediaPipe's Python and C++ name of `shouldOutputSegmentationMasks`.
    public var outputSegmentationMasks: Bool {
        get { shouldOutputSegmentationMasks }
        set { shouldOutputSegmentationMasks = newValue }
    }
    /// Receives live-stream results (held weakly, as in MediaPipe).
    public weak var poseLandmarkerLiveStreamDelegate: PoseLandmarkerLiveStreamDelegate?
    /// Alternative to the delegate: called with each live-stream result and its timestamp.
    public var resultCallback: ((Result<PoseLandmarkerResult, Error>, Int) -> Void)?

    public override init() { super.init() }

    func copy() -> PoseLandmarkerOptions {
        let c = copyBase(into: PoseLandmarkerOptions())
        c.numPoses = numPoses
        c.minPoseDetectionConfidence = minPoseDetectionConfidence
        c.minPosePresenceConfidence = minPosePresenceConfidence
        c.minTrackingConfidence = minTrackingConfidence
        c.shouldOutputSegmentationMasks = shouldOutputSegmentationMasks
        c.smoothSegmentationMasks = smoothSegmentationMasks
        c.poseLandmarkerLiveStreamDelegate = poseLandmarkerLiveStreamDelegate
        c.resultCallback = resultCallback
        return c
    }
}

extension PoseLandmarkerOptions: LiveStreamReceivers {
    var hasLiveStreamDelegate: Bool { poseLandmarkerLiveStreamDelegate != nil }
}

/// Receives the results of `PoseLandmarker.detectAsync` on the landmarker's serial queue
/// (the method is required, as in MediaPipe).
public protocol PoseLandmarkerLiveStreamDelegate: AnyObject {
    func poseLandmarker(_ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
                        timestampInMilliseconds: Int, error: Error?)
}

/// Poses found in one image: per pose 33 landmarks (normalized to the displayed image)
/// and 33 world landmarks (metres, hips as origin), each with visibility and presence.
public struct PoseLandmarkerResult: Sendable, Equatable, Codable {
    public var landmarks: [[NormalizedLandmark]]
    public var worldLandmarks: [[Landmark]]
    /// Per pose, the ID of its track in video and live-stream mode (stable while the pose is
    /// tracked, never reused); nil in image mode.
    public var trackingIds: [Int]?
    /// Per pose, its segmentation mask in the displayed image's pixels (1: the person), with
    /// `shouldOutputSegmentationMasks`; otherwise nil. Not part of the JSON encoding.
    public var segmentationMasks: [Mask]?
    public var timestampInMilliseconds: Int = 0

    public init(landmarks: [[NormalizedLandmark]], worldLandmarks: [[Landmark]], timestampInMilliseconds: Int = 0) {
        self.landmarks = landmarks; self.worldLandmarks = worldLandmarks;
        self.timestampInMilliseconds = timestampInMilliseconds
    }

    enum CodingKeys: String, CodingKey { case landmarks, worldLandmarks, trackingIds }
}

/// Finds body poses with BlazePose, as MediaPipe Tasks' `PoseLandmarker`.
///
/// Results follow MediaPipe's one for one, including its handling of turned images: for an
/// image with a 90/180/270 degree orientation the pose detector's keypoints are read as if the
/// tensor were upright (MediaPipe never undoes the rotation there), so the pose found may not
/// be the upright image's. Landmarks are normalized to the displayed image, as in the other
/// tasks. For orientation-correct poses on turned images use ML Kit's `PoseDetector`.
public final class PoseLandmarker: DetectionTask<PoseLandmarkerResult>, @unchecked Sendable {
    /// The options the landmarker was made with (a copy).
    public let options: PoseLandmarkerOptions
    let pipeline: PosePipeline
    private let lock = NSLock()
    private var regions = RegionRunner()

    /// MediaPipe's 35 pose connections, for drawing.
    public static let poseLandmarks: [Connection] = [
        (0, 1), (1, 2), (2, 3), (3, 7), (0, 4), (4, 5), (5, 6), (6, 8), (9, 10), (11, 12), (11, 13), (13, 15),
        (15, 17), (15, 19), (15, 21), (17, 19), (12, 14), (14, 16), (16, 18), (16, 20), (16, 22), (18, 20),
        (11, 23), (12, 24), (23, 24), (23, 25), (24, 26), (25, 27), (26, 28), (27, 29), (28, 30), (29, 31),
        (30, 32), (27, 31), (28, 32),
    ].map { Connection(start: $0.0, end: $0.1) }

    /// A landmarker in image mode with default options.
    public convenience init(modelPath: String) throws {
        let o = PoseLandmarkerOptions()
        o.baseOptions.modelAssetPath = modelPath
        try self.init(options: o)
    }

    public init(options: PoseLandmarkerOptions) throws {
        let options = options.copy()
        try PosePipeline.validate(numPoses: options.numPoses, [
            ("minPoseDetectionConfidence", options.minPoseDetectionConfidence),
            ("minPosePresenceConfidence", options.minPosePresenceConfidence),
            ("minTrackingConfidence", options.minTrackingConfidence)])
        let runner = try TaskRunner<PoseLandmarkerResult>(options, label: "PoseLandmarker",
                                                          delegate: "poseLandmarkerLiveStreamDelegate")
        let path = try TaskSetup.modelPath(options.baseOptions)
        self.options = options
        pipeline = try VisionTaskError.wrappingModelErrors {
            try PosePipeline(source: try ModelSource(path: path), threads: options.baseOptions.threads,
                             numPoses: options.numPoses, minPoseDetectionConfidence: options.minPoseDetectionConfidence,
                             minPosePresenceConfidence: options.minPosePresenceConfidence,
                             minTrackingConfidence: options.minTrackingConfidence, rotatedDetectionAsMediaPipe: true)
        }
        pipeline.wantsSegmentation = options.shouldOutputSegmentationMasks
        pipeline.smoothsSegmentation = options.smoothSegmentationMasks
        super.init(runner: runner)
        runner.deliver(to: self, options: \.options) { task, result, timestamp, error in
            task.options.poseLandmarkerLiveStreamDelegate?.poseLandmarker(task, didFinishDetection: result,
                                                                          timestampInMilliseconds: timestamp,
                                                                          error: error)
        }
    }

    /// How many frames ran the pose detector.
    public var poseDetectionCount: Int { lock.lock(); defer { lock.unlock() }; return pipeline.detectorRuns }

    func poses(_ image: MPImage, timestamp: Int) -> [PosePipeline.Pose] {
        lock.lock(); defer { lock.unlock() }
        return pipeline.process(image, stream: options.runningMode != .image, timestampMilliseconds: timestamp)
    }

    override func process(_ image: MPImage, timestamp: Int, roi: ImageProcessingOptions? = nil) throws
        -> PoseLandmarkerResult {
        lock.lock(); defer { lock.unlock() }
        let stream = options.runningMode != .image
        return try regions.run(image, roi, pipeline: pipeline, { input in
            result(pipeline.process(input, stream: stream, timestampMilliseconds: timestamp), image: input,
                   timestamp: timestamp)
        }, map: { r, region in
            var r = r
            r.landmarks = region.landmarks(r.landmarks)
            r.segmentationMasks = r.segmentationMasks?.map(region.mask)
            return r
        })
    }

    func result(_ found: [PosePipeline.Pose], image: MPImage, timestamp: Int) -> PoseLandmarkerResult {
        var r = PoseLandmarkerResult(landmarks: [], worldLandmarks: [], timestampInMilliseconds: timestamp)
        for p in found {
            let d = PosePipeline.display(p, orientation: image.orientation)
            r.landmarks.append(d.landmarks)
            r.worldLandmarks.append(d.world)
        }
        if options.runningMode != .image { r.trackingIds = found.map { $0.trackId ?? 0 } }
        if options.shouldOutputSegmentationMasks {
            r.segmentationMasks = found.compactMap { $0.segmentationMask?.displayed(image.orientation) }
        }
        return r
    }
}
