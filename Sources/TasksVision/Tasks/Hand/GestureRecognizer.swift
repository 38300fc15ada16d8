import Foundation
import TasksVisionEngine
import TasksVisionFormat

/// Options of a `GestureRecognizer` (MediaPipe Tasks' `GestureRecognizerOptions`).
public final class GestureRecognizerOptions: TaskOptions, HandTrackingOptions, @unchecked Sendable {
    /// Maximum number of hands to find.
    public var numHands = 1
    public var minHandDetectionConfidence: Float = 0.5
    public var minHandPresenceConfidence: Float = 0.5
    public var minTrackingConfidence: Float = 0.5
    /// Smooths landmarks over time per tracked hand in video and live-stream mode (one-euro filters,
    /// see `HandLandmarkSmoothing`). Off by default, as in MediaPipe, which does not smooth hands.
    public var smoothLandmarks = false
    /// Options of the canned classifier (None, Closed_Fist, Open_Palm, Pointing_Up, Thumb_Down, Thumb_Up,
    /// Victory, ILoveYou); nil keeps the defaults.
    public var cannedGesturesClassifierOptions: ClassifierOptions?
    /// Options of the custom classifier, when the bundle has one; nil keeps the defaults.
    public var customGesturesClassifierOptions: ClassifierOptions?
    /// Receives live-stream results (held weakly, as in MediaPipe).
    public weak var gestureRecognizerLiveStreamDelegate: GestureRecognizerLiveStreamDelegate?
    /// Alternative to the delegate: called with each live-stream result and its timestamp.
    public var resultCallback: ((Result<GestureRecognizerResult, Error>, Int) -> Void)?

    public override init() { super.init() }

    func copy() -> GestureRecognizerOptions {
        let c = copyBase(into: GestureRecognizerOptions())
        c.copyHandFields(from: self)
        c.cannedGesturesClassifierOptions = cannedGesturesClassifierOptions?.copy()
        c.customGesturesClassifierOptions = customGesturesClassifierOptions?.copy()
        c.gestureRecognizerLiveStreamDelegate = gestureRecognizerLiveStreamDelegate
        c.resultCallback = resultCallback
        return c
    }
}

extension GestureRecognizerOptions: LiveStreamReceivers {
    var hasLiveStreamDelegate: Bool { gestureRecognizerLiveStreamDelegate != nil }
}

/// Receives the results of `GestureRecognizer.recognizeAsync` on the recognizer's serial queue.
/// Both methods are optional, as in MediaPipe: `didFinishGestureRecognition` is the name in
/// MediaPipe's headers, `didFinishRecognition` the one its iOS guide shows; both are called.
public protocol GestureRecognizerLiveStreamDelegate: AnyObject {
    func gestureRecognizer(_ gestureRecognizer: GestureRecognizer,
                           didFinishGestureRecognition result: GestureRecognizerResult?,
                           timestampInMilliseconds: Int, error: Error?)
    func gestureRecognizer(_ gestureRecognizer: GestureRecognizer,
                           didFinishRecognition result: GestureRecognizerResult?,
                           timestampInMilliseconds: Int, error: Error?)
}

extension GestureRecognizerLiveStreamDelegate {
    public func gestureRecognizer(_ gestureRecognizer: GestureRecognizer,
                                  didFinishGestureRecognition result: GestureRecognizerResult?,
                                  timestampInMilliseconds: Int, error: Error?) {}
    public func gestureRecognizer(_ gestureRecognizer: GestureRecognizer,
                                  didFinishRecognition result: GestureRecognizerResult?,
                                  timestampInMilliseconds: Int, error: Error?) {}
}

/// Hands and their gestures in one image. Gesture categories have index -1, as in MediaPipe.
///
/// As in MediaPipe, `gestures` lists only the hands whose gesture passed the classifier options
/// (allow and deny lists, score threshold), in hand order; when no hand's gesture passed, the
/// whole result is empty (no hands, landmarks or handedness). With the default options every
/// hand has a gesture ("None" at worst), so `gestures[i]` belongs to hand `i`.
public struct GestureRecognizerResult: Sendable, Equatable, Codable {
    public var landmarks: [[NormalizedLandmark]]
    public var worldLandmarks: [[Landmark]]
    public var handedness: [[ResultCategory]]
    public var gestures: [[ResultCategory]]
    /// Per hand, the ID of its track in video and live-stream mode (stable while the hand is
    /// tracked, never reused); nil in image mode.
    public var trackingIds: [Int]?
    public var timestampInMilliseconds: Int = 0

    public init(gestures: [[ResultCategory]], handedness: [[ResultCategory]], landmarks: [[NormalizedLandmark]],
                worldLandmarks: [[Landmark]], timestampInMilliseconds: Int = 0) {
        self.landmarks = landmarks; self.worldLandmarks = worldLandmarks; self.handedness = handedness;
        self.gestures = gestures
        self.timestampInMilliseconds = timestampInMilliseconds
    }

    enum CodingKeys: String, CodingKey { case gestures, handedness, landmarks, worldLandmarks, trackingIds }
}

/// Recognizes hand gestures, as MediaPipe Tasks' `GestureRecognizer`: the hand landmarker,
/// then the gesture embedder and the canned (and optional custom) classifiers.
public final class GestureRecognizer: VisionTask<GestureRecognizerResult>, @unchecked Sendable {
    /// The options the recognizer was made with (a copy).
    public let options: GestureRecognizerOptions
    let pipeline: HandPipeline
    let embedder: Interpreter
    let canned: Classifier
    let custom: Classifier?
    let cannedOptions: ClassifierOptions
    let customOptions: ClassifierOptions
    private let lock = NSLock()
    private var regions = RegionRunner()

    /// A recognizer in image mode with default options.
    public convenience init(modelPath: String) throws {
        let o = GestureRecognizerOptions()
        o.baseOptions.modelAssetPath = modelPath
        try self.init(options: o)
    }

    public init(options: GestureRecognizerOptions) throws {
        let options = options.copy()
        let settings = options.handSettings
        try settings.validate()
        try options.cannedGesturesClassifierOptions?.validate("cannedGesturesClassifierOptions")
        try options.customGesturesClassifierOptions?.validate("customGesturesClassifierOptions")
        let runner = try TaskRunner<GestureRecognizerResult>(options, label: "GestureRecognizer",
                                                             delegate: "gestureRecognizerLiveStreamDelegate")
        let path = try TaskSetup.modelPath(options.baseOptions)
        self.options = options
        let models = try VisionTaskError.wrappingModelErrors { try Self.load(path: path, options: options) }
        (pipeline, embedder, canned, custom) = models
        // Options not given take the classifier's own score threshold from its metadata, as MediaPipe's
        // classification post-processing does (Model Maker writes 0.5 into custom classifiers).
        cannedOptions = options.cannedGesturesClassifierOptions
            ?? ClassifierOptions(scoreThreshold: canned.scoreThreshold ?? 0)
        customOptions = options.customGesturesClassifierOptions
            ?? ClassifierOptions(scoreThreshold: custom?.scoreThreshold ?? 0)
        super.init(runner: runner)
        runner.deliver(to: self, options: \.options) { task, result, timestamp, error in
            let delegate = task.options.gestureRecognizerLiveStreamDelegate
            delegate?.gestureRecognizer(task, didFinishGestureRecognition: result, timestampInMilliseconds: timestamp,
                                        error: error)
            delegate?.gestureRecognizer(task, didFinishRecognition: result, timestampInMilliseconds: timestamp,
                                        error: error)
        }
    }

    /// A classifier with its labels and the score threshold its metadata gives, if any.
    typealias Classifier = (interpreter: Interpreter, labels: [String], scoreThreshold: Float?)

    /// The hand landmarker, the gesture embedder and the classifiers of a bundle (or folder).
    static func load(path: String, options: GestureRecognizerOptions) throws
        -> (HandPipeline, Interpreter, Classifier, Classifier?) {
        // The two nested bundles out of the outer one, whose bytes go before the hand models are converted.
        let source = try ModelSource(path: path)
        let hands = try source.nestedIfPresent(TaskBundleLayout.handLandmarkerBundle)
        let gestures = try source.nestedIfPresent(TaskBundleLayout.handGestureRecognizerBundle)
        _ = consume source
        let pipeline = try HandPipeline(source: consume hands, threads: options.baseOptions.threads,
                                        settings: options.handSettings)
        let layout = TaskBundleLayout.handGestureRecognizer
        try gestures.require(layout, holds: TaskBundleLayout.gestureRecognizer.holds + ", which holds "
                                 + layout.members.joined(separator: " and "))
        let embedder = try GestureEmbedderModel.interpreter(try gestures.model(TaskBundleLayout.gestureEmbedder)) {
            VisionTaskError.invalidModel("\(TaskBundleLayout.gestureEmbedder) takes inputs "
                                         + "\($0.inputs.map(\.shape)), expected \(GestureEmbedderModel.inputShapes)")
        }
        let embeddingSize = embedder.outputs.first?.elementCount
        func classifier(_ name: String) throws -> Classifier {
            let model = try gestures.model(name)
            let interpreter = try Interpreter(model: model, options: .init(threads: 1))
            guard interpreter.inputs.first?.elementCount == embeddingSize else {
                throw VisionTaskError.invalidModel(
                    "\(name) input \(interpreter.inputs.first?.shape ?? []) does not take the embedding")
            }
            let labels = try model.labels()
            let threshold = try model.metadata()?.subgraphs.first?.outputs.first?.scoreThreshold
            return (interpreter, labels, threshold)
        }
        let custom = gestures.contains(TaskBundleLayout.customGestureClassifier)
            ? try classifier(TaskBundleLayout.customGestureClassifier) : nil
        return (pipeline, embedder, try classifier(TaskBundleLayout.cannedGestureClassifier), custom)
    }

    /// Recognizes gestures in a single image (`.image` mode).
    public func recognize(image: MPImage, imageProcessingOptions: ImageProcessingOptions? = nil) throws
        -> GestureRecognizerResult {
        try self.image("recognize(image:)", image, imageProcessingOptions)
    }

    /// Recognizes gestures in a video frame (`.video` mode); timestamps must increase.
    public func recognize(videoFrame image: MPImage, timestampInMilliseconds: Int,
                          imageProcessingOptions: ImageProcessingOptions? = nil) throws -> GestureRecognizerResult {
        try video("recognize(videoFrame:timestampInMilliseconds:)", image, timestampInMilliseconds,
                  imageProcessingOptions)
    }

    /// Sends a live-stream frame (`.liveStream` mode) and returns at once; false when it was dropped.
    @discardableResult
    public func recognizeAsync(image: MPImage, timestampInMilliseconds: Int,
                               imageProcessingOptions: ImageProcessingOptions? = nil) throws -> Bool {
        try live("recognizeAsync(image:timestampInMilliseconds:)", image, timestampInMilliseconds,
                 imageProcessingOptions)
    }

    /// A single image without blocking the caller (`.image` mode).
    public func recognize(image: MPImage, imageProcessingOptions: ImageProcessingOptions? = nil) async throws
        -> GestureRecognizerResult {
        try await imageAsync("recognize(image:)", image, imageProcessingOptions)
    }

    /// A video frame without blocking the caller (`.video` mode).
    public func recognize(videoFrame image: MPImage, timestampInMilliseconds: Int,
                          imageProcessingOptions: ImageProcessingOptions? = nil) async throws
        -> GestureRecognizerResult {
        try await videoAsync("recognize(videoFrame:timestampInMilliseconds:)", image, timestampInMilliseconds,
                             imageProcessingOptions)
    }

    public var palmDetectionCount: Int { lock.lock(); defer { lock.unlock() }; return pipeline.palmDetectionRuns }

    /// Hands (stored-pixel coordinates) with their gestures.
    func handsAndGestures(_ image: MPImage, timestamp: Int = 0)
        -> [(hand: HandPipeline.Hand, gestures: [ResultCategory])] {
        lock.lock(); defer { lock.unlock() }
        return handsAndGesturesLocked(image, timestamp: timestamp)
    }

    private func handsAndGesturesLocked(_ image: MPImage, timestamp: Int)
        -> [(hand: HandPipeline.Hand, gestures: [ResultCategory])] {
        let hands = pipeline.process(image, stream: options.runningMode != .image, timestampMilliseconds: timestamp)
        return hands.map { ($0, gestures(for: $0, image: image)) }
    }

    /// The embedder and classifiers for one hand (hand_gesture_recognizer_graph.cc).
    func gestures(for hand: HandPipeline.Hand, image: MPImage) -> [ResultCategory] {
        let o = image.orientation
        let landmarkPoints: [SIMD3<Float>]
        let worldPoints: [SIMD3<Float>]
        var size: (Int, Int) = (image.pixelWidth, image.pixelHeight)
        var rotation = ImageToTensor.fullImageRoi(image).rotation
        if o.isMirrored {
            // MediaPipe has no mirrored input: classify the displayed (unmirrored) hand.
            let d = HandPipeline.display(hand, orientation: o)
            landmarkPoints = d.landmarks.map { SIMD3($0.x, $0.y, $0.z) }
            worldPoints = d.world.map { SIMD3($0.x, $0.y, $0.z) }
            size = (image.width, image.height)
            rotation = 0
        } else {
            landmarkPoints = hand.landmarks.map { SIMD3($0.x, $0.y, $0.z) }
            worldPoints = hand.worldLandmarks.map { SIMD3($0.x, $0.y, $0.z) }
        }
        let features = LandmarksToMatrix.features(landmarkPoints, imageWidth: size.0, imageHeight: size.1,
                                                  rotation: rotation)
        let world = LandmarksToMatrix.features(worldPoints, imageWidth: nil, imageHeight: nil, rotation: rotation)
        // HandednessToMatrix: the probability of "Right".
        let h = hand.handedness
        let right = h.categoryName == "Right" ? h.score : 1 - h.score
        try? embedder.setInput(0, features)
        try? embedder.setInput(1, [right])
        try? embedder.setInput(2, world)
        embedder.invoke()
        var lists: [[ResultCategory]] = []
        embedder.stageOutput(0) { embedding in
            let e = Array(embedding)
            if let custom {
                try? custom.interpreter.setInput(0, e)
                custom.interpreter.invoke()
                let scores = (try? custom.interpreter.output(0)) ?? []
                lists.append(ClassificationPostprocessing.categories(scores, labels: custom.labels,
                                                                     options: customOptions))
            }
            try? canned.interpreter.setInput(0, e)
            canned.interpreter.invoke()
            let scores = (try? canned.interpreter.output(0)) ?? []
            lists.append(ClassificationPostprocessing.categories(scores, labels: canned.labels, options: cannedOptions))
        }
        return CombinedPrediction.combine(lists).map { [$0] } ?? []
    }

    override func process(_ image: MPImage, timestamp: Int, roi: ImageProcessingOptions? = nil) throws
        -> GestureRecognizerResult {
        lock.lock(); defer { lock.unlock() }
        return try regions.run(image, roi, pipeline: pipeline, { input in
            result(handsAndGesturesLocked(input, timestamp: timestamp), image: input, timestamp: timestamp)
        }, map: { r, region in
            var r = r
            r.landmarks = region.landmarks(r.landmarks)
            return r
        })
    }

    func result(_ found: [(hand: HandPipeline.Hand, gestures: [ResultCategory])], image: MPImage,
                timestamp: Int) -> GestureRecognizerResult {
        var r = GestureRecognizerResult(gestures: [], handedness: [], landmarks: [], worldLandmarks: [],
                                        timestampInMilliseconds: timestamp)
        // As MediaPipe's graph: a hand whose gesture did not survive the classifier options has no
        // entry in `gestures` (EndLoopCalculator skips it), and with no gesture at all the task
        // returns an empty result, without the hands (GestureRecognizer::Recognize).
        guard found.contains(where: { !$0.gestures.isEmpty }) else {
            if options.runningMode != .image { r.trackingIds = [] }
            return r
        }
        for (hand, gestures) in found {
            let d = HandPipeline.display(hand, orientation: image.orientation)
            r.landmarks.append(d.landmarks)
            r.worldLandmarks.append(d.world)
            r.handedness.append([hand.handedness])
            if !gestures.isEmpty { r.gestures.append(gestures) }
        }
        if options.runningMode != .image { r.trackingIds = found.map { $0.hand.trackId ?? 0 } }
        return r
    }
}
