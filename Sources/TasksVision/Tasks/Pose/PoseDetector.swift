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
    /// The pose landmarker bundle to use: a path, or the name of an installed model, found as
    /// `ModelLocator` describes. Defaults to the bundle of this options class.
    public var modelAssetPath: String
    /// Worker threads inside one inference, 1...64.
    public var threads = 1
    /// Beyond ML Kit: give each pose its segmentation mask (`Pose.segmentationMask`), as
    /// `PoseLandmarkerOptions.shouldOutputSegmentationMasks` does.
    public var outputSegmentationMasks = false

    init(defaultModel: String) {
        modelAssetPath = defaultModel
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
    public var x: CGFloat, y: CGFloat, z: CGFloat
    public init(x: CGFloat, y: CGFloat, z: CGFloat) { self.x = x; self.y = y; self.z = z }

    // JSON: the coordinates written as the Float they were computed in.
    enum CodingKeys: String, CodingKey { case x, y, z }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Float(x), forKey: .x)
        try c.encode(Float(y), forKey: .y)
        try c.encode(Float(z), forKey: .z)
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        x = CGFloat(try c.decode(Float.self, forKey: .x))
        y = CGFloat(try c.decode(Float.self, forKey: .y))
        z = CGFloat(try c.decode(Float.self, forKey: .z))
    }
}

/// One landmark of a pose (ML Kit's `PoseLandmark`).
public struct PoseLandmark: Sendable, Equatable, Codable {
    public var type: PoseLandmarkType
    public var position: Vision3DPoint
    /// The likelihood that the landmark is inside the image, from the model's presence output.
    public var inFrameLikelihood: Float

    public init(type: PoseLandmarkType, position: Vision3DPoint, inFrameLikelihood: Float) {
        self.type = type; self.position = position; self.inFrameLikelihood = inFrameLikelihood
    }
}

/// A detected pose (ML Kit's `Pose`).
public struct Pose: Sendable, Equatable, Codable {
    public var landmarks: [PoseLandmark]
    /// In stream mode, the ID of the person's track (stable while tracked, never reused, as ML Kit's
    /// `Face.trackingID`); nil in single-image mode.
    public var trackingID: Int?
    /// Beyond ML Kit, with `outputSegmentationMasks`: the person's mask in the displayed image's
    /// pixels (1: the person). Not part of the JSON encoding.
    public var segmentationMask: Mask?

    enum CodingKeys: String, CodingKey { case landmarks, trackingID }

    public init(landmarks: [PoseLandmark], trackingID: Int? = nil) {
        self.landmarks = landmarks; self.trackingID = trackingID
    }

    /// The landmark of a type (every pose has all 33).
    public func landmark(ofType type: PoseLandmarkType) -> PoseLandmark {
        landmarks.first { $0.type == type }
            ?? PoseLandmark(type: type, position: Vision3DPoint(x: 0, y: 0, z: 0), inFrameLikelihood: 0)
    }
}

/// An image to detect in, with its orientation (ML Kit's `VisionImage`, a class as there, so the
/// guides' `let image = VisionImage(...); image.orientation = ...` works); mirrored orientations are supported.
/// On Apple platforms it is also made from a `UIImage` or a `CMSampleBuffer` (VisionImage+Apple.swift).
public final class VisionImage: @unchecked Sendable {
    /// A copy owning its pixels, with the same region of interest: what an ML Kit `process` call works on after
    /// it returns.
    func ownedCopy() -> VisionImage {
        let owned = VisionImage(image: image.owned(), unreadable: unreadable)
        owned.regionOfInterest = regionOfInterest
        return owned
    }

    /// Throws why the image could not be read, if it could not (ML Kit's initializers do not throw: the
    /// detection that uses the image does).
    func checkReadable() throws {
        if let unreadable { throw unreadable }
    }

    /// ML Kit's `process(_:completion:)`: `work` on `queue` on an owned copy, the completion on the main queue.
    func process<R>(on queue: DispatchQueue, _ work: @escaping (VisionImage) throws -> R,
                    completion: @escaping (R?, Error?) -> Void) {
        let owned = ownedCopy()
        queue.async {
            let result = Result { try work(owned) }
            DispatchQueue.main.async {
                switch result {
                case .success(let r): completion(r, nil)
                case .failure(let e): completion(nil, e)
                }
            }
        }
    }

    /// ML Kit's `process(_:) async`: `work` on `queue` on an owned copy.
    func process<R>(on queue: DispatchQueue, _ work: @escaping (VisionImage) throws -> R) async throws -> R {
        let owned = ownedCopy()
        return try await withCheckedThrowingContinuation { c in
            queue.async { c.resume(with: Result { try work(owned) }) }
        }
    }

    /// The pixels (a 1x1 placeholder when the Apple image could not be read; see `checkReadable`).
    public private(set) var image: MPImage
    /// Why the image given to an Apple initializer could not be read.
    let unreadable: Error?
    public var orientation: ImageOrientation {
        get { image.orientation }
        set { image = image.withOrientation(newValue) }
    }
    /// The part of the displayed image to detect in, normalized to [0, 1]; poses come back in
    /// the whole image's pixels. nil is the whole image.
    public var regionOfInterest: CGRect?
    public init(image: MPImage) { self.image = image; unreadable = nil }
    public init(image: MPImage, orientation: ImageOrientation) {
        self.image = image.withOrientation(orientation); unreadable = nil
    }

    init(image: MPImage, unreadable: Error?) { self.image = image; self.unreadable = unreadable }

    /// The pixels `read` gives, or a placeholder and the reason it failed (the Apple initializers).
    convenience init(reading read: () throws -> MPImage) {
        do {
            self.init(image: try read(), unreadable: nil)
        } catch {
            let placeholder = MPImage(pixelWidth: 1, pixelHeight: 1, pixelFormat: .gray8, bytesPerRow: 1,
                                      orientation: .up, storage: .owned([0]))
            self.init(image: placeholder, unreadable: error)
        }
    }
}

/// ML Kit's pose detector on BlazePose. In `.stream` mode it follows the most prominent
/// person from call to call (timestamps from a monotonic clock unless given), smoothing
/// the landmarks as MediaPipe does; in `.singleImage` mode every call detects afresh.
public final class PoseDetector: @unchecked Sendable {
    public let options: CommonPoseDetectorOptions
    /// The loaded pipeline, or why it could not be loaded (given by every call, as ML Kit does).
    let loaded: Result<PosePipeline, Error>
    let mode: PoseDetectorMode
    let runner: TaskRunner<[Pose]>
    private let lock = NSLock()
    private var regions = RegionRunner()
    private let queue = DispatchQueue(label: "TasksVision.PoseDetector")

    /// A detector for the options (ML Kit's `PoseDetector.poseDetector(options:)`). As in ML Kit it
    /// does not throw: a bad model or option is the error of the first `results(in:)` or `process`.
    public static func poseDetector(options: CommonPoseDetectorOptions) -> PoseDetector {
        PoseDetector(options: options)
    }

    init(options: CommonPoseDetectorOptions) {
        self.options = options
        mode = options.detectorMode
        runner = TaskRunner(mode: options.detectorMode == .stream ? .video : .image, label: "PoseDetector")
        let (path, threads, masks) = (options.modelAssetPath, options.threads, options.outputSegmentationMasks)
        loaded = Result {
            guard (1...64).contains(threads) else {
                throw VisionTaskError.invalidOption("threads must be in 1...64, got \(threads)")
            }
            let file = try TaskSetup.resolve(path)
            let pipeline = try VisionTaskError.wrappingModelErrors {
                try PosePipeline(source: try ModelSource(path: file), threads: threads, numPoses: 1,
                                 minPoseDetectionConfidence: 0.5, minPosePresenceConfidence: 0.5,
                                 minTrackingConfidence: 0.5, rotatedDetectionAsMediaPipe: false)
            }
            pipeline.wantsSegmentation = masks
            return pipeline
        }
    }

    /// The poses in an image (one at most); an empty array when nobody is found.
    public func results(in image: VisionImage) throws -> [Pose] {
        try results(in: image, timestampInMilliseconds: nil)
    }

    /// Stream mode with your own timestamps (they must increase).
    public func results(in image: VisionImage, timestampInMilliseconds: Int?) throws -> [Pose] {
        let pipeline = try loaded.get()
        try image.checkReadable()
        lock.lock(); defer { lock.unlock() }
        let stream = mode == .stream
        let t = stream ? try runner.acceptOrClock(timestampInMilliseconds) : 0
        let roi = image.regionOfInterest.map { ImageProcessingOptions(regionOfInterest: $0) }
        return try regions.run(image.image, roi, pipeline: pipeline, { input in
            pipeline.process(input, stream: stream, timestampMilliseconds: t).map { Self.pose($0, image: input) }
        }, map: { poses, region in
            poses.map { pose in
                var p = pose
                for i in p.landmarks.indices {
                    p.landmarks[i].position.x += CGFloat(region.displayX)
                    p.landmarks[i].position.y += CGFloat(region.displayY)
                }
                p.segmentationMask = p.segmentationMask.map(region.mask)
                return p
            }
        })
    }

    /// Detects off the caller's thread and calls `completion` on the main queue (as ML Kit).
    public func process(_ image: VisionImage, completion: @escaping ([Pose]?, Error?) -> Void) {
        image.process(on: queue, { try self.results(in: $0) }, completion: completion)
    }

    /// The async form of `process(_:completion:)`.
    public func process(_ image: VisionImage) async throws -> [Pose] {
        try await image.process(on: queue) { try self.results(in: $0) }
    }

    /// How many calls ran the pose detector (stream mode skips it while a person is tracked).
    public var detectionCount: Int {
        lock.lock(); defer { lock.unlock() }
        return (try? loaded.get())?.detectorRuns ?? 0
    }

    static func pose(_ p: PosePipeline.Pose, image: MPImage) -> Pose {
        let d = PosePipeline.display(p, orientation: image.orientation)
        let W = Float(image.width), H = Float(image.height)
        let landmarks = PoseLandmarkType.allCases.enumerated().map { i, type in
            let lm = d.landmarks[i]
            let position = Vision3DPoint(x: CGFloat(lm.x * W), y: CGFloat(lm.y * H), z: CGFloat(lm.z * W))
            return PoseLandmark(type: type, position: position, inFrameLikelihood: lm.presence ?? 0)
        }
        var pose = Pose(landmarks: landmarks, trackingID: p.trackId)
        pose.segmentationMask = p.segmentationMask?.displayed(image.orientation)
        return pose
    }
}
