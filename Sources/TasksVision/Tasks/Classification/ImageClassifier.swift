import Foundation

/// Options of an `ImageClassifier` (MediaPipe Tasks' `ImageClassifierOptions`).
public final class ImageClassifierOptions: TaskOptions, @unchecked Sendable {
    /// The locale of the display names, when the model's metadata has a labels file in it ("en" by default).
    public var displayNamesLocale = "en"
    /// The best `maxResults` categories of each head; a negative value gives them all (the default, -1); 0 is
    /// refused.
    public var maxResults = -1
    /// Categories scoring below it are dropped. As in MediaPipe Tasks iOS it always replaces the threshold the
    /// model's metadata may carry (0 by default).
    public var scoreThreshold: Float = 0
    /// Only these category names (unknown and repeated names ignored; a list of none the model has filters
    /// nothing). Refused together with `categoryDenylist`.
    public var categoryAllowlist: [String] = []
    /// Not these category names.
    public var categoryDenylist: [String] = []
    /// Receives live-stream results (held weakly, as in MediaPipe).
    public weak var imageClassifierLiveStreamDelegate: ImageClassifierLiveStreamDelegate?
    /// Alternative to the delegate: called with each live-stream result and its timestamp.
    public var resultCallback: ((Result<ImageClassifierResult, Error>, Int) -> Void)?

    public override init() { super.init() }

    func copy() -> ImageClassifierOptions {
        let c = copyBase(into: ImageClassifierOptions())
        c.displayNamesLocale = displayNamesLocale
        c.maxResults = maxResults
        c.scoreThreshold = scoreThreshold
        c.categoryAllowlist = categoryAllowlist
        c.categoryDenylist = categoryDenylist
        c.imageClassifierLiveStreamDelegate = imageClassifierLiveStreamDelegate
        c.resultCallback = resultCallback
        return c
    }
}

extension ImageClassifierOptions: LiveStreamReceivers {
    var hasLiveStreamDelegate: Bool { imageClassifierLiveStreamDelegate != nil }
}

/// Receives the results of `ImageClassifier.classifyAsync` on the classifier's serial queue.
public protocol ImageClassifierLiveStreamDelegate: AnyObject {
    func imageClassifier(_ imageClassifier: ImageClassifier, didFinishClassification result: ImageClassifierResult?,
                         timestampInMilliseconds: Int, error: Error?)
}

/// The method is optional, as in MediaPipe.
extension ImageClassifierLiveStreamDelegate {
    public func imageClassifier(_ imageClassifier: ImageClassifier,
                                didFinishClassification result: ImageClassifierResult?,
                                timestampInMilliseconds: Int, error: Error?) {}
}

/// The categories of one image (MediaPipe's `ImageClassifierResult`).
public struct ImageClassifierResult: Sendable, Equatable {
    /// One `Classifications` per head of the model, each with its categories best first.
    public var classificationResult: ClassificationResult
    /// The timestamp of the frame (video and live stream), or 0.
    public var timestampInMilliseconds: Int

    public init(classificationResult: ClassificationResult, timestampInMilliseconds: Int = 0) {
        self.classificationResult = classificationResult
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}

/// Classifies images, as MediaPipe Tasks' `ImageClassifier` does on the CPU, with a classification model and its
/// metadata (`efficientnet_lite0.tflite`, `efficientnet_lite0_float32.tflite`, or a Model Maker model): the
/// image (or a region of it) turned upright and stretched into the model's input, uint8 inputs given the
/// pixels as they are and float inputs the metadata's normalization; each output a head of categories, with
/// score calibration when the metadata carries it, filtered by the options and sorted as MediaPipe sorts them
/// (categories of equal scores included). Results are MediaPipe's to its bits where the engine gives TFLite's.
///
/// A region of interest is normalized to the displayed image (MediaPipe's to the stored pixels; the same for an
/// upright image). Mirrored orientations are classified as displayed (MediaPipe refuses them). A detector or
/// segmenter model is refused, named for what it is.
public final class ImageClassifier: VisionTask<ImageClassifierResult>, @unchecked Sendable {
    /// The options the classifier was made with (a copy).
    public let options: ImageClassifierOptions
    let stage: ImageModelStage
    let heads: ClassificationHeads
    private let lock = NSLock()

    /// A classifier in image mode with default options.
    public convenience init(modelPath: String) throws {
        let options = ImageClassifierOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    public init(options: ImageClassifierOptions) throws {
        let options = options.copy()
        let runner = try TaskRunner<ImageClassifierResult>(options, label: "ImageClassifier",
                                                           delegate: "imageClassifierLiveStreamDelegate")
        // The options' own mistakes come before the model is read (SanityCheckClassifierOptions).
        if options.maxResults == 0 { throw VisionTaskError.invalidOption(MediaPipeErrorText.maxResultsZero) }
        if !options.categoryAllowlist.isEmpty && !options.categoryDenylist.isEmpty {
            throw VisionTaskError.invalidOption(MediaPipeErrorText.allowAndDenyLists)
        }
        guard !options.scoreThreshold.isNaN else {
            throw VisionTaskError.invalidOption("scoreThreshold is NaN")
        }
        let path = try TaskSetup.modelPath(options.baseOptions)
        self.options = options
        stage = try ImageModelStage(path: path, threads: options.baseOptions.threads, need: "an image classifier",
                                    accepts: [.classifier])
        heads = try ClassificationHeads(.init(displayNamesLocale: options.displayNamesLocale,
                                              maxResults: options.maxResults, scoreThreshold: options.scoreThreshold,
                                              allowlist: options.categoryAllowlist,
                                              denylist: options.categoryDenylist), stage: stage)
        super.init(runner: runner)
        runner.deliver(to: self, options: \.options) { task, result, timestamp, error in
            task.options.imageClassifierLiveStreamDelegate?.imageClassifier(
                task, didFinishClassification: result, timestampInMilliseconds: timestamp, error: error)
        }
    }

    /// The category names of each head, from the model's metadata (empty for a head without labels).
    public var labels: [[String]] { heads.heads.map { $0.options.labels?.names ?? [] } }

    /// Classifies a single image (`.image` mode), or the region of it the options give.
    public func classify(image: MPImage, imageProcessingOptions: ImageProcessingOptions? = nil) throws
        -> ImageClassifierResult {
        try self.image("classify(image:)", image, imageProcessingOptions)
    }

    /// Classifies `roi` (normalized to the displayed image; `.zero` is the whole image) of a single image.
    public func classify(image: MPImage, regionOfInterest roi: CGRect) throws -> ImageClassifierResult {
        try classify(image: image, imageProcessingOptions: Self.options(roi))
    }

    /// Classifies a video frame (`.video` mode); timestamps must increase.
    public func classify(videoFrame image: MPImage, timestampInMilliseconds: Int,
                         imageProcessingOptions: ImageProcessingOptions? = nil) throws -> ImageClassifierResult {
        try video("classify(videoFrame:timestampInMilliseconds:)", image, timestampInMilliseconds,
                  imageProcessingOptions)
    }

    /// Classifies `roi` of a video frame.
    public func classify(videoFrame image: MPImage, timestampInMilliseconds: Int, regionOfInterest roi: CGRect) throws
        -> ImageClassifierResult {
        try classify(videoFrame: image, timestampInMilliseconds: timestampInMilliseconds,
                     imageProcessingOptions: Self.options(roi))
    }

    /// Sends a live-stream frame (`.liveStream` mode) and returns at once; the result arrives on the
    /// classifier's serial queue. A frame sent while the previous one is in flight is dropped (returns false).
    @discardableResult
    public func classifyAsync(image: MPImage, timestampInMilliseconds: Int,
                              imageProcessingOptions: ImageProcessingOptions? = nil) throws -> Bool {
        try live("classifyAsync(image:timestampInMilliseconds:)", image, timestampInMilliseconds,
                 imageProcessingOptions)
    }

    /// Sends `roi` of a live-stream frame.
    @discardableResult
    public func classifyAsync(image: MPImage, timestampInMilliseconds: Int, regionOfInterest roi: CGRect) throws
        -> Bool {
        try classifyAsync(image: image, timestampInMilliseconds: timestampInMilliseconds,
                          imageProcessingOptions: Self.options(roi))
    }

    /// A single image without blocking the caller (`.image` mode).
    public func classify(image: MPImage, imageProcessingOptions: ImageProcessingOptions? = nil) async throws
        -> ImageClassifierResult {
        try await imageAsync("classify(image:)", image, imageProcessingOptions)
    }

    /// A video frame without blocking the caller (`.video` mode).
    public func classify(videoFrame image: MPImage, timestampInMilliseconds: Int,
                         imageProcessingOptions: ImageProcessingOptions? = nil) async throws -> ImageClassifierResult {
        try await videoAsync("classify(videoFrame:timestampInMilliseconds:)", image, timestampInMilliseconds,
                             imageProcessingOptions)
    }

    /// MediaPipe Tasks iOS's `CGRectZero` for "no region".
    static func options(_ roi: CGRect) -> ImageProcessingOptions? {
        roi == .zero ? nil : ImageProcessingOptions(regionOfInterest: roi)
    }

    override func process(_ image: MPImage, timestamp: Int, roi: ImageProcessingOptions?) throws
        -> ImageClassifierResult {
        let region = roi?.regionOfInterest
        try ImagePreprocessing.check(region)
        lock.lock(); defer { lock.unlock() }
        stage.run(image, region: region)
        return ImageClassifierResult(classificationResult: ClassificationResult(
            classifications: heads.classifications(stage), timestampInMilliseconds: timestamp),
            timestampInMilliseconds: timestamp)
    }
}
