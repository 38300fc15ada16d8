import Foundation
import TasksVisionEngine
import TasksVisionFormat

/// The face landmarker graph (mediapipe/tasks/cc/vision/face_landmarker): BlazeFace detection,
/// eye-levelled face rects, the 478-landmark model on stretched rotated crops, presence, tracking from
/// the previous frame's landmarks in stream modes, one-euro smoothing, then blendshapes and the
/// facial transformation matrix from the (smoothed) landmarks.
final class FacePipeline: RegionFramedPipeline {
    struct Face {
        /// 478 landmarks, normalized to the stored pixels.
        var landmarks: [NormalizedLandmark]
        /// The model's face presence, a sigmoid.
        var presence: Float
        /// The model's `tongue_out` score, which MediaPipe's graph reads and drops.
        var tongueOut: Float
        var nextFrameRect: NormalizedRect
        /// The track the face belongs to (stream modes).
        var trackId: Int?
        /// 52 blendshape scores (`FaceBlendshapesStage.categoryNames` order), when asked for.
        var blendshapes: [Float]?
        /// The facial transformation matrix, 16 floats row-major, when asked for.
        var matrix: [Float]?
    }

    /// The options of the face landmarker graph.
    struct Settings {
        var numFaces: Int
        var minFaceDetectionConfidence: Float
        var minFacePresenceConfidence: Float
        var minTrackingConfidence: Float
        var blendshapes = false
        var matrices = false
        /// Smooth every tracked face in stream modes (MediaPipe smooths only with `numFaces` 1).
        var smoothAllFaces = false

        func validate() throws {
            try OptionValidation.atLeastOne("numFaces", numFaces)
            try OptionValidation.unitInterval([("minFaceDetectionConfidence", minFaceDetectionConfidence),
                                               ("minFacePresenceConfidence", minFacePresenceConfidence),
                                               ("minTrackingConfidence", minTrackingConfidence)])
        }
    }

    static let landmarkCount = FaceLandmarksStage.landmarkCount
    static let detectorName = "face_detector.tflite"
    static let landmarksName = "face_landmarks_detector.tflite"
    static let blendshapesName = "face_blendshapes.tflite"
    static let geometryName = "geometry_pipeline_metadata_landmarks.binarypb"
    /// MediaPipe's text when blendshapes are asked of a bundle without the model (face_landmarker_graph.cc).
    static let missingBlendshapesText = "INVALID_ARGUMENT: BLENDSHAPES Tag and blendshapes model must be both set. "
        + "Get BLENDSHAPES is set: true, blendshapes model is set: false"

    /// The 52 blendshape names in score order.
    static var blendshapeNames: [String] { FaceBlendshapesStage.categoryNames }

    let detector: DetectorStage
    /// The landmark model (`SingleFaceLandmarksDetectorGraph`).
    let landmarkStage: FaceLandmarksStage
    var settings: Settings
    let blendshapeScores: (([NormalizedLandmark], Int, Int) throws -> [Float])?
    let transformationMatrix: (([NormalizedLandmark], Int, Int) -> [Float]?)?

    var tracked: [TrackedRect] = []
    var trackIds = TrackIdCounter()
    var smoothing = FaceLandmarkSmoothing()
    private(set) var detectorRuns = 0

    init(source: ModelSource, threads: Int, settings: Settings) throws {
        for name in [Self.detectorName, Self.landmarksName] where !source.contains(name) {
            throw VisionTaskError.invalidModel("\(source.name) has no \(name) (a face landmarker bundle holds "
                                               + "\(Self.detectorName) and \(Self.landmarksName))")
        }
        if settings.blendshapes && !source.contains(Self.blendshapesName) {
            throw VisionTaskError.invalidModel(Self.missingBlendshapesText)
        }
        if settings.matrices && !source.contains(Self.geometryName) {
            throw VisionTaskError.invalidModel("\(source.name) has no \(Self.geometryName), which "
                                               + "outputFacialTransformationMatrixes needs")
        }
        // The models run one after another: their activations share one arena, the largest one's size.
        let options = try Interpreter.Options.sharingOneArena()
        let detectorModel = try ModelResources(model: try source.model(Self.detectorName), threads: threads,
                                               options: options)
        detector = try FaceDetector.detectorStage(detectorModel, minDetectionConfidence:
                                                    settings.minFaceDetectionConfidence,
                                                  minSuppressionThreshold: 0.5)
        landmarkStage = try FaceLandmarksStage(try ModelResources(model: try source.model(Self.landmarksName),
                                                                  threads: threads, options: options))
        self.settings = settings
        blendshapeScores = settings.blendshapes
            ? try Self.blendshapesStage(try source.model(Self.blendshapesName), threads: threads,
                                        arena: options.sharedArena) : nil
        transformationMatrix = settings.matrices
            ? try Self.geometryStage(try source.data(Self.geometryName)) : nil
        GlibcAllocator.returnFreePages()
    }

    static func blendshapesStage(_ model: TFLiteModel, threads: Int, arena: SharedArena? = nil) throws
        -> ([NormalizedLandmark], Int, Int) throws -> [Float] {
        let stage = try FaceBlendshapesStage(model: model, threads: threads, arena: arena)
        return { try stage.scores(landmarks: $0, imageWidth: $1, imageHeight: $2) }
    }

    static func geometryStage(_ bytes: [UInt8]) throws -> ([NormalizedLandmark], Int, Int) -> [Float]? {
        let pipeline = try FaceGeometryPipeline(metadata: bytes)
        return { pipeline.transformationMatrix(landmarks: $0, imageWidth: $1, imageHeight: $2) }
    }

    /// Face detection: expanded face rects (normalized, stored pixels), at most `numFaces`.
    func detectFaceRects(_ image: MPImage) -> [NormalizedRect] {
        detectorRuns += 1
        return detector.run(image).projected().prefix(settings.numFaces).map {
            FaceRects.fromDetection($0, imageWidth: image.pixelWidth, imageHeight: image.pixelHeight)
        }
    }

    /// The landmark model's input for a face rect (the stretched rotated crop); nil for a zero rect.
    func crop(_ image: MPImage, rect: NormalizedRect) -> [UInt8]? { landmarkStage.crop(image, rect: rect) }

    /// The landmark model on one face rect, with the face whatever its presence (`landmarks` filters).
    func run(_ image: MPImage, rect: NormalizedRect) -> Face? { landmarkStage.run(image, rect: rect) }

    /// The landmark model on one face rect; nil when the face is not present (presence at or below
    /// `minFacePresenceConfidence`, MediaPipe's `ThresholdingCalculator`).
    func landmarks(_ image: MPImage, rect: NormalizedRect) -> Face? {
        landmarkStage.landmarks(image, rect: rect, minPresence: settings.minFacePresenceConfidence)
    }

    /// One frame. In stream mode the detector runs only while fewer than `numFaces` faces are tracked, new
    /// detections joining the tracked rects as `AssociationNormRectCalculator` joins them; with `numFaces` 1
    /// the face is smoothed (every face with `smoothAllFaces`).
    func process(_ image: MPImage, stream: Bool, timestampMilliseconds: Int) throws -> [Face] {
        var rects: [TrackedRect]
        if stream {
            rects = tracked.count >= settings.numFaces ? tracked
                : TrackIdAssociation.poses([tracked, detectFaceRects(image).map { TrackedRect(rect: $0) }],
                                           minSimilarity: settings.minTrackingConfidence)
            rects = trackIds.assign(Array(rects.prefix(settings.numFaces)))
        } else {
            rects = detectFaceRects(image).map { TrackedRect(rect: $0) }
        }
        var faces = rects.compactMap { r in
            landmarks(image, rect: r.rect).map { f in var f = f; f.trackId = r.id; return f }
        }
        let (w, h) = (image.pixelWidth, image.pixelHeight)
        if stream {
            tracked = faces.map { TrackedRect(rect: $0.nextFrameRect, id: $0.trackId) }
            let smoothed = settings.numFaces == 1 || settings.smoothAllFaces ? faces.count : 0
            let out = smoothing.smooth(faces: faces.prefix(smoothed).map { ($0.trackId ?? 0, $0.landmarks) },
                                       imageWidth: w, imageHeight: h, timestampMilliseconds: timestampMilliseconds)
            for i in out.indices { faces[i].landmarks = out[i] }
        }
        for i in faces.indices {
            faces[i].blendshapes = try blendshapeScores?(faces[i].landmarks, w, h)
            faces[i].matrix = transformationMatrix?(faces[i].landmarks, w, h)
        }
        return faces
    }

    func reframe(from: ImageRegion, to: ImageRegion) {
        tracked = tracked.map { TrackedRect(rect: from.reframe($0.rect, to: to), id: $0.id) }
        smoothing = FaceLandmarkSmoothing()
    }

    /// Landmarks from stored-pixel coordinates to the displayed image.
    static func display(_ lms: [NormalizedLandmark], orientation o: ImageOrientation) -> [NormalizedLandmark] {
        if o == .up { return lms }
        return lms.map { lm in
            var out = lm
            let p = o.displayPoint(fromStored: (x: lm.x, y: lm.y))
            out.x = p.x; out.y = p.y
            return out
        }
    }
}
