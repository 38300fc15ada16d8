import Foundation

/// Options of a `HolisticLandmarker` (MediaPipe Tasks' `HolisticLandmarkerOptions`).
public final class HolisticLandmarkerOptions: TaskOptions, @unchecked Sendable {
    /// Minimum face detection score, in [0, 1].
    public var minFaceDetectionConfidence: Float = 0.5
    /// IoU above which overlapping face detections are merged, in [0, 1].
    public var minFaceSuppressionThreshold: Float = 0.3
    /// Minimum face presence score of the face mesh model, in [0, 1].
    public var minFacePresenceConfidence: Float = 0.5
    /// Minimum pose detection score, in [0, 1].
    public var minPoseDetectionConfidence: Float = 0.5
    /// IoU above which overlapping pose detections are merged, in [0, 1].
    public var minPoseSuppressionThreshold: Float = 0.3
    /// Minimum pose presence score of the pose landmark model, in [0, 1].
    public var minPosePresenceConfidence: Float = 0.5
    /// Minimum hand presence score of the hand landmark model, in [0, 1].
    public var minHandLandmarksConfidence: Float = 0.5
    /// Gives the face's 52 blendshape scores (the bundle must hold face_blendshapes.tflite).
    public var outputFaceBlendshapes = false
    /// Gives the person's segmentation mask (the image's size, 1 on the person), smoothed over video frames.
    public var outputPoseSegmentationMasks = false
    /// Beyond MediaPipe: gives the face's 4x4 transformation matrix and head pose, as `FaceLandmarker` does.
    /// The geometry it needs (geometry_pipeline_metadata_landmarks.binarypb) is read from the holistic bundle
    /// when it holds it, else from `faceGeometryModelAssetPath`.
    public var outputFacialTransformationMatrixes = false
    /// A face landmarker bundle (or the geometry file itself) to read the face geometry from, found as
    /// `ModelLocator` describes; used with `outputFacialTransformationMatrixes` only.
    public var faceGeometryModelAssetPath: String? = "face_landmarker.task"
    /// Receives live-stream results (held weakly, as in MediaPipe).
    public weak var holisticLandmarkerLiveStreamDelegate: HolisticLandmarkerLiveStreamDelegate?
    /// Alternative to the delegate: called with each live-stream result and its timestamp.
    public var resultCallback: ((Result<HolisticLandmarkerResult, Error>, Int) -> Void)?

    /// MediaPipe Python's earlier name of `minFacePresenceConfidence`.
    public var minFaceLandmarksConfidence: Float {
        get { minFacePresenceConfidence }
        set { minFacePresenceConfidence = newValue }
    }
    /// MediaPipe Python's earlier name of `minPosePresenceConfidence`.
    public var minPoseLandmarksConfidence: Float {
        get { minPosePresenceConfidence }
        set { minPosePresenceConfidence = newValue }
    }
    /// MediaPipe Python's earlier name of `outputPoseSegmentationMasks`.
    public var outputSegmentationMask: Bool {
        get { outputPoseSegmentationMasks }
        set { outputPoseSegmentationMasks = newValue }
    }

    public override init() { super.init() }

    func copy() -> HolisticLandmarkerOptions {
        let c = copyBase(into: HolisticLandmarkerOptions())
        c.minFaceDetectionConfidence = minFaceDetectionConfidence
        c.minFaceSuppressionThreshold = minFaceSuppressionThreshold
        c.minFacePresenceConfidence = minFacePresenceConfidence
        c.minPoseDetectionConfidence = minPoseDetectionConfidence
        c.minPoseSuppressionThreshold = minPoseSuppressionThreshold
        c.minPosePresenceConfidence = minPosePresenceConfidence
        c.minHandLandmarksConfidence = minHandLandmarksConfidence
        c.outputFaceBlendshapes = outputFaceBlendshapes
        c.outputPoseSegmentationMasks = outputPoseSegmentationMasks
        c.outputFacialTransformationMatrixes = outputFacialTransformationMatrixes
        c.faceGeometryModelAssetPath = faceGeometryModelAssetPath
        c.holisticLandmarkerLiveStreamDelegate = holisticLandmarkerLiveStreamDelegate
        c.resultCallback = resultCallback
        return c
    }

    var settings: HolisticPipeline.Settings {
        HolisticPipeline.Settings(minFaceDetectionConfidence: minFaceDetectionConfidence,
                                  minFaceSuppressionThreshold: minFaceSuppressionThreshold,
                                  minFacePresenceConfidence: minFacePresenceConfidence,
                                  minPoseDetectionConfidence: minPoseDetectionConfidence,
                                  minPoseSuppressionThreshold: minPoseSuppressionThreshold,
                                  minPosePresenceConfidence: minPosePresenceConfidence,
                                  minHandLandmarksConfidence: minHandLandmarksConfidence,
                                  blendshapes: outputFaceBlendshapes, segmentation: outputPoseSegmentationMasks,
                                  matrices: outputFacialTransformationMatrixes)
    }
}

extension HolisticLandmarkerOptions: LiveStreamReceivers {
    var hasLiveStreamDelegate: Bool { holisticLandmarkerLiveStreamDelegate != nil }
}

/// Receives the results of `HolisticLandmarker.detectAsync` on the landmarker's serial queue.
public protocol HolisticLandmarkerLiveStreamDelegate: AnyObject {
    func holisticLandmarker(_ holisticLandmarker: HolisticLandmarker,
                            didFinishDetection result: HolisticLandmarkerResult?,
                            timestampInMilliseconds: Int, error: Error?)
}

/// The method is optional, as in MediaPipe.
extension HolisticLandmarkerLiveStreamDelegate {
    public func holisticLandmarker(_ holisticLandmarker: HolisticLandmarker,
                                   didFinishDetection result: HolisticLandmarkerResult?,
                                   timestampInMilliseconds: Int, error: Error?) {}
}

/// One person's face, body and hands in an image (MediaPipe's `HolisticLandmarkerResult`). Each part is
/// empty when it was not found: landmarks normalized to the displayed image (x, y in [0, 1], z on the x
/// scale), world landmarks in metres (the pose's with the hips as origin; each hand's moved onto the
/// pose's wrist). The face has 478 landmarks, the pose 33, each hand 21.
public struct HolisticLandmarkerResult: Sendable, Equatable, Codable {
    public var faceLandmarks: [NormalizedLandmark] = []
    /// The face's 52 blendshapes, with `outputFaceBlendshapes` and a face; otherwise nil.
    public var faceBlendshapes: Classifications?
    public var poseLandmarks: [NormalizedLandmark] = []
    /// Always given with the pose (MediaPipe iOS leaves them empty).
    public var poseWorldLandmarks: [Landmark] = []
    /// The person's mask in the displayed image's pixels, with `outputPoseSegmentationMasks` and a pose;
    /// otherwise nil. Not part of the JSON encoding.
    public var poseSegmentationMask: Mask?
    public var leftHandLandmarks: [NormalizedLandmark] = []
    public var leftHandWorldLandmarks: [Landmark] = []
    public var rightHandLandmarks: [NormalizedLandmark] = []
    public var rightHandWorldLandmarks: [Landmark] = []
    /// Beyond MediaPipe: the face's transformation matrix, with `outputFacialTransformationMatrixes` and a face.
    public var facialTransformationMatrix: TransformMatrix?
    public var timestampInMilliseconds: Int = 0

    public init(timestampInMilliseconds: Int = 0) { self.timestampInMilliseconds = timestampInMilliseconds }

    /// A result of the given parts (MediaPipe iOS's designated initializer).
    public init(faceLandmarks: [NormalizedLandmark], faceBlendshapes: Classifications?,
                poseLandmarks: [NormalizedLandmark], poseWorldLandmarks: [Landmark], poseSegmentationMask: Mask?,
                leftHandLandmarks: [NormalizedLandmark], leftHandWorldLandmarks: [Landmark],
                rightHandLandmarks: [NormalizedLandmark], rightHandWorldLandmarks: [Landmark],
                timestampInMilliseconds: Int) {
        self.faceLandmarks = faceLandmarks; self.faceBlendshapes = faceBlendshapes
        self.poseLandmarks = poseLandmarks; self.poseWorldLandmarks = poseWorldLandmarks
        self.poseSegmentationMask = poseSegmentationMask
        self.leftHandLandmarks = leftHandLandmarks; self.leftHandWorldLandmarks = leftHandWorldLandmarks
        self.rightHandLandmarks = rightHandLandmarks; self.rightHandWorldLandmarks = rightHandWorldLandmarks
        self.timestampInMilliseconds = timestampInMilliseconds
    }

    /// The head's yaw, pitch and roll in degrees from the transformation matrix (see `HeadPose`); nil without one.
    public var headPose: HeadPose? { facialTransformationMatrix.flatMap { HeadPose(rowMajor: $0.data) } }

    enum CodingKeys: String, CodingKey {
        case faceLandmarks, faceBlendshapes, poseLandmarks, poseWorldLandmarks, leftHandLandmarks,
             leftHandWorldLandmarks, rightHandLandmarks, rightHandWorldLandmarks, facialTransformationMatrix
    }

    /// A result as `encode(to:)` writes it (no mask, timestamp 0; an empty blendshape list is none).
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        faceLandmarks = try c.decode([NormalizedLandmark].self, forKey: .faceLandmarks)
        let shapes = try c.decodeIfPresent([ResultCategory].self, forKey: .faceBlendshapes) ?? []
        faceBlendshapes = shapes.isEmpty ? nil : Classifications(categories: shapes)
        poseLandmarks = try c.decode([NormalizedLandmark].self, forKey: .poseLandmarks)
        poseWorldLandmarks = try c.decode([Landmark].self, forKey: .poseWorldLandmarks)
        leftHandLandmarks = try c.decode([NormalizedLandmark].self, forKey: .leftHandLandmarks)
        leftHandWorldLandmarks = try c.decode([Landmark].self, forKey: .leftHandWorldLandmarks)
        rightHandLandmarks = try c.decode([NormalizedLandmark].self, forKey: .rightHandLandmarks)
        rightHandWorldLandmarks = try c.decode([Landmark].self, forKey: .rightHandWorldLandmarks)
        facialTransformationMatrix = try c.decodeIfPresent(TransformMatrix.self, forKey: .facialTransformationMatrix)
    }

    /// MediaPipe's names, every part a list (empty when absent); the blendshapes as their categories.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(faceLandmarks, forKey: .faceLandmarks)
        try c.encode(faceBlendshapes?.categories ?? [], forKey: .faceBlendshapes)
        try c.encode(poseLandmarks, forKey: .poseLandmarks)
        try c.encode(poseWorldLandmarks, forKey: .poseWorldLandmarks)
        try c.encode(leftHandLandmarks, forKey: .leftHandLandmarks)
        try c.encode(leftHandWorldLandmarks, forKey: .leftHandWorldLandmarks)
        try c.encode(rightHandLandmarks, forKey: .rightHandLandmarks)
        try c.encode(rightHandWorldLandmarks, forKey: .rightHandWorldLandmarks)
        try c.encodeIfPresent(facialTransformationMatrix, forKey: .facialTransformationMatrix)
    }
}

/// The whole person at once, as MediaPipe Tasks' `HolisticLandmarker`: the body pose (33 landmarks, world
/// landmarks and an optional mask), both hands (21 landmarks each, from the pose's wrists) and the face mesh
/// (478 landmarks and optional blendshapes, from the pose's face), from holistic_landmarker.task (members
/// pose_detector, pose_landmarks_detector, hand_landmarks_detector, hand_roi_refinement, face_detector,
/// face_landmarks_detector and face_blendshapes .tflite). One person is found.
///
/// Results equal MediaPipe's; where MediaPipe fails this does not: world landmarks are always filled,
/// blendshapes work in every mode, image mode takes images of any size one after another and starts
/// afresh on each (MediaPipe carries one photo's regions into the next and fails on a size change with the
/// mask on), an oriented image is processed as displayed (MediaPipe ignores the rotation), and a region of
/// interest is taken (MediaPipe refuses one).
public final class HolisticLandmarker: DetectionTask<HolisticLandmarkerResult>, @unchecked Sendable {
    /// The options the landmarker was made with (a copy).
    public let options: HolisticLandmarkerOptions
    let pipeline: HolisticPipeline
    private let lock = NSLock()
    private var regions = RegionRunner()

    /// MediaPipe's drawing connections of the parts.
    public static let poseConnections = PoseLandmarker.poseLandmarks
    public static let handConnections = HandLandmarker.handConnections
    public static let faceConnections = FaceLandmarker.faceConnections()

    /// The 52 blendshape names in score order (`_neutral`, `browDownLeft`, ...).
    public static var blendshapeNames: [String] { FaceBlendshapesStage.categoryNames }

    /// The members a holistic landmarker bundle holds (face_blendshapes.tflite too, for the blendshapes).
    public static var bundleMembers: [String] { HolisticPipeline.layout.members }

    /// A landmarker in image mode with default options.
    public convenience init(modelPath: String) throws {
        let o = HolisticLandmarkerOptions()
        o.baseOptions.modelAssetPath = modelPath
        try self.init(options: o)
    }

    public init(options: HolisticLandmarkerOptions) throws {
        let options = options.copy()
        let settings = options.settings
        try OptionValidation.unitInterval(settings.confidences)
        let runner = try TaskRunner<HolisticLandmarkerResult>(options, label: "HolisticLandmarker",
                                                              delegate: "holisticLandmarkerLiveStreamDelegate")
        let path = try TaskSetup.modelPath(options.baseOptions)
        self.options = options
        pipeline = try VisionTaskError.wrappingModelErrors {
            // The bundle's bytes go once its members are read, before the interpreters are built.
            let (members, geometry) = try { () throws -> (HolisticPipeline.Members, [UInt8]?) in
                let source = try ModelSource(path: path)
                return (try HolisticPipeline.Members(source, settings: settings),
                        settings.matrices ? try Self.geometry(source, options.faceGeometryModelAssetPath) : nil)
            }()
            return try HolisticPipeline(members: members, threads: options.baseOptions.threads, settings: settings,
                                        geometry: geometry)
        }
        super.init(runner: runner)
        runner.deliver(to: self, options: \.options) { task, result, timestamp, error in
            task.options.holisticLandmarkerLiveStreamDelegate?.holisticLandmarker(
                task, didFinishDetection: result, timestampInMilliseconds: timestamp, error: error)
        }
    }

    /// The face geometry metadata: the bundle's member, else the file or bundle `path` names.
    static func geometry(_ source: ModelSource, _ path: String?) throws -> [UInt8] {
        let name = FacePipeline.geometryName
        if source.contains(name) { return try source.data(name) }
        guard let path, !path.isEmpty else {
            throw VisionTaskError.invalidOption("outputFacialTransformationMatrixes needs \(name): the bundle has none "
                                                + "and faceGeometryModelAssetPath is not set")
        }
        let found = try TaskSetup.resolve(path)
        if found.hasSuffix(".binarypb"), let data = FileManager.default.contents(atPath: found) { return [UInt8](data) }
        let other = try ModelSource(path: found)
        guard other.contains(name) else {
            throw VisionTaskError.invalidModel("\(found) has no \(name), which "
                                               + "outputFacialTransformationMatrixes needs")
        }
        return try other.data(name)
    }

    /// How many frames ran the pose detector (video and live stream skip it while the pose is tracked).
    public var poseDetectionCount: Int { lock.lock(); defer { lock.unlock() }; return pipeline.pose.detectorRuns }

    override func process(_ image: MPImage, timestamp: Int, roi: ImageProcessingOptions? = nil) throws
        -> HolisticLandmarkerResult {
        lock.lock(); defer { lock.unlock() }
        // Image mode starts afresh on each image; MediaPipe carries its tracking from one photo to the next.
        if options.runningMode == .image { pipeline.reset() }
        var failure: Error?
        let output = try regions.run(image, roi, pipeline: pipeline, { input -> HolisticLandmarkerResult in
            do {
                return try result(input, timestamp: timestamp)
            } catch {
                failure = error
                return HolisticLandmarkerResult(timestampInMilliseconds: timestamp)
            }
        }, map: { r, region in
            var r = r
            r.faceLandmarks = r.faceLandmarks.map(region.landmark)
            r.poseLandmarks = r.poseLandmarks.map(region.landmark)
            r.leftHandLandmarks = r.leftHandLandmarks.map(region.landmark)
            r.rightHandLandmarks = r.rightHandLandmarks.map(region.landmark)
            r.poseSegmentationMask = r.poseSegmentationMask.map(region.mask)
            return r
        })
        if let failure { throw failure }
        return output
    }

    /// The graph on the displayed image, its parts as the result gives them.
    func result(_ image: MPImage, timestamp: Int) throws -> HolisticLandmarkerResult {
        let upright = image.upright()
        let (w, h) = (upright.pixelWidth, upright.pixelHeight)
        let out = pipeline.process(upright, timestampMilliseconds: options.runningMode == .image ? 0 : timestamp)
        var r = HolisticLandmarkerResult(timestampInMilliseconds: timestamp)
        if let pose = out.pose {
            r.poseLandmarks = pose.landmarks
            r.poseWorldLandmarks = pose.worldLandmarks
            if options.outputPoseSegmentationMasks { r.poseSegmentationMask = pose.segmentationMask }
        }
        if let hand = out.leftHand {
            (r.leftHandLandmarks, r.leftHandWorldLandmarks) = (hand.landmarks, hand.worldLandmarks)
        }
        if let hand = out.rightHand {
            (r.rightHandLandmarks, r.rightHandWorldLandmarks) = (hand.landmarks, hand.worldLandmarks)
        }
        if let face = out.face {
            r.faceLandmarks = face.landmarks
            if let scores = try pipeline.blendshapeScores(face, imageWidth: w, imageHeight: h) {
                let names = FaceBlendshapesStage.categoryNames
                r.faceBlendshapes = Classifications(categories: scores.enumerated().map { i, score in
                    ResultCategory(index: i, score: score, categoryName: i < names.count ? names[i] : nil)
                })
            }
            r.facialTransformationMatrix = pipeline.transformationMatrix(face, imageWidth: w, imageHeight: h)
                .flatMap { TransformMatrix(data: $0, rows: 4, columns: 4) }
        }
        return r
    }
}
