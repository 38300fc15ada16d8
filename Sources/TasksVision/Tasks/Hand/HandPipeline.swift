import Foundation
import TasksVisionEngine
import TasksVisionFormat

/// The hand landmarker graph shared by `HandLandmarker` and `GestureRecognizer`: palm
/// detection, palm-to-hand rects, the landmark model on rotated crops, tracking from
/// the previous frame's landmarks in stream modes, and deduplication.
final class HandPipeline: RegionFramedPipeline {
    /// The palm rect's target rotation, in radians. MediaPipe Tasks calls
    /// `set_rotation_vector_target_angle(90)` on a field that is in radians
    /// (hand_detector_graph.cc), so the palm-to-hand rect is turned by 90 rad
    /// (= 2.035 rad mod 2pi), not pi/2 as in the legacy graphs. The reference outputs
    /// of the official Tasks API agree with 90 (HandLandmarkerParityTests checks both).
    static let palmRotationTargetAngle: Float = 90

    struct Hand {
        /// In normalized coordinates of the stored pixels.
        var landmarks: [NormalizedLandmark]
        var worldLandmarks: [Landmark]
        var handedness: ResultCategory
        var presence: Float
        var nextFrameRect: NormalizedRect
        /// The track the hand belongs to (stream modes).
        var trackId: Int?
    }

    /// The options of the hand landmarker graph.
    struct Settings {
        var numHands: Int
        var minHandDetectionConfidence: Float
        var minHandPresenceConfidence: Float
        var minTrackingConfidence: Float
        /// Smooth landmarks over time per tracked hand (stream modes; off in MediaPipe).
        var smoothLandmarks = false

        func validate() throws {
            try OptionValidation.atLeastOne("numHands", numHands)
            try OptionValidation.unitInterval([("minHandDetectionConfidence", minHandDetectionConfidence),
                                               ("minHandPresenceConfidence", minHandPresenceConfidence),
                                               ("minTrackingConfidence", minTrackingConfidence)])
        }
    }

    let palm: DetectorStage
    /// The landmark model (`SingleHandLandmarksDetectorGraph`).
    let landmarkStage: HandLandmarksStage
    var settings: Settings
    var palmTargetAngle = HandPipeline.palmRotationTargetAngle

    /// Hand rects carried to the next frame with their track IDs (stream modes).
    var tracked: [TrackedRect] = []
    var trackIds = TrackIdCounter()
    var smoothing = HandLandmarkSmoothing()
    /// How many times palm detection ran (for tests and benchmarks).
    private(set) var palmDetectionRuns = 0

    init(source: consuming ModelSource, threads: Int, settings: Settings) throws {
        try source.require(.handLandmarker)
        // The two models run one after another: their activations share one arena, the larger one's size.
        let options = try Interpreter.Options.sharingOneArena()
        // Both models out of the bundle, and the bundle's bytes gone, before either is converted.
        let palmFile = try source.model(TaskBundleLayout.palmDetector)
        let landmarkFile = try source.model(TaskBundleLayout.handLandmarksDetector)
        _ = consume source
        let palmModel = try ModelResources(model: consume palmFile, threads: threads, options: options)
        landmarkStage = try HandLandmarksStage(try ModelResources(model: consume landmarkFile, threads: threads,
                                                                  options: options))
        palm = try Self.palmStage(palmModel, minScore: settings.minHandDetectionConfidence)
        self.settings = settings
        GlibcAllocator.returnFreePages()
    }

    /// The palm detector of hand_detector_graph.cc (a 192x192 SSD, NMS threshold 0.3).
    static func palmStage(_ model: ModelResources, minScore: Float) throws -> DetectorStage {
        guard model.inputWidth == 192, model.inputHeight == 192, model.interpreter.outputs.count == 2,
              model.interpreter.outputs[0].elementCount == 2016 * 18 else {
            throw VisionTaskError.invalidModel("\(model.name) is not a 192x192 palm detector with 2016 boxes")
        }
        try model.requireFloat32("the palm detector")
        return DetectorStage(resources: model, anchors: SsdAnchors.generate(.palm), decoding: .palm(minScore: minScore),
                             range: try model.inputRange(default: .init(min: 0, max: 1)), suppressionThreshold: 0.3)
    }

    /// The hand rect of a palm (normalized, stored pixels): the palm-to-hand rect of hand_detector_graph.cc.
    static func handRect(palm d: RawDetection, image: MPImage,
                         targetAngle: Float = palmRotationTargetAngle) -> NormalizedRect {
        let r = DetectionsToRects.rect(d, imageWidth: image.pixelWidth, imageHeight: image.pixelHeight,
                                       startKeypoint: 0, endKeypoint: 2, targetAngle: targetAngle)
        return RectTransformation.palmToHand.apply(r, imageWidth: image.pixelWidth, imageHeight: image.pixelHeight)
    }

    /// Palm detection: hand rects (normalized, stored pixels), at most `numHands`.
    func detectHandRects(_ image: MPImage) -> [NormalizedRect] {
        palmDetectionRuns += 1
        let palms = palm.run(image).projected()
        return palms.prefix(settings.numHands).map {
            Self.handRect(palm: $0, image: image, targetAngle: palmTargetAngle)
        }
    }

    /// The landmark model's input for one hand rect: the rotated crop, 8-bit RGB; nil for a zero rect (MediaPipe
    /// skips those).
    func crop(_ image: MPImage, rect: NormalizedRect) -> [UInt8]? { landmarkStage.crop(image, rect: rect) }

    /// The landmark model on one hand rect; nil when the hand is not present.
    func landmarks(_ image: MPImage, rect: NormalizedRect) -> Hand? {
        landmarkStage.landmarks(image, rect: rect, minPresence: settings.minHandPresenceConfidence)
    }

    /// The landmark model on the crop of one hand rect (`crop(_:rect:)`).
    func landmarks(_ image: MPImage, rect: NormalizedRect, crop pixels: [UInt8]) -> Hand? {
        landmarkStage.landmarks(image, rect: rect, crop: pixels, minPresence: settings.minHandPresenceConfidence)
    }

    /// One frame. In stream mode, tracked hands are followed and palm detection runs only
    /// while fewer than `numHands` hands are tracked; each hand carries its track ID.
    func process(_ image: MPImage, stream: Bool, timestampMilliseconds: Int = 0) -> [Hand] {
        var rects: [TrackedRect]
        if stream {
            rects = tracked.count >= settings.numHands ? tracked
                : TrackIdAssociation.hands(tracked: tracked, detected: detectHandRects(image),
                                           minSimilarity: settings.minTrackingConfidence)
            rects = trackIds.assign(Array(rects.prefix(settings.numHands)))
        } else {
            rects = detectHandRects(image).prefix(settings.numHands).map { TrackedRect(rect: $0) }
        }
        // Every crop before the first landmark model: the models' weights and activations push the image out of
        // the caches, so the crops read it while one fetch of its pixels serves them all.
        let crops = rects.map { crop(image, rect: $0.rect) }
        let found = zip(rects, crops).compactMap { r, pixels in
            pixels.flatMap { landmarks(image, rect: r.rect, crop: $0) }.map { h in
                var h = h; h.trackId = r.id; return h
            }
        }
        var kept = HandDeduplication.kept(found.map(\.landmarks), imageWidth: image.pixelWidth,
                                          imageHeight: image.pixelHeight)
            .map { found[$0] }
        guard stream else { return kept }
        tracked = kept.map { TrackedRect(rect: $0.nextFrameRect, id: $0.trackId) }
        if settings.smoothLandmarks {
            let smoothed = smoothing.smooth(kept.map {
                HandLandmarkSmoothing.Hand(id: $0.trackId ?? 0, landmarks: $0.landmarks, world: $0.worldLandmarks,
                                           rect: $0.nextFrameRect)
            }, imageWidth: image.pixelWidth, imageHeight: image.pixelHeight,
                                            timestampMilliseconds: timestampMilliseconds)
            for i in kept.indices { (kept[i].landmarks, kept[i].worldLandmarks) = smoothed[i] }
        }
        return kept
    }

    func reframe(from: ImageRegion, to: ImageRegion) {
        tracked = tracked.map { TrackedRect(rect: from.reframe($0.rect, to: to), id: $0.id) }
        smoothing = HandLandmarkSmoothing()
    }

    /// Converts a hand from stored-pixel coordinates to the displayed image.
    static func display(_ hand: Hand,
                        orientation o: ImageOrientation) -> (landmarks: [NormalizedLandmark], world: [Landmark]) {
        if o == .up { return (hand.landmarks, hand.worldLandmarks) }
        let landmarks = hand.landmarks.map { lm -> NormalizedLandmark in
            var out = lm
            let p = o.displayPoint(fromStored: (x: lm.x, y: lm.y))
            out.x = p.x; out.y = p.y
            return out
        }
        // World coordinates turn with the image about their origin (and mirror in x).
        let world = hand.worldLandmarks.map { lm -> Landmark in
            var out = lm
            switch o.rotationDegrees {
            case 90: (out.x, out.y) = (-lm.y, lm.x)
            case 180: (out.x, out.y) = (-lm.x, -lm.y)
            case 270: (out.x, out.y) = (lm.y, -lm.x)
            default: break
            }
            if o.isMirrored { out.x = -out.x }
            return out
        }
        return (landmarks, world)
    }
}
