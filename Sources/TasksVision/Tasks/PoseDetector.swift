import Foundation

/// ML Kit's detector mode: follow a person across frames, or detect afresh each call.
public enum PoseDetectorMode: Sendable {
    /// Detect once, then track the most prominent person; detection runs again when tracking is lost.
    case stream
    /// Detect in every image, no tracking.
    case singleImage
}

/// Options shared by the base and accurate detectors (ML Kit's `CommonPoseDetectorOptions`).
public class CommonPoseDetectorOptions {
    public var detectorMode: PoseDetectorMode = .stream
    /// The pose landmarker bundle to use; defaults to the model of this options class in `Models/`.
    public var modelAssetPath: String
    /// Worker threads inside one inference.
    public var threads = 1

    init(defaultModel: String) {
        let env = ProcessInfo.processInfo.environment["TASKSVISION_MODELS"] ?? "Models"
        modelAssetPath = env + "/" + defaultModel
    }
}

/// Base pose detection: BlazePose lite (ML Kit's `PoseDetectorOptions`).
public final class PoseDetectorOptions: CommonPoseDetectorOptions {
    public init() { super.init(defaultModel: "pose_landmarker_lite.task") }
}

/// Accurate pose detection: BlazePose full (ML Kit's `AccuratePoseDetectorOptions`).
public final class AccuratePoseDetectorOptions: CommonPoseDetectorOptions {
    public init() { super.init(defaultModel: "pose_landmarker_full.task") }
}

/// The 33 landmark types, in BlazePose order (ML Kit's `PoseLandmarkType`).
public enum PoseLandmarkType: String, CaseIterable, Sendable, Codable {
    case nose, leftEyeInner, leftEye, leftEyeOuter, rightEyeInner, rightEye, rightEyeOuter, leftEar, rightEar
    case mouthLeft, mouthRight, leftShoulder, rightShoulder, leftElbow, rightElbow, leftWrist, rightWrist
    case leftPinkyFinger, rightPinkyFinger, leftIndexFinger, rightIndexFinger, leftThumb, rightThumb
    case leftHip, rightHip, leftKnee, rightKnee, leftAnkle, rightAnkle, leftHeel, rightHeel, leftToe, rightToe

    /// Index in the model's output.
    public var index: Int { Self.allCases.firstIndex(of: self) ?? 0 }
}

/// A point in image pixels; z is on the same scale, with the hips as origin (ML Kit's `Vision3DPoint`).
public struct Vision3DPoint: Sendable, Equatable, Codable {
    public var x: Float, y: Float, z: Float
    public init(x: Float, y: Float, z: Float) { self.x = x; self.y = y; self.z = z }
}

/// One landmark of a pose (ML Kit's `PoseLandmark`).
public struct PoseLandmark: Sendable, Equatable, Codable {
    public var type: PoseLandmarkType
    public var position: Vision3DPoint
    /// The likelihood that the landmark is inside the image, from the model's presence output.
    public var inFrameLikelihood: Float
}

/// A detected pose (ML Kit's `Pose`).
public struct Pose: Sendable, Equatable, Codable {
    public var landmarks: [PoseLandmark]

    /// The landmark of a type (every pose has all 33).
    public func landmark(ofType type: PoseLandmarkType) -> PoseLandmark {
        landmarks.first { $0.type == type } ?? PoseLandmark(type: type, position: Vision3DPoint(x: 0, y: 0, z: 0), inFrameLikelihood: 0)
    }
}

/// An image to detect in, with its orientation (ML Kit's `VisionImage`); mirrored orientations are supported.
public struct VisionImage: Sendable {
    public var image: MPImage
    public var orientation: ImageOrientation {
        get { image.orientation }
        set { image = image.withOrientation(newValue) }
    }
    public init(image: MPImage) { self.image = image }
    public init(image: MPImage, orientation: ImageOrientation) { self.image = image.withOrientation(orientation) }
}

/// ML Kit's pose detector on BlazePose. In `.stream` mode it follows the most prominent
/// person from call to call (timestamps from a monotonic clock unless given), smoothing
/// the landmarks as MediaPipe does; in `.singleImage` mode every call detects afresh.
public final class PoseDetector: @unchecked Sendable {
    public let options: CommonPoseDetectorOptions
    let pipeline: PosePipeline
    let mode: PoseDetectorMode
    private let lock = NSLock()
    private var lastTimestamp: Int?
    private let clockStart = DispatchTime.now().uptimeNanoseconds
    private let queue = DispatchQueue(label: "TasksVision.PoseDetector")

    /// A detector for the options (ML Kit's `PoseDetector.poseDetector(options:)`).
    public static func poseDetector(options: CommonPoseDetectorOptions) throws -> PoseDetector {
        try PoseDetector(options: options)
    }

    init(options: CommonPoseDetectorOptions) throws {
        guard options.threads >= 1 && options.threads <= 64 else { throw VisionTaskError.invalidOption("threads must be in 1...64, got \(options.threads)") }
        self.options = options
        mode = options.detectorMode
        pipeline = try PosePipeline(source: try ModelSource(path: options.modelAssetPath), threads: options.threads, numPoses: 1,
                                    minPoseDetectionConfidence: 0.5, minPosePresenceConfidence: 0.5, minTrackingConfidence: 0.5,
                                    rotatedDetectionAsMediaPipe: false)
    }

    /// The poses in an image (one at most); an empty array when nobody is found.
    public func results(in image: VisionImage) throws -> [Pose] {
        try results(in: image, timestampInMilliseconds: nil)
    }

    /// Stream mode with your own timestamps (they must increase).
    public func results(in image: VisionImage, timestampInMilliseconds: Int?) throws -> [Pose] {
        lock.lock(); defer { lock.unlock() }
        let stream = mode == .stream
        var t = 0
        if stream {
            t = timestampInMilliseconds ?? Int((DispatchTime.now().uptimeNanoseconds - clockStart) / 1_000_000)
            if let last = lastTimestamp, t <= last {
                if timestampInMilliseconds != nil { throw VisionTaskError.nonMonotonicTimestamp(received: t, previous: last) }
                t = last + 1
            }
            lastTimestamp = t
        }
        let img = image.image
        return pipeline.process(img, stream: stream, timestampMilliseconds: t).map { Self.pose($0, image: img) }
    }

    /// Detects off the caller's thread and calls `completion` on the main queue (as ML Kit).
    public func process(_ image: VisionImage, completion: @escaping ([Pose]?, Error?) -> Void) {
        let owned = VisionImage(image: image.image.owned())
        queue.async {
            let result = Result { try self.results(in: owned) }
            DispatchQueue.main.async {
                switch result {
                case .success(let p): completion(p, nil)
                case .failure(let e): completion(nil, e)
                }
            }
        }
    }

    public func process(_ image: VisionImage) async throws -> [Pose] {
        let owned = VisionImage(image: image.image.owned())
        return try await withCheckedThrowingContinuation { c in
            queue.async { c.resume(with: Result { try self.results(in: owned) }) }
        }
    }

    /// How many calls ran the pose detector (stream mode skips it while a person is tracked).
    public var detectionCount: Int { lock.lock(); defer { lock.unlock() }; return pipeline.detectorRuns }

    static func pose(_ p: PosePipeline.Pose, image: MPImage) -> Pose {
        let d = PosePipeline.display(p, orientation: image.orientation)
        let W = Float(image.width), H = Float(image.height)
        let landmarks = PoseLandmarkType.allCases.enumerated().map { i, type in
            let lm = d.landmarks[i]
            return PoseLandmark(type: type, position: Vision3DPoint(x: lm.x * W, y: lm.y * H, z: lm.z * W), inFrameLikelihood: lm.presence ?? 0)
        }
        return Pose(landmarks: landmarks)
    }
}
