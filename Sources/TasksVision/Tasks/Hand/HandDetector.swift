import Foundation

/// Options of a `HandDetector`: the palm detector of the hand landmarker, alone.
public final class HandDetectorOptions: TaskOptions, @unchecked Sendable {
    /// Maximum number of palms to report, best first.
    public var numHands = 1
    /// Minimum palm detection score, in [0, 1].
    public var minHandDetectionConfidence: Float = 0.5
    /// Receives live-stream results (held weakly).
    public weak var handDetectorLiveStreamDelegate: HandDetectorLiveStreamDelegate?
    /// Alternative to the delegate: called with each live-stream result and its timestamp.
    public var resultCallback: ((Result<HandDetectorResult, Error>, Int) -> Void)?

    public override init() { super.init() }

    func copy() -> HandDetectorOptions {
        let c = copyBase(into: HandDetectorOptions())
        c.numHands = numHands
        c.minHandDetectionConfidence = minHandDetectionConfidence
        c.handDetectorLiveStreamDelegate = handDetectorLiveStreamDelegate
        c.resultCallback = resultCallback
        return c
    }
}

extension HandDetectorOptions: LiveStreamReceivers {
    var hasLiveStreamDelegate: Bool { handDetectorLiveStreamDelegate != nil }
}

/// Receives the results of `HandDetector.detectAsync` on the detector's serial queue (optional method).
public protocol HandDetectorLiveStreamDelegate: AnyObject {
    func handDetector(_ handDetector: HandDetector, didFinishDetection result: HandDetectorResult?,
                      timestampInMilliseconds: Int, error: Error?)
}

extension HandDetectorLiveStreamDelegate {
    public func handDetector(_ handDetector: HandDetector, didFinishDetection result: HandDetectorResult?,
                             timestampInMilliseconds: Int, error: Error?) {}
}

/// The palms found in one image.
public struct HandDetectorResult: Sendable, Equatable, Codable {
    /// Per palm: the box in pixels of the image as displayed, the palm detector's 7 keypoints
    /// (wrist, then the base of each finger and the thumb joints) normalized, and the score.
    public var detections: [Detection]
    /// Per palm, the rotated hand rectangle the hand landmarker would crop its landmark model's
    /// input from (normalized to the displayed image; rotation in radians).
    public var handRectangles: [NormalizedRect]
    public var timestampInMilliseconds: Int = 0

    public init(detections: [Detection], handRectangles: [NormalizedRect], timestampInMilliseconds: Int = 0) {
        self.detections = detections; self.handRectangles = handRectangles
        self.timestampInMilliseconds = timestampInMilliseconds
    }

    enum CodingKeys: String, CodingKey { case detections, handRectangles }
}

/// Palm detection alone: the first stage of `HandLandmarker`, for when the landmark model is too
/// slow or only where the hands are matters. It runs on every frame in every mode (there is no
/// tracking to skip it); the palms and rectangles are those the landmarker uses.
public final class HandDetector: DetectionTask<HandDetectorResult>, @unchecked Sendable {
    /// The options the detector was made with (a copy).
    public let options: HandDetectorOptions
    let palm: DetectorStage
    let numHands: Int
    private let lock = NSLock()

    /// A detector in image mode with default options, from a hand landmarker bundle, a gesture
    /// recognizer bundle or a palm detection `.tflite`.
    public convenience init(modelPath: String) throws {
        let o = HandDetectorOptions()
        o.baseOptions.modelAssetPath = modelPath
        try self.init(options: o)
    }

    public init(options: HandDetectorOptions) throws {
        let options = options.copy()
        try OptionValidation.atLeastOne("numHands", options.numHands)
        try OptionValidation.unitInterval([("minHandDetectionConfidence", options.minHandDetectionConfidence)])
        let runner = try TaskRunner<HandDetectorResult>(options, label: "HandDetector",
                                                        delegate: "handDetectorLiveStreamDelegate")
        let path = try TaskSetup.modelPath(options.baseOptions)
        self.options = options
        numHands = options.numHands
        palm = try VisionTaskError.wrappingModelErrors {
            let threads = options.baseOptions.threads, minScore = options.minHandDetectionConfidence
            if path.hasSuffix(".tflite") {
                return try HandPipeline.palmStage(ModelResources(path: path, threads: threads), minScore: minScore)
            }
            var source = try ModelSource(path: path)
            source = try source.nestedIfPresent(TaskBundleLayout.handLandmarkerBundle)
            guard source.contains(TaskBundleLayout.palmDetector) else {
                throw VisionTaskError.invalidModel("\(source.name) has no \(TaskBundleLayout.palmDetector) (give a "
                    + "hand landmarker or gesture recognizer bundle, or a palm detection .tflite)")
            }
            return try HandPipeline.palmStage(ModelResources(model: try source.model(TaskBundleLayout.palmDetector),
                                                             threads: threads),
                                              minScore: minScore)
        }
        super.init(runner: runner)
        runner.deliver(to: self, options: \.options) { task, result, timestamp, error in
            task.options.handDetectorLiveStreamDelegate?.handDetector(task, didFinishDetection: result,
                                                                      timestampInMilliseconds: timestamp, error: error)
        }
    }

    /// Palms and hand rects in normalized stored-pixel coordinates, at most `numHands`.
    func palms(_ image: MPImage) -> [(palm: RawDetection, rect: NormalizedRect)] {
        lock.lock(); defer { lock.unlock() }
        let found = palm.run(image).projected()
        return found.prefix(numHands).map { ($0, HandPipeline.handRect(palm: $0, image: image)) }
    }

    override func process(_ image: MPImage, timestamp: Int, roi: ImageProcessingOptions? = nil) throws
        -> HandDetectorResult {
        let region = try ImageRegion.of(roi, image: image)
        let input = try region?.crop(image) ?? image
        let found = palms(input)
        var result = HandDetectorResult(detections: found.map {
                                            DetectionTransformation.displayDetection($0.palm, image: input)
                                        },
                                        handRectangles: found.map { Self.displayRect($0.rect, image: input) },
                                        timestampInMilliseconds: timestamp)
        if let region {
            result.detections = result.detections.map(region.detection)
            result.handRectangles = result.handRectangles.map(region.rect)
        }
        return result
    }

    /// A rotated rect of the stored pixels in the displayed image: its corners turned with the image.
    static func displayRect(_ r: NormalizedRect, image: MPImage) -> NormalizedRect {
        let o = image.orientation
        guard o != .up else { return r }
        let (sw, sh) = (Float(image.pixelWidth), Float(image.pixelHeight))
        let (dw, dh) = (Float(image.width), Float(image.height))
        let corners = PerspectiveTransform.boxPoints(RotatedRect(centerX: r.xCenter * sw, centerY: r.yCenter * sh,
                                                                 width: r.width * sw, height: r.height * sh,
                                                                 rotation: r.rotation))
        let d = corners.map { c -> (Float, Float) in
            let p = o.displayPoint(fromStored: (x: c.0 / sw, y: c.1 / sh))
            return (p.x * dw, p.y * dh)
        }
        func length(_ a: (Float, Float), _ b: (Float, Float)) -> Float { hypot(b.0 - a.0, b.1 - a.1) }
        let center = ((d[0].0 + d[2].0) / 2, (d[0].1 + d[2].1) / 2)
        return NormalizedRect(xCenter: center.0 / dw, yCenter: center.1 / dh, width: length(d[1], d[2]) / dw,
                              height: length(d[0], d[1]) / dh, rotation: atan2(d[2].1 - d[1].1, d[2].0 - d[1].0))
    }
}
