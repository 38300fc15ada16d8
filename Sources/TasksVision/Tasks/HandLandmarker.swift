import Foundation

/// Options of a `HandLandmarker` (MediaPipe Tasks' `HandLandmarkerOptions`).
public struct HandLandmarkerOptions {
    public var baseOptions = BaseOptions()
    public var runningMode: RunningMode = .image
    /// Maximum number of hands to find.
    public var numHands = 1
    public var minHandDetectionConfidence: Float = 0.5
    public var minHandPresenceConfidence: Float = 0.5
    /// IoU above which a new palm is taken for a hand already tracked (video and live stream).
    public var minTrackingConfidence: Float = 0.5
    public weak var handLandmarkerLiveStreamDelegate: HandLandmarkerLiveStreamDelegate?
    public var resultCallback: ((Result<HandLandmarkerResult, Error>, Int) -> Void)?
    public init() {}
}

public protocol HandLandmarkerLiveStreamDelegate: AnyObject {
    func handLandmarker(_ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?,
                        timestampInMilliseconds: Int, error: Error?)
}

/// Hands found in one image: per hand, 21 landmarks (normalized to the displayed image),
/// 21 world landmarks (metres, origin near the hand's centre) and handedness.
public struct HandLandmarkerResult: Sendable, Equatable, Codable {
    public var landmarks: [[NormalizedLandmark]]
    public var worldLandmarks: [[Landmark]]
    public var handedness: [[ResultCategory]]
    public var timestampInMilliseconds: Int

    public init(landmarks: [[NormalizedLandmark]], worldLandmarks: [[Landmark]], handedness: [[ResultCategory]], timestampInMilliseconds: Int = 0) {
        self.landmarks = landmarks; self.worldLandmarks = worldLandmarks; self.handedness = handedness
        self.timestampInMilliseconds = timestampInMilliseconds
    }

    enum CodingKeys: String, CodingKey { case handedness, landmarks, worldLandmarks }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        landmarks = try c.decode([[NormalizedLandmark]].self, forKey: .landmarks)
        worldLandmarks = try c.decode([[Landmark]].self, forKey: .worldLandmarks)
        handedness = try c.decode([[ResultCategory]].self, forKey: .handedness)
        timestampInMilliseconds = 0
    }
}

/// Finds hands and their landmarks, as MediaPipe Tasks' `HandLandmarker`.
public final class HandLandmarker: @unchecked Sendable {
    public let options: HandLandmarkerOptions
    let pipeline: HandPipeline
    let runner: TaskRunner<HandLandmarkerResult>
    private let lock = NSLock()

    /// Hand connections for drawing.
    public static let handConnections = HandConnections.all
    public static let handPalmConnections = HandConnections.palm
    public static let handThumbConnections = HandConnections.thumb
    public static let handIndexFingerConnections = HandConnections.indexFinger
    public static let handMiddleFingerConnections = HandConnections.middleFinger
    public static let handRingFingerConnections = HandConnections.ringFinger
    public static let handPinkyConnections = HandConnections.pinky

    public convenience init(modelPath: String) throws {
        var o = HandLandmarkerOptions()
        o.baseOptions.modelAssetPath = modelPath
        try self.init(options: o)
    }

    public init(options: HandLandmarkerOptions) throws {
        try HandPipeline.validate(numHands: options.numHands, [("minHandDetectionConfidence", options.minHandDetectionConfidence),
                                                               ("minHandPresenceConfidence", options.minHandPresenceConfidence),
                                                               ("minTrackingConfidence", options.minTrackingConfidence)])
        let hasReceiver = options.handLandmarkerLiveStreamDelegate != nil || options.resultCallback != nil
        try TaskRunnerChecks.receivers(mode: options.runningMode, hasReceiver: hasReceiver, delegate: "handLandmarkerLiveStreamDelegate")
        guard !options.baseOptions.modelAssetPath.isEmpty else { throw VisionTaskError.invalidOption("baseOptions.modelAssetPath is empty") }
        self.options = options
        let source = try ModelSource(path: options.baseOptions.modelAssetPath)
        pipeline = try HandPipeline(source: source.contains("hand_landmarker.task") ? try source.nested("hand_landmarker.task") : source,
                                    threads: options.baseOptions.threads, numHands: options.numHands,
                                    minHandDetectionConfidence: options.minHandDetectionConfidence,
                                    minHandPresenceConfidence: options.minHandPresenceConfidence,
                                    minTrackingConfidence: options.minTrackingConfidence)
        runner = TaskRunner(mode: options.runningMode, label: "HandLandmarker")
        runner.deliver = { [weak self] result, timestamp in
            guard let self else { return }
            self.options.resultCallback?(result, timestamp)
            self.options.handLandmarkerLiveStreamDelegate?.handLandmarker(self, didFinishDetection: try? result.get(),
                                                                           timestampInMilliseconds: timestamp, error: result.error)
        }
    }

    public func detect(image: MPImage) throws -> HandLandmarkerResult {
        try runner.runImage("detect(image:)") { process(image, timestamp: 0) }
    }

    public func detect(videoFrame image: MPImage, timestampInMilliseconds: Int) throws -> HandLandmarkerResult {
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

    public func detect(image: MPImage) async throws -> HandLandmarkerResult {
        try await runner.runImageAsync("detect(image:)", image: image) { [self] in self.process($0, timestamp: 0) }
    }

    public func waitForPendingResults() { runner.drain() }

    /// How many frames ran palm detection (video and live stream skip it while hands are tracked).
    public var palmDetectionCount: Int { lock.lock(); defer { lock.unlock() }; return pipeline.palmDetectionRuns }

    func hands(_ image: MPImage) -> [HandPipeline.Hand] {
        lock.lock(); defer { lock.unlock() }
        return pipeline.process(image, stream: options.runningMode != .image)
    }

    func process(_ image: MPImage, timestamp: Int) -> HandLandmarkerResult {
        let found = hands(image)
        var result = HandLandmarkerResult(landmarks: [], worldLandmarks: [], handedness: [], timestampInMilliseconds: timestamp)
        for h in found {
            let d = HandPipeline.display(h, orientation: image.orientation)
            result.landmarks.append(d.landmarks)
            result.worldLandmarks.append(d.world)
            result.handedness.append([h.handedness])
        }
        return result
    }
}

/// Checks shared by the tasks' initializers.
enum TaskRunnerChecks {
    static func receivers(mode: RunningMode, hasReceiver: Bool, delegate: String) throws {
        if mode == .liveStream && !hasReceiver {
            throw VisionTaskError.invalidOption("the liveStream running mode needs \(delegate) or resultCallback")
        }
        if mode != .liveStream && hasReceiver {
            throw VisionTaskError.invalidOption("a live-stream delegate or resultCallback is only allowed in the liveStream running mode")
        }
    }
}

extension Result {
    var error: Failure? { if case .failure(let e) = self { return e } else { return nil } }
}
