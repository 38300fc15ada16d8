import Foundation
import TasksVisionEngine
import TasksVisionFormat

/// Options of an `ObjectDetector` (MediaPipe Tasks' `ObjectDetectorOptions`).
public final class ObjectDetectorOptions: TaskOptions, @unchecked Sendable {
    /// Receives live-stream results (held weakly, as in MediaPipe).
    public weak var objectDetectorLiveStreamDelegate: ObjectDetectorLiveStreamDelegate?
    /// Alternative to the delegate: called with each live-stream result and its timestamp.
    public var resultCallback: ((Result<ObjectDetectorResult, Error>, Int) -> Void)?
    /// The locale of the display names, when the model's metadata has a label file in it.
    public var displayNamesLocale = "en"
    /// Keep at most this many detections, best first (-1: all; 0 is refused).
    public var maxResults = -1
    /// Drop detections scoring below this (it replaces any threshold in the model's metadata).
    public var scoreThreshold: Float = 0
    /// Keep only detections of these category names (unknown names are ignored). Not with a denylist.
    public var categoryAllowlist: [String] = []
    /// Drop detections of these category names (unknown names are ignored). Not with an allowlist.
    public var categoryDenylist: [String] = []

    public override init() { super.init() }

    func copy() -> ObjectDetectorOptions {
        let c = copyBase(into: ObjectDetectorOptions())
        c.objectDetectorLiveStreamDelegate = objectDetectorLiveStreamDelegate
        c.resultCallback = resultCallback
        c.displayNamesLocale = displayNamesLocale
        c.maxResults = maxResults
        c.scoreThreshold = scoreThreshold
        c.categoryAllowlist = categoryAllowlist
        c.categoryDenylist = categoryDenylist
        return c
    }

    var postprocessing: DetectionPostprocessing.Options {
        DetectionPostprocessing.Options(maxResults: maxResults, scoreThreshold: scoreThreshold,
                                        allowlist: categoryAllowlist, denylist: categoryDenylist,
                                        displayNamesLocale: displayNamesLocale)
    }
}

extension ObjectDetectorOptions: LiveStreamReceivers {
    var hasLiveStreamDelegate: Bool { objectDetectorLiveStreamDelegate != nil }
}

/// Receives the results of `ObjectDetector.detectAsync` on the detector's serial queue.
public protocol ObjectDetectorLiveStreamDelegate: AnyObject {
    func objectDetector(_ objectDetector: ObjectDetector, didFinishDetection result: ObjectDetectorResult?,
                        timestampInMilliseconds: Int, error: Error?)
}

/// The method is optional, as in MediaPipe.
extension ObjectDetectorLiveStreamDelegate {
    public func objectDetector(_ objectDetector: ObjectDetector, didFinishDetection result: ObjectDetectorResult?,
                               timestampInMilliseconds: Int, error: Error?) {}
}

/// The objects found in one image.
public struct ObjectDetectorResult: Sendable, Equatable, Codable {
    /// Best first: each with its box in pixels of the displayed image and its categories. A category's
    /// `index` is -1 when the model names its categories (as MediaPipe gives it), its label id otherwise.
    public var detections: [Detection]
    /// Per detection, the ID of its track in video and live-stream mode (the same object of the same
    /// category across frames keeps it; IDs are never reused); nil in image mode.
    public var trackingIds: [Int]?
    /// The timestamp of the frame (video and live stream), or 0.
    public var timestampInMilliseconds: Int = 0

    public init(detections: [Detection], timestampInMilliseconds: Int = 0) {
        self.detections = detections
        self.timestampInMilliseconds = timestampInMilliseconds
    }

    enum CodingKeys: String, CodingKey { case detections, trackingIds }
}

/// Detects objects as MediaPipe Tasks' `ObjectDetector`, with a model that decodes its boxes against
/// anchors in its `DETECTOR_METADATA` (EfficientDet-Lite and Model Maker's detectors), such as
/// `efficientdet_lite0.tflite`.
public final class ObjectDetector: DetectionTask<ObjectDetectorResult>, @unchecked Sendable {
    /// The options the detector was made with (a copy).
    public let options: ObjectDetectorOptions
    let pipeline: ObjectDetectorPipeline
    private let lock = NSLock()
    private var tracks: [ObjectTrack] = []
    private var trackIds = TrackIdCounter()
    private var frames = 0

    /// A track continues while its object overlaps its last box by this much (IoU).
    static let trackSimilarity: Float = 0.3
    /// A track is kept for this many frames without its object.
    static let trackMemory = 5

    /// A detector in image mode with default options.
    public convenience init(modelPath: String) throws {
        let options = ObjectDetectorOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    public init(options: ObjectDetectorOptions) throws {
        let options = options.copy()
        try DetectionPostprocessing.check(options.postprocessing)
        let runner = try TaskRunner<ObjectDetectorResult>(options, label: "ObjectDetector",
                                                          delegate: "objectDetectorLiveStreamDelegate")
        let path = try TaskSetup.modelPath(options.baseOptions)
        self.options = options
        pipeline = try ObjectDetectorPipeline(path: path, threads: options.baseOptions.threads,
                                              options: options.postprocessing)
        super.init(runner: runner)
        runner.deliver(to: self, options: \.options) { task, result, timestamp, error in
            task.options.objectDetectorLiveStreamDelegate?.objectDetector(task, didFinishDetection: result,
                                                                          timestampInMilliseconds: timestamp,
                                                                          error: error)
        }
    }

    /// The category names of the model (its label file), in index order; empty without one.
    public var categoryNames: [String] { pipeline.postprocessing.labelMap?.names ?? [] }

    /// The graph's detections (boxes in stored pixels, MediaPipe's frame), for tests.
    func detectStored(_ image: MPImage, region: CGRect? = nil) -> [ObjectDetectorPipeline.Found] {
        lock.lock(); defer { lock.unlock() }
        return pipeline.run(image, region: region)
    }

    override func process(_ image: MPImage, timestamp: Int, roi: ImageProcessingOptions? = nil) throws
        -> ObjectDetectorResult {
        try ImagePreprocessing.check(roi?.regionOfInterest)
        lock.lock(); defer { lock.unlock() }
        let found = pipeline.run(image, region: roi?.regionOfInterest)
        let detections = found.map {
            Detection(categories: $0.labels.categories,
                      boundingBox: Self.displayBox($0.box, image: image))
        }
        var result = ObjectDetectorResult(detections: detections, timestampInMilliseconds: timestamp)
        if options.runningMode != .image {
            let (w, h) = (Float(image.width), Float(image.height))
            let boxes = detections.map { d -> (box: RelativeBox, category: String?) in
                let b = d.boundingBox
                let c = d.categories.first
                return (RelativeBox(xmin: Float(b.minX) / w, ymin: Float(b.minY) / h, width: Float(b.width) / w,
                                    height: Float(b.height) / h), c?.categoryName ?? c.map { "\($0.index)" })
            }
            let tracked = TrackIdAssociation.objects(boxes, tracks: tracks, frame: frames,
                                                     minSimilarity: Self.trackSimilarity, memory: Self.trackMemory,
                                                     counter: &trackIds)
            tracks = tracked.tracks
            frames += 1
            result.trackingIds = tracked.ids
        }
        return result
    }

    /// A box in stored pixels as the displayed image shows it (exact: whole pixels map to whole pixels).
    static func displayBox(_ b: PixelBox, image: MPImage) -> CGRect {
        let o = image.orientation
        guard o != .up else { return CGRect(x: b.x, y: b.y, width: b.width, height: b.height) }
        let (sw, sh) = (Float(image.pixelWidth), Float(image.pixelHeight))
        let (dw, dh) = (Float(image.width), Float(image.height))
        let p = o.displayPoint(fromStored: (x: Float(b.x) / sw, y: Float(b.y) / sh))
        let q = o.displayPoint(fromStored: (x: Float(b.x + b.width) / sw, y: Float(b.y + b.height) / sh))
        let x0 = Int((min(p.x, q.x) * dw).rounded()), x1 = Int((max(p.x, q.x) * dw).rounded())
        let y0 = Int((min(p.y, q.y) * dh).rounded()), y1 = Int((max(p.y, q.y) * dh).rounded())
        return CGRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
