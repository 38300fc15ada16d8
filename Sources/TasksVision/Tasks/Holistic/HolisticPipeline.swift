import Foundation
import TasksVisionEngine
import TasksVisionFormat

/// The holistic landmarker graph (mediapipe/tasks/cc/vision/holistic_landmarker/holistic_landmarker_graph.cc):
/// the pose first (`HolisticPoseTracking`), then each hand from the pose's wrist (`HolisticHandTracking`),
/// then the face from the pose's face landmarks (`HolisticFaceTracking`) with its blendshapes. It runs on
/// upright images; the task turns an oriented image upright first.
///
/// Beyond MediaPipe's graph: world landmarks are always given, blendshapes in every mode, and the optional
/// facial transformation matrix (the face landmarker's geometry pipeline). Image mode starts afresh on each
/// image (`reset()`), where MediaPipe carries its regions and mask from one photo to the next.
final class HolisticPipeline: RegionFramedPipeline {
    /// The graph's options (HolisticLandmarkerGraphOptions as the task sets them).
    struct Settings {
        var minFaceDetectionConfidence: Float = 0.5
        var minFaceSuppressionThreshold: Float = 0.3
        var minFacePresenceConfidence: Float = 0.5
        var minPoseDetectionConfidence: Float = 0.5
        var minPoseSuppressionThreshold: Float = 0.3
        var minPosePresenceConfidence: Float = 0.5
        var minHandLandmarksConfidence: Float = 0.5
        var blendshapes = false
        var segmentation = false
        var matrices = false

        var confidences: [(String, Float)] {
            [("minFaceDetectionConfidence", minFaceDetectionConfidence),
             ("minFaceSuppressionThreshold", minFaceSuppressionThreshold),
             ("minFacePresenceConfidence", minFacePresenceConfidence),
             ("minPoseDetectionConfidence", minPoseDetectionConfidence),
             ("minPoseSuppressionThreshold", minPoseSuppressionThreshold),
             ("minPosePresenceConfidence", minPosePresenceConfidence),
             ("minHandLandmarksConfidence", minHandLandmarksConfidence)]
        }
    }

    /// One frame's person, each part nil when it was not found; coordinates normalized to the image.
    struct Output {
        var pose: HolisticPoseTracking.Output?
        var leftHand: HolisticHandTracking.Output?
        var rightHand: HolisticHandTracking.Output?
        var face: FacePipeline.Face?
    }

    /// The bundle's members, by the names holistic_landmarker_graph.cc reads.
    static let layout = TaskBundleLayout(name: "holistic landmarker bundle", members: [
        "pose_detector.tflite", "pose_landmarks_detector.tflite", "hand_landmarks_detector.tflite",
        "hand_roi_refinement.tflite", "face_detector.tflite", "face_landmarks_detector.tflite",
    ])
    static let blendshapesName = "face_blendshapes.tflite"

    let settings: Settings
    let faceDetector: DetectorStage
    let faceLandmarks: FaceLandmarksStage
    let handLandmarks: HandLandmarksStage
    let handRefinement: HandRoiRefinementStage
    let blendshapes: FaceBlendshapesStage?
    let geometry: FaceGeometryPipeline?

    var pose: HolisticPoseTracking
    var leftHand = HolisticHandTracking(side: .left)
    var rightHand = HolisticHandTracking(side: .right)
    var face = HolisticFaceTracking()

    /// The graph's models, read from the bundle (or folder) at once, so that the bundle's bytes can go before the
    /// interpreters are built; each model's bytes go when its interpreter is built (`take`).
    final class Members {
        private var models: [String: TFLiteModel]
        let source: String

        /// The members of `source` the settings need, after checking the bundle holds them.
        init(_ source: ModelSource, settings: Settings) throws {
            try source.require(HolisticPipeline.layout)
            if settings.blendshapes && !source.contains(HolisticPipeline.blendshapesName) {
                throw VisionTaskError.invalidModel("\(source.name) has no \(HolisticPipeline.blendshapesName), which "
                                                   + "outputFaceBlendshapes needs")
            }
            let names = HolisticPipeline.layout.members
                + (settings.blendshapes ? [HolisticPipeline.blendshapesName] : [])
            models = try Dictionary(uniqueKeysWithValues: names.map { ($0, try source.model($0)) })
            self.source = source.name
        }

        /// The model `name`, handed over once.
        func take(_ name: String) throws -> TFLiteModel {
            guard let model = models.removeValue(forKey: name) else {
                throw VisionTaskError.invalidModel("\(source) has no \(name)")
            }
            return model
        }
    }

    /// `geometry`: the face geometry pipeline metadata (the face landmarker bundle's
    /// geometry_pipeline_metadata_landmarks.binarypb), needed with `settings.matrices`.
    init(members: Members, threads: Int, settings: Settings, geometry metadata: [UInt8]? = nil) throws {
        // The models run one after another: their activations share one arena, the largest model's size.
        let arena = try SharedArena()
        func resources(_ name: String, options: Interpreter.Options? = nil) throws -> ModelResources {
            var options = options ?? Interpreter.Options()
            options.sharedArena = arena
            return try ModelResources(model: try members.take(name), threads: threads, options: options)
        }
        self.settings = settings
        // The largest models first: each one's load-time copies come while the fewest interpreters exist.
        let poseLandmarks = try PoseLandmarksStage(try resources(TaskBundleLayout.poseLandmarksDetector))
        handLandmarks = try HandLandmarksStage(try resources(TaskBundleLayout.handLandmarksDetector))
        let poseDetector = try PosePipeline.detectorStage(
            try resources(TaskBundleLayout.poseDetector),
            minPoseDetectionConfidence: settings.minPoseDetectionConfidence,
            suppressionThreshold: settings.minPoseSuppressionThreshold)
        pose = HolisticPoseTracking(detector: poseDetector, landmarksStage: poseLandmarks,
                                    minPresence: settings.minPosePresenceConfidence,
                                    segmentation: settings.segmentation)
        faceLandmarks = try FaceLandmarksStage(try resources(FacePipeline.landmarksName))
        blendshapes = settings.blendshapes
            ? try FaceBlendshapesStage(resources: try resources(Self.blendshapesName,
                                                                options: FaceBlendshapesStage.interpreterOptions))
            : nil
        faceDetector = try FaceDetector.detectorStage(try resources(FacePipeline.detectorName),
                                                      minDetectionConfidence: settings.minFaceDetectionConfidence,
                                                      minSuppressionThreshold: settings.minFaceSuppressionThreshold)
        handRefinement = try HandRoiRefinementStage(try resources("hand_roi_refinement.tflite"))
        // The load-time copies are gone; the C allocator keeps their pages unless told to return them.
        GlibcAllocator.returnFreePages()
        if settings.matrices {
            guard let metadata else {
                throw VisionTaskError.invalidModel("outputFacialTransformationMatrixes needs the face geometry "
                                                   + "metadata (\(FacePipeline.geometryName))")
            }
            geometry = try FaceGeometryPipeline(metadata: metadata)
        } else {
            geometry = nil
        }
    }

    /// Every part starts afresh: no carried regions, landmarks, filters or mask.
    func reset() {
        pose = HolisticPoseTracking(detector: pose.detector, landmarksStage: pose.landmarksStage,
                                    minPresence: pose.minPresence, segmentation: pose.segmentation)
        leftHand = HolisticHandTracking(side: .left)
        rightHand = HolisticHandTracking(side: .right)
        face = HolisticFaceTracking()
    }

    /// A region of interest that moves starts the tracking afresh.
    func reframe(from: ImageRegion, to: ImageRegion) { reset() }

    /// One upright frame at `timestampMilliseconds` (0 in image mode).
    func process(_ image: MPImage, timestampMilliseconds: Int) -> Output {
        var out = Output()
        guard let person = pose.track(image, timestampMicroseconds: Int64(timestampMilliseconds) * 1000) else {
            // Without a pose the hand and face graphs get no input: their loopbacks carry nothing forward.
            leftHand = HolisticHandTracking(side: .left)
            rightHand = HolisticHandTracking(side: .right)
            face = HolisticFaceTracking()
            return out
        }
        out.pose = person
        out.leftHand = leftHand.track(image, pose: person.landmarks, poseWorld: person.worldLandmarks,
                                      refinement: handRefinement, landmarks: handLandmarks,
                                      minPresence: settings.minHandLandmarksConfidence)
        out.rightHand = rightHand.track(image, pose: person.landmarks, poseWorld: person.worldLandmarks,
                                        refinement: handRefinement, landmarks: handLandmarks,
                                        minPresence: settings.minHandLandmarksConfidence)
        out.face = face.track(image, pose: person.landmarks, detector: faceDetector, landmarks: faceLandmarks,
                              minPresence: settings.minFacePresenceConfidence)
        return out
    }

    /// The face's blendshape scores (52, in `FaceBlendshapesStage.categoryNames` order), when asked for.
    func blendshapeScores(_ face: FacePipeline.Face, imageWidth: Int, imageHeight: Int) throws -> [Float]? {
        try blendshapes?.scores(landmarks: face.landmarks, imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// The face's transformation matrix (16 floats, row-major), when asked for.
    func transformationMatrix(_ face: FacePipeline.Face, imageWidth: Int, imageHeight: Int) -> [Float]? {
        geometry?.transformationMatrix(landmarks: face.landmarks, imageWidth: imageWidth, imageHeight: imageHeight)
    }
}
