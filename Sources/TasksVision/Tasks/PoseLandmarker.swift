import Foundation

/// Options of a `PoseLandmarker` (MediaPipe Tasks' `PoseLandmarkerOptions`).
public struct PoseLandmarkerOptions {
    public var baseOptions = BaseOptions()
    public var runningMode: RunningMode = .image
    public var numPoses = 1
    public var minPoseDetectionConfidence: Float = 0.5
    public var minPosePresenceConfidence: Float = 0.5
    public var minTrackingConfidence: Float = 0.5
    public weak var poseLandmarkerLiveStreamDelegate: PoseLandmarkerLiveStreamDelegate?
    public var resultCallback: ((Result<PoseLandmarkerResult, Error>, Int) -> Void)?
    public init() {}
}

public protocol PoseLandmarkerLiveStreamDelegate: AnyObject {
    func poseLandmarker(_ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
                        timestampInMilliseconds: Int, error: Error?)
}

/// Poses found in one image: per pose 33 landmarks (normalized to the displayed image)
/// and 33 world landmarks (metres, hips as origin), each with visibility and presence.
public struct PoseLandmarkerResult: Sendable, Equatable, Codable {
    public var landmarks: [[NormalizedLandmark]]
    public var worldLandmarks: [[Landmark]]
    public var timestampInMilliseconds: Int

    public init(landmarks: [[NormalizedLandmark]], worldLandmarks: [[Landmark]], timestampInMilliseconds: Int = 0) {
        self.landmarks = landmarks; self.worldLandmarks = worldLandmarks; self.timestampInMilliseconds = timestampInMilliseconds
    }

    enum CodingKeys: String, CodingKey { case landmarks, worldLandmarks }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        landmarks = try c.decode([[NormalizedLandmark]].self, forKey: .landmarks)
        worldLandmarks = try c.decode([[Landmark]].self, forKey: .worldLandmarks)
        timestampInMilliseconds = 0
    }
}

/// Finds body poses with BlazePose, as MediaPipe Tasks' `PoseLandmarker`.
///
/// Results follow MediaPipe's one for one, including its handling of turned images: for an
/// image with a 90/180/270 degree orientation the pose detector's keypoints are read as if the
/// tensor were upright (MediaPipe never undoes the rotation there), so the pose found may not
/// be the upright image's. Landmarks are normalized to the displayed image, as in the other
/// tasks. For orientation-correct poses on turned images use ML Kit's `PoseDetector`.
public final class PoseLandmarker: @unchecked Sendable {
    public let options: PoseLandmarkerOptions
    let pipeline: PosePipeline
    let runner: TaskRunner<PoseLandmarkerResult>
    private let lock = NSLock()

    public convenience init(modelPath: String) throws {
        var o = PoseLandmarkerOptions()
        o.baseOptions.modelAssetPath = modelPath
        try self.init(options: o)
    }

    public init(options: PoseLandmarkerOptions) throws {
        try PosePipeline.validate(numPoses: options.numPoses, [("minPoseDetectionConfidence", options.minPoseDetectionConfidence),
                                                               ("minPosePresenceConfidence", options.minPosePresenceConfidence),
                                                               ("minTrackingConfidence", options.minTrackingConfidence)])
        let hasReceiver = options.poseLandmarkerLiveStreamDelegate != nil || options.resultCallback != nil
        try TaskRunnerChecks.receivers(mode: options.runningMode, hasReceiver: hasReceiver, delegate: "poseLandmarkerLiveStreamDelegate")
        guard !options.baseOptions.modelAssetPath.isEmpty else { throw VisionTaskError.invalidOption("baseOptions.modelAssetPath is empty") }
        self.options = options
        pipeline = try PosePipeline(source: try ModelSource(path: options.baseOptions.modelAssetPath), threads: options.baseOptions.threads,
                                    numPoses: options.numPoses, minPoseDetectionConfidence: options.minPoseDetectionConfidence,
                                    minPosePresenceConfidence: options.minPosePresenceConfidence, minTrackingConfidence: options.minTrackingConfidence,
                                    rotatedDetectionAsMediaPipe: true)
        runner = TaskRunner(mode: options.runningMode, label: "PoseLandmarker")
        runner.deliver = { [weak self] result, timestamp in
            guard let self else { return }
            self.options.resultCallback?(result, timestamp)
            self.options.poseLandmarkerLiveStreamDelegate?.poseLandmarker(self, didFinishDetection: try? result.get(),
                                                                           timestampInMilliseconds: timestamp, error: result.error)
        }
    }

    public func detect(image: MPImage) throws -> PoseLandmarkerResult {
        try runner.runImage("detect(image:)") { process(image, timestamp: 0) }
    }

    public func detect(videoFrame image: MPImage, timestampInMilliseconds: Int) throws -> PoseLandmarkerResult {
        try runner.runVideo("detect(videoFrame:timestampInMilliseconds:)", timestamp: timestampInMilliseconds) {
            process(image, timestamp: timestampInMilliseconds)
        }
    }

    @discardableResult
    public func detectAsync(image: MPImage, timestampInMilliseconds: Int) throws -> Bool {
        try runner.runLive("detectAsync(image:timestampInMilliseconds:)", image: image, timestamp: timestampInMilliseconds) { [self] in
            self.process($0, timestamp: timestampInMilliseconds)
        }
    }

    public func waitForPendingResults() { runner.drain() }

    /// How many frames ran the pose detector.
    public var poseDetectionCount: Int { lock.lock(); defer { lock.unlock() }; return pipeline.detectorRuns }

    func poses(_ image: MPImage, timestamp: Int) -> [PosePipeline.Pose] {
        lock.lock(); defer { lock.unlock() }
        return pipeline.process(image, stream: options.runningMode != .image, timestampMilliseconds: timestamp)
    }

    func process(_ image: MPImage, timestamp: Int) -> PoseLandmarkerResult {
        var r = PoseLandmarkerResult(landmarks: [], worldLandmarks: [], timestampInMilliseconds: timestamp)
        for p in poses(image, timestamp: timestamp) {
            let d = PosePipeline.display(p, orientation: image.orientation)
            r.landmarks.append(d.landmarks)
            r.worldLandmarks.append(d.world)
        }
        return r
    }
}
