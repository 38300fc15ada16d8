import Foundation

/// Options of an `ImageEmbedder` (MediaPipe Tasks' `ImageEmbedderOptions`).
public final class ImageEmbedderOptions: TaskOptions, @unchecked Sendable {
    /// Divide each embedding by its L2 norm (for a model without its own L2_NORMALIZATION op).
    public var l2Normalize = false
    /// Give each embedding as bytes, `round(v * 128)` clamped to -128...127 (`quantizedEmbedding`), instead of
    /// floats; meant for unit-norm embeddings (see `l2Normalize`).
    public var quantize = false
    /// Receives live-stream results (held weakly, as in MediaPipe).
    public weak var imageEmbedderLiveStreamDelegate: ImageEmbedderLiveStreamDelegate?
    /// Alternative to the delegate: called with each live-stream result and its timestamp.
    public var resultCallback: ((Result<ImageEmbedderResult, Error>, Int) -> Void)?

    public override init() { super.init() }

    func copy() -> ImageEmbedderOptions {
        let c = copyBase(into: ImageEmbedderOptions())
        c.l2Normalize = l2Normalize
        c.quantize = quantize
        c.imageEmbedderLiveStreamDelegate = imageEmbedderLiveStreamDelegate
        c.resultCallback = resultCallback
        return c
    }
}

extension ImageEmbedderOptions: LiveStreamReceivers {
    var hasLiveStreamDelegate: Bool { imageEmbedderLiveStreamDelegate != nil }
}

/// Receives the results of `ImageEmbedder.embedAsync` on the embedder's serial queue.
public protocol ImageEmbedderLiveStreamDelegate: AnyObject {
    func imageEmbedder(_ imageEmbedder: ImageEmbedder, didFinishEmbedding result: ImageEmbedderResult?,
                       timestampInMilliseconds: Int, error: Error?)
}

/// The method is optional, as in MediaPipe.
extension ImageEmbedderLiveStreamDelegate {
    public func imageEmbedder(_ imageEmbedder: ImageEmbedder, didFinishEmbedding result: ImageEmbedderResult?,
                              timestampInMilliseconds: Int, error: Error?) {}
}

/// The embeddings of one image (MediaPipe's `ImageEmbedderResult`).
public struct ImageEmbedderResult: Sendable, Equatable {
    /// One `Embedding` per head of the model.
    public var embeddingResult: EmbeddingResult
    /// The timestamp of the frame (video and live stream), or 0.
    public var timestampInMilliseconds: Int

    public init(embeddingResult: EmbeddingResult, timestampInMilliseconds: Int = 0) {
        self.embeddingResult = embeddingResult
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}

/// Turns images into feature vectors, as MediaPipe Tasks' `ImageEmbedder` does on the CPU: the image (or a region
/// of it) turned upright and stretched into the model's input as for `ImageClassifier`, each output tensor an
/// embedding (uint8 outputs dequantized), L2-normalized and quantized when asked, with MediaPipe's arithmetic.
/// Any image model whose outputs are vectors will do: MediaPipe's embedder models, or a classifier such as
/// `efficientnet_lite0_float32.tflite` (its 1000 scores then are the embedding, as MediaPipe gives them).
/// `cosineSimilarity(embedding1:embedding2:)` compares two. Detector and segmenter models are refused, named
/// for what they are.
public final class ImageEmbedder: VisionTask<ImageEmbedderResult>, @unchecked Sendable {
    /// The options the embedder was made with (a copy).
    public let options: ImageEmbedderOptions
    let stage: ImageModelStage
    /// The heads' names (the output tensors' metadata names), or empty when the metadata names none.
    let headNames: [String]
    private let lock = NSLock()

    /// An embedder in image mode with default options.
    public convenience init(modelPath: String) throws {
        let options = ImageEmbedderOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    public init(options: ImageEmbedderOptions) throws {
        let options = options.copy()
        let runner = try TaskRunner<ImageEmbedderResult>(options, label: "ImageEmbedder",
                                                         delegate: "imageEmbedderLiveStreamDelegate")
        let path = try TaskSetup.modelPath(options.baseOptions)
        self.options = options
        stage = try ImageModelStage(path: path, threads: options.baseOptions.threads, need: "an image embedder",
                                    accepts: [.classifier])
        // GetHeadNames: a name per output tensor metadata, "" for one without, none when no tensor has a name.
        let names = stage.outputMetadata.map { $0.name }
        headNames = names.contains { $0 != nil } ? names.map { $0 ?? "" } : []
        super.init(runner: runner)
        runner.deliver(to: self, options: \.options) { task, result, timestamp, error in
            task.options.imageEmbedderLiveStreamDelegate?.imageEmbedder(
                task, didFinishEmbedding: result, timestampInMilliseconds: timestamp, error: error)
        }
    }

    /// Embeds a single image (`.image` mode), or the region of it the options give.
    public func embed(image: MPImage, imageProcessingOptions: ImageProcessingOptions? = nil) throws
        -> ImageEmbedderResult {
        try self.image("embed(image:)", image, imageProcessingOptions)
    }

    /// Embeds `roi` (normalized to the displayed image; `.zero` is the whole image) of a single image.
    public func embed(image: MPImage, regionOfInterest roi: CGRect) throws -> ImageEmbedderResult {
        try embed(image: image, imageProcessingOptions: ImageClassifier.options(roi))
    }

    /// Embeds a video frame (`.video` mode); timestamps must increase.
    public func embed(videoFrame image: MPImage, timestampInMilliseconds: Int,
                      imageProcessingOptions: ImageProcessingOptions? = nil) throws -> ImageEmbedderResult {
        try video("embed(videoFrame:timestampInMilliseconds:)", image, timestampInMilliseconds, imageProcessingOptions)
    }

    /// Embeds `roi` of a video frame.
    public func embed(videoFrame image: MPImage, timestampInMilliseconds: Int, regionOfInterest roi: CGRect) throws
        -> ImageEmbedderResult {
        try embed(videoFrame: image, timestampInMilliseconds: timestampInMilliseconds,
                  imageProcessingOptions: ImageClassifier.options(roi))
    }

    /// Sends a live-stream frame (`.liveStream` mode) and returns at once; the result arrives on the
    /// embedder's serial queue. A frame sent while the previous one is in flight is dropped (returns false).
    @discardableResult
    public func embedAsync(image: MPImage, timestampInMilliseconds: Int,
                           imageProcessingOptions: ImageProcessingOptions? = nil) throws -> Bool {
        try live("embedAsync(image:timestampInMilliseconds:)", image, timestampInMilliseconds, imageProcessingOptions)
    }

    /// Sends `roi` of a live-stream frame.
    @discardableResult
    public func embedAsync(image: MPImage, timestampInMilliseconds: Int, regionOfInterest roi: CGRect) throws -> Bool {
        try embedAsync(image: image, timestampInMilliseconds: timestampInMilliseconds,
                       imageProcessingOptions: ImageClassifier.options(roi))
    }

    /// A single image without blocking the caller (`.image` mode).
    public func embed(image: MPImage, imageProcessingOptions: ImageProcessingOptions? = nil) async throws
        -> ImageEmbedderResult {
        try await imageAsync("embed(image:)", image, imageProcessingOptions)
    }

    /// A video frame without blocking the caller (`.video` mode).
    public func embed(videoFrame image: MPImage, timestampInMilliseconds: Int,
                      imageProcessingOptions: ImageProcessingOptions? = nil) async throws -> ImageEmbedderResult {
        try await videoAsync("embed(videoFrame:timestampInMilliseconds:)", image, timestampInMilliseconds,
                             imageProcessingOptions)
    }

    override func process(_ image: MPImage, timestamp: Int, roi: ImageProcessingOptions?) throws
        -> ImageEmbedderResult {
        let region = roi?.regionOfInterest
        try ImagePreprocessing.check(region)
        lock.lock(); defer { lock.unlock() }
        stage.run(image, region: region)
        let embeddings = stage.outputs.indices.map { i in
            stage.withOutput(i) { values in
                Embedding(floatEmbedding: options.quantize ? nil : TensorsToEmbeddings.floatEmbedding(
                              values, l2Normalize: options.l2Normalize),
                          quantizedEmbedding: options.quantize ? TensorsToEmbeddings.quantizedEmbedding(
                              values, l2Normalize: options.l2Normalize) : nil,
                          headIndex: i, headName: headNames.isEmpty ? nil : headNames[i])
            }
        }
        return ImageEmbedderResult(embeddingResult: EmbeddingResult(embeddings: embeddings,
                                                                    timestampInMilliseconds: timestamp),
                                   timestampInMilliseconds: timestamp)
    }

    /// The cosine similarity of two embeddings (MediaPipe Tasks iOS's `cosineSimilarity`, in double): both float or
    /// both quantized, of one length; otherwise MediaPipe's error. Vectors of norm 0 give NaN, as on iOS.
    public static func cosineSimilarity(embedding1: Embedding, embedding2: Embedding) throws -> NSNumber {
        NSNumber(value: try CosineSimilarity.between(embedding1, embedding2))
    }
}
