import Foundation

/// Options of a `HandLandmarker` (MediaPipe Tasks' `HandLandmarkerOptions`).
public final class HandLandmarkerOptions: TaskOptions, HandTrackingOptions, @unchecked Sendable {
    /// Maximum number of hands to find.
    public var numHands = 1
    /// Minimum palm detection score, in [0, 1].
    public var minHandDetectionConfidence: Float = 0.5
    /// Minimum hand presence score of the landmark model, in [0, 1].
    public var minHandPresenceConfidence: Float = 0.5
    /// IoU above which a new palm is taken for a hand already tracked (video and live stream).
    public var minTrackingConfidence: Float = 0.5
    /// Smooths landmarks over time per tracked hand in video and live-stream mode (one-euro filters,
    /// see `HandLandmarkSmoothing`). Off by default, as in MediaPipe, which does not smooth hands.
    public var smoothLandmarks = false
    /// Receives live-stream results (held weakly, as in MediaPipe).
    public weak var handLandmarkerLiveStreamDelegate: HandLandmarkerLiveStreamDelegate?
    /// Alternative to the delegate: called with each live-stream result and its timestamp.
    public var resultCallback: ((Result<HandLandmarkerResult, Error>, Int) -> Void)?

    public override init() { super.init() }

    func copy() -> HandLandmarkerOptions {
        let c = copyBase(into: HandLandmarkerOptions())
        c.copyHandFields(from: self)
        c.handLandmarkerLiveStreamDelegate = handLandmarkerLiveStreamDelegate
        c.resultCallback = resultCallback
        return c
    }
}

extension HandLandmarkerOptions: LiveStreamReceivers {
    var hasLiveStreamDelegate: Bool { handLandmarkerLiveStreamDelegate != nil }
}

/// Receives the results of `HandLandmarker.detectAsync` on the landmarker's serial queue.
public protocol HandLandmarkerLiveStreamDelegate: AnyObject {
    func handLandmarker(_ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?,
                        timestampInMilliseconds: Int, error: Error?)
}

/// The method is optional, as in MediaPipe.
extension HandLandmarkerLiveStreamDelegate {
    public func handLandmarker(_ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?,
                               timestampInMilliseconds: Int, error: Error?) {}
}

/// Hands found in one image: per hand, 21 landmarks (normalized to the displayed image),
/// 21 world landmarks (metres, origin near the hand's centre) and handedness.
public struct HandLandmarkerResult: Sendable, Equatable, Codable {
    public var landmarks: [[NormalizedLandmark]]
    public var worldLandmarks: [[Landmark]]
    public var handedness: [[ResultCategory]]
    /// Per hand, the ID of its track in video and live-stream mode (stable while the hand is
    /// tracked, never reused); nil in image mode.
    public var trackingIds: [Int]?
    public var timestampInMilliseconds: Int = 0

    public init(landmarks: [[NormalizedLandmark]], worldLandmarks: [[Landmark]], handedness: [[ResultCategory]],
                timestampInMilliseconds: Int = 0) {
        self.landmarks = landmarks; self.worldLandmarks = worldLandmarks; self.handedness = handedness
        self.timestampInMilliseconds = timestampInMilliseconds
    }

    enum CodingKeys: String, CodingKey { case handedness, landmarks, worldLandmarks, trackingIds }
}

/// Finds hands and their landmarks, as MediaPipe Tasks' `HandLandmarker`.
public final class HandLandmarker: DetectionTask<HandLandmarkerResult>, @unchecked Sendable {
    /// The options the landmarker was made with (a copy).
    public let options: HandLandmarkerOptions
    let pipeline: HandPipeline
    private let lock = NSLock()
    private var regions = RegionRunner()

    /// Hand connections for drawing.
    public static let handConnections = HandConnections.all
    public static let handPalmConnections = HandConnections.palm
    public static let handThumbConnections = HandConnections.thumb
    public static let handIndexFingerConnections = HandConnections.indexFinger
    public static let handMiddleFingerConnections = HandConnections.middleFinger
    public static let handRingFingerConnections = HandConnections.ringFinger
    public static let handPinkyConnections = HandConnections.pinky

    /// A landmarker in image mode with default options.
    public convenience init(modelPath: String) throws {
        let o = HandLandmarkerOptions()
        o.baseOptions.modelAssetPath = modelPath
        try self.init(options: o)
    }

    public init(options: HandLandmarkerOptions) throws {
        let options = options.copy()
        let settings = options.handSettings
        try settings.validate()
        let runner = try TaskRunner<HandLandmarkerResult>(options, label: "HandLandmarker",
                                                          delegate: "handLandmarkerLiveStreamDelegate")
        let path = try TaskSetup.modelPath(options.baseOptions)
        self.options = options
        pipeline = try VisionTaskError.wrappingModelErrors {
            let source = try ModelSource(path: path)
            return try HandPipeline(source: try source.nestedIfPresent(TaskBundleLayout.handLandmarkerBundle),
                                    threads: options.baseOptions.threads, settings: settings)
        }
        super.init(runner: runner)
        runner.deliver(to: self, options: \.options) { task, result, timestamp, error in
            task.options.handLandmarkerLiveStreamDelegate?.handLandmarker(task, didFinishDetection: result,
                                                                          timestampInMilliseconds: timestamp,
                                                                          error: error)
        }
    }

    /// How many frames ran palm detection (video and live stream skip it while hands are tracked).
    public var palmDetectionCount: Int { lock.lock(); defer { lock.unlock() }; return pipeline.palmDetectionRuns }

    func hands(_ image: MPImage, timestamp: Int = 0) -> [HandPipeline.Hand] {
        lock.lock(); defer { lock.unlock() }
        return pipeline.process(image, stream: options.runningMode != .image, timestampMilliseconds: timestamp)
    }

    override func process(_ image: MPImage, timestamp: Int, roi: ImageProcessingOptions? = nil) throws
        -> HandLandmarkerResult {
        lock.lock(); defer { lock.unlock() }
        let stream = options.runningMode != .image
        return try regions.run(image, roi, pipeline: pipeline, { input in
            result(pipeline.process(input, stream: stream, timestampMilliseconds: timestamp), image: input,
                   timestamp: timestamp)
        }, map: { r, region in
            var r = r
            r.landmarks = region.landmarks(r.landmarks)
            return r
        })
    }

    func result(_ found: [HandPipeline.Hand], image: MPImage, timestamp: Int) -> HandLandmarkerResult {
        var result = HandLandmarkerResult(landmarks: [], worldLandmarks: [], handedness: [],
                                          timestampInMilliseconds: timestamp)
        for h in found {
            let d = HandPipeline.display(h, orientation: image.orientation)
            result.landmarks.append(d.landmarks)
            result.worldLandmarks.append(d.world)
            result.handedness.append([h.handedness])
        }
        if options.runningMode != .image { result.trackingIds = found.map { $0.trackId ?? 0 } }
        return result
    }
}
