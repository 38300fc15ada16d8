import Foundation

/// Options of a `FaceLandmarker` (MediaPipe Tasks' `FaceLandmarkerOptions`).
public final class FaceLandmarkerOptions: TaskOptions, @unchecked Sendable {
    /// Maximum number of faces to find.
    public var numFaces = 1
    /// Minimum face detection score, in [0, 1].
    public var minFaceDetectionConfidence: Float = 0.5
    /// Minimum face presence score of the landmark model, in [0, 1].
    public var minFacePresenceConfidence: Float = 0.5
    /// IoU above which a new detection is taken for a face already tracked (video and live stream).
    public var minTrackingConfidence: Float = 0.5
    /// Gives the 52 blendshape scores of each face (the bundle must hold face_blendshapes.tflite).
    public var outputFaceBlendshapes = false
    /// Gives each face's 4x4 transformation matrix (the bundle's geometry pipeline metadata).
    public var outputFacialTransformationMatrixes = false
    /// Beyond MediaPipe: gives each face's `tongue_out` score, which the landmark model computes and
    /// MediaPipe's graph drops (`FaceLandmarkerResult.tongueOutScores`).
    public var outputTongueOut = false
    /// Beyond MediaPipe: in video and live stream, smooths every tracked face, each with its own filters.
    /// MediaPipe smooths only with `numFaces` 1 (and refuses smoothing for more); with `numFaces` 1 the
    /// face is smoothed either way.
    public var smoothAllFaces = false
    /// Receives live-stream results (held weakly, as in MediaPipe).
    public weak var faceLandmarkerLiveStreamDelegate: FaceLandmarkerLiveStreamDelegate?
    /// Alternative to the delegate: called with each live-stream result and its timestamp.
    public var resultCallback: ((Result<FaceLandmarkerResult, Error>, Int) -> Void)?

    public override init() { super.init() }

    func copy() -> FaceLandmarkerOptions {
        let c = copyBase(into: FaceLandmarkerOptions())
        c.numFaces = numFaces
        c.minFaceDetectionConfidence = minFaceDetectionConfidence
        c.minFacePresenceConfidence = minFacePresenceConfidence
        c.minTrackingConfidence = minTrackingConfidence
        c.outputFaceBlendshapes = outputFaceBlendshapes
        c.outputFacialTransformationMatrixes = outputFacialTransformationMatrixes
        c.outputTongueOut = outputTongueOut
        c.smoothAllFaces = smoothAllFaces
        c.faceLandmarkerLiveStreamDelegate = faceLandmarkerLiveStreamDelegate
        c.resultCallback = resultCallback
        return c
    }

    var settings: FacePipeline.Settings {
        FacePipeline.Settings(numFaces: numFaces, minFaceDetectionConfidence: minFaceDetectionConfidence,
                              minFacePresenceConfidence: minFacePresenceConfidence,
                              minTrackingConfidence: minTrackingConfidence, blendshapes: outputFaceBlendshapes,
                              matrices: outputFacialTransformationMatrixes, smoothAllFaces: smoothAllFaces)
    }
}

/// Receives the results of `FaceLandmarker.detectAsync` on the landmarker's serial queue.
public protocol FaceLandmarkerLiveStreamDelegate: AnyObject {
    func faceLandmarker(_ faceLandmarker: FaceLandmarker, didFinishDetection result: FaceLandmarkerResult?,
                        timestampInMilliseconds: Int, error: Error?)
}

/// The method is optional, as in MediaPipe.
extension FaceLandmarkerLiveStreamDelegate {
    public func faceLandmarker(_ faceLandmarker: FaceLandmarker, didFinishDetection result: FaceLandmarkerResult?,
                               timestampInMilliseconds: Int, error: Error?) {}
}

/// A matrix of floats (MediaPipe's `TransformMatrix`), stored row-major.
///
/// MediaPipe's C++ result holds the facial transformation matrix column-major; MediaPipe Tasks iOS
/// copies those numbers and reads them back as if row-major, so its `value(atRow:column:)` gives the
/// transpose (the translation in the bottom row), while Python transposes back. This type gives the
/// matrix itself, as Python does: `value(atRow: 0, column: 3)` is the x translation. `data` is
/// row-major.
public struct TransformMatrix: Sendable, Equatable, Codable {
    public let rows: Int
    public let columns: Int
    /// rows x columns values, row-major.
    public let data: [Float]

    /// A matrix from row-major values; nil when their number is not `rows * columns`.
    public init?(data: [Float], rows: Int, columns: Int) {
        guard rows >= 0, columns >= 0, data.count == rows * columns else { return nil }
        self.rows = rows; self.columns = columns; self.data = data
    }

    /// The value at `row`, `column` (zero-based); NaN outside the matrix (MediaPipe raises an exception).
    public func value(atRow row: Int, column: Int) -> Float {
        guard (0..<rows).contains(row), (0..<columns).contains(column) else { return .nan }
        return data[row * columns + column]
    }
}

/// Faces found in one image: per face, 478 landmarks normalized to the displayed image (x, y in
/// [0, 1], z on the x scale, smaller towards the camera), and when asked, 52 blendshape scores and a
/// 4x4 transformation matrix from the canonical face model to MediaPipe's metric camera space.
public struct FaceLandmarkerResult: Sendable, Equatable, Codable {
    public var faceLandmarks: [[NormalizedLandmark]]
    /// Per face, when `outputFaceBlendshapes` is set; otherwise empty.
    public var faceBlendshapes: [Classifications]
    /// Per face, when `outputFacialTransformationMatrixes` is set; otherwise empty.
    public var facialTransformationMatrixes: [TransformMatrix]
    /// Per face, its `tongue_out` score when `outputTongueOut` is set (beyond MediaPipe); nil otherwise.
    public var tongueOutScores: [Float]?
    /// Per face, the ID of its track in video and live-stream mode (stable while the face is tracked,
    /// never reused); nil in image mode.
    public var trackingIds: [Int]?
    public var timestampInMilliseconds: Int

    public init(faceLandmarks: [[NormalizedLandmark]], faceBlendshapes: [Classifications] = [],
                facialTransformationMatrixes: [TransformMatrix] = [], timestampInMilliseconds: Int = 0) {
        self.faceLandmarks = faceLandmarks; self.faceBlendshapes = faceBlendshapes
        self.facialTransformationMatrixes = facialTransformationMatrixes
        self.timestampInMilliseconds = timestampInMilliseconds
    }

    /// Per face, yaw, pitch and roll in degrees from its transformation matrix (beyond MediaPipe; see
    /// `HeadPose` for the convention). Empty without `outputFacialTransformationMatrixes`.
    public var headPoses: [HeadPose] {
        facialTransformationMatrixes.compactMap { HeadPose(rowMajor: $0.data) }
    }

    enum CodingKeys: String, CodingKey {
        case faceLandmarks, faceBlendshapes, facialTransformationMatrixes, tongueOutScores, trackingIds
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        faceLandmarks = try c.decode([[NormalizedLandmark]].self, forKey: .faceLandmarks)
        faceBlendshapes = try c.decodeIfPresent([Classifications].self, forKey: .faceBlendshapes) ?? []
        facialTransformationMatrixes = try c.decodeIfPresent([TransformMatrix].self,
                                                             forKey: .facialTransformationMatrixes) ?? []
        tongueOutScores = try c.decodeIfPresent([Float].self, forKey: .tongueOutScores)
        trackingIds = try c.decodeIfPresent([Int].self, forKey: .trackingIds)
        timestampInMilliseconds = 0
    }
}

/// Finds faces and their 478-point mesh, blendshapes and transformation matrices, as MediaPipe Tasks'
/// `FaceLandmarker`, from face_landmarker.task (or face_landmarker_v2_with_blendshapes.task).
public final class FaceLandmarker: DetectionTask<FaceLandmarkerResult>, @unchecked Sendable {
    /// The options the landmarker was made with (a copy).
    public let options: FaceLandmarkerOptions
    let pipeline: FacePipeline
    private let lock = NSLock()
    private var regions = RegionRunner()

    // Connections for drawing: class functions, as MediaPipe iOS declares them (`+ (NSArray<MPPConnection *> *)
    // lipsConnections`, called `FaceLandmarker.lipsConnections()`), where the hand and pose sets are properties.
    /// The lips.
    public static func lipsConnections() -> [Connection] { FaceLandmarksConnections.lips }
    /// The left eye.
    public static func leftEyeConnections() -> [Connection] { FaceLandmarksConnections.leftEye }
    /// The left eyebrow.
    public static func leftEyebrowConnections() -> [Connection] { FaceLandmarksConnections.leftEyebrow }
    /// The left iris.
    public static func leftIrisConnections() -> [Connection] { FaceLandmarksConnections.leftIris }
    /// The right eye.
    public static func rightEyeConnections() -> [Connection] { FaceLandmarksConnections.rightEye }
    /// The right eyebrow.
    public static func rightEyebrowConnections() -> [Connection] { FaceLandmarksConnections.rightEyebrow }
    /// The right iris (MediaPipe iOS returns the left iris's here, a slip this does not copy).
    public static func rightIrisConnections() -> [Connection] { FaceLandmarksConnections.rightIris }
    /// The face oval.
    public static func faceOvalConnections() -> [Connection] { FaceLandmarksConnections.faceOval }
    /// Lips, eyes, eyebrows, irises and face oval.
    public static func contoursConnections() -> [Connection] { FaceLandmarksConnections.contours }
    /// The whole mesh's triangles' edges.
    public static func tesselationConnections() -> [Connection] { FaceLandmarksConnections.tesselation }
    /// Lips, contours and tesselation.
    public static func faceConnections() -> [Connection] { FaceLandmarksConnections.face }

    /// A landmarker in image mode with default options.
    public convenience init(modelPath: String) throws {
        let o = FaceLandmarkerOptions()
        o.baseOptions.modelAssetPath = modelPath
        try self.init(options: o)
    }

    public init(options: FaceLandmarkerOptions) throws {
        let options = options.copy()
        let settings = options.settings
        try settings.validate()
        let runner = try TaskRunner<FaceLandmarkerResult>(mode: options.runningMode, label: "FaceLandmarker",
                                hasReceiver: options.faceLandmarkerLiveStreamDelegate != nil
                                    || options.resultCallback != nil,
                                delegate: "faceLandmarkerLiveStreamDelegate")
        let path = try TaskSetup.modelPath(options.baseOptions)
        self.options = options
        pipeline = try VisionTaskError.wrappingModelErrors {
            try FacePipeline(source: try ModelSource(path: path), threads: options.baseOptions.threads,
                             settings: settings)
        }
        super.init(runner: runner)
        runner.notify = { [weak self] result, timestamp in
            guard let self else { return }
            self.options.resultCallback?(result, timestamp)
            self.options.faceLandmarkerLiveStreamDelegate?.faceLandmarker(self, didFinishDetection: try? result.get(),
                                                                           timestampInMilliseconds: timestamp,
                                                                           error: result.error)
        }
    }

    /// The 52 blendshape names in score order (`_neutral`, `browDownLeft`, ...).
    public static var blendshapeNames: [String] { FacePipeline.blendshapeNames }

    /// How many frames ran face detection (video and live stream skip it while faces are tracked).
    public var faceDetectionCount: Int { lock.lock(); defer { lock.unlock() }; return pipeline.detectorRuns }

    /// The faces of one image in stored-pixel coordinates (for tests and tools).
    func faces(_ image: MPImage, timestamp: Int = 0) throws -> [FacePipeline.Face] {
        lock.lock(); defer { lock.unlock() }
        return try pipeline.process(image, stream: options.runningMode != .image, timestampMilliseconds: timestamp)
    }

    override func process(_ image: MPImage, timestamp: Int, roi: ImageProcessingOptions? = nil) throws
        -> FaceLandmarkerResult {
        lock.lock(); defer { lock.unlock() }
        let stream = options.runningMode != .image
        var failure: Error?
        let output = try regions.run(image, roi, pipeline: pipeline, { input -> FaceLandmarkerResult in
            do {
                return self.result(try pipeline.process(input, stream: stream, timestampMilliseconds: timestamp),
                              image: input, timestamp: timestamp)
            } catch {
                failure = error
                return FaceLandmarkerResult(faceLandmarks: [], timestampInMilliseconds: timestamp)
            }
        }, map: { r, region in
            var r = r
            r.faceLandmarks = region.landmarks(r.faceLandmarks)
            return r
        })
        if let failure { throw failure }
        return output
    }

    func result(_ found: [FacePipeline.Face], image: MPImage, timestamp: Int) -> FaceLandmarkerResult {
        var result = FaceLandmarkerResult(faceLandmarks: found.map {
            FacePipeline.display($0.landmarks, orientation: image.orientation)
        }, timestampInMilliseconds: timestamp)
        if options.outputFaceBlendshapes {
            let names = FacePipeline.blendshapeNames
            result.faceBlendshapes = found.map { f in
                Classifications(categories: (f.blendshapes ?? []).enumerated().map { i, score in
                    ResultCategory(index: i, score: score, categoryName: i < names.count ? names[i] : nil)
                })
            }
        }
        if options.outputFacialTransformationMatrixes {
            result.facialTransformationMatrixes = found.compactMap { f in
                f.matrix.flatMap { TransformMatrix(data: $0, rows: 4, columns: 4) }
            }
        }
        if options.outputTongueOut { result.tongueOutScores = found.map(\.tongueOut) }
        if options.runningMode != .image { result.trackingIds = found.map { $0.trackId ?? 0 } }
        return result
    }
}
