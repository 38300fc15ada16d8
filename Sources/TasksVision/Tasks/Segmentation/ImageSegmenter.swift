import Foundation

/// Options of an `ImageSegmenter` (MediaPipe Tasks' `ImageSegmenterOptions`).
public final class ImageSegmenterOptions: TaskOptions, @unchecked Sendable {
    /// The locale of the category display names in the model's metadata (MediaPipe keeps them apart from
    /// `ImageSegmenter.labels`, which are the names).
    public var displayNamesLocale = "en"
    /// Give a float confidence mask per category (`ImageSegmenterResult.confidenceMasks`).
    public var shouldOutputConfidenceMasks = true
    /// Give the category mask (`ImageSegmenterResult.categoryMask`).
    public var shouldOutputCategoryMask = false
    /// MediaPipe's Python and C++ name of `shouldOutputConfidenceMasks`.
    public var outputConfidenceMasks: Bool {
        get { shouldOutputConfidenceMasks }
        set { shouldOutputConfidenceMasks = newValue }
    }
    /// MediaPipe's Python and C++ name of `shouldOutputCategoryMask`.
    public var outputCategoryMask: Bool {
        get { shouldOutputCategoryMask }
        set { shouldOutputCategoryMask = newValue }
    }
    /// Receives live-stream results (held weakly, as in MediaPipe).
    public weak var imageSegmenterLiveStreamDelegate: ImageSegmenterLiveStreamDelegate?
    /// Alternative to the delegate: called with each live-stream result and its timestamp.
    public var resultCallback: ((Result<ImageSegmenterResult, Error>, Int) -> Void)?

    public override init() { super.init() }

    func copy() -> ImageSegmenterOptions {
        let c = copyBase(into: ImageSegmenterOptions())
        c.displayNamesLocale = displayNamesLocale
        c.shouldOutputConfidenceMasks = shouldOutputConfidenceMasks
        c.shouldOutputCategoryMask = shouldOutputCategoryMask
        c.imageSegmenterLiveStreamDelegate = imageSegmenterLiveStreamDelegate
        c.resultCallback = resultCallback
        return c
    }
}

extension ImageSegmenterOptions: LiveStreamReceivers {
    var hasLiveStreamDelegate: Bool { imageSegmenterLiveStreamDelegate != nil }
}

/// Receives the results of `ImageSegmenter.segmentAsync` on the segmenter's serial queue.
public protocol ImageSegmenterLiveStreamDelegate: AnyObject {
    func imageSegmenter(_ imageSegmenter: ImageSegmenter, didFinishSegmentation result: ImageSegmenterResult?,
                        timestampInMilliseconds: Int, error: Error?)
}

/// The method is optional, as in MediaPipe.
extension ImageSegmenterLiveStreamDelegate {
    public func imageSegmenter(_ imageSegmenter: ImageSegmenter, didFinishSegmentation result: ImageSegmenterResult?,
                               timestampInMilliseconds: Int, error: Error?) {}
}

/// The masks of one image, in the displayed image's pixels.
public struct ImageSegmenterResult: Sendable, Equatable {
    /// With `shouldOutputConfidenceMasks`, a float mask per category (one for the selfie models: the
    /// person), each value in [0, 1]; otherwise nil.
    public var confidenceMasks: [Mask]?
    /// With `shouldOutputCategoryMask`, a byte mask: the index of each pixel's category; for a model of
    /// one category (the selfie models) 0 where it is, 255 elsewhere. Otherwise nil.
    public var categoryMask: Mask?
    /// A quality score per category; 1 for models that give none (all the selfie models).
    public var qualityScores: [Float]?
    /// The timestamp of the frame (video and live stream), or 0.
    public var timestampInMilliseconds: Int

    public init(confidenceMasks: [Mask]?, categoryMask: Mask?, qualityScores: [Float]?,
                timestampInMilliseconds: Int = 0) {
        self.confidenceMasks = confidenceMasks
        self.categoryMask = categoryMask
        self.qualityScores = qualityScores
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}

/// Segments images, as MediaPipe Tasks' `ImageSegmenter` does on the CPU, for instance into a person and
/// the background with the selfie models (`selfie_segmenter.tflite`, and the mediapipe 0.10.14 wheel's
/// `selfie_segmentation.tflite` and `selfie_segmentation_landscape.tflite`).
///
/// Masks are MediaPipe's to the bit: the image stretched into the model's input, the model's output
/// through the activation its metadata names, resized to the image as OpenCV resizes it; the category
/// mask sampled and thresholded as `SegmenterTensorsToMasks` describes. They come back at the
/// displayed image's size: for an image turned by 90 or 270 degrees MediaPipe resizes the upright
/// mask to the stored size instead (the only difference; 180 degrees and `.up` equal MediaPipe's).
/// A region of interest, which MediaPipe refuses here, runs the segmenter on that crop; outside it
/// confidences are 0 and the category mask 255.
public final class ImageSegmenter: VisionTask<ImageSegmenterResult>, @unchecked Sendable {
    /// The options the segmenter was made with (a copy).
    public let options: ImageSegmenterOptions
    /// The category names, from the model's metadata (`["selfie"]` for the selfie models); empty without.
    public let labels: [String]
    let pipeline: SegmenterPipeline
    private let lock = NSLock()

    /// A segmenter in image mode with default options.
    public convenience init(modelPath: String) throws {
        let options = ImageSegmenterOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    public init(options: ImageSegmenterOptions) throws {
        let options = options.copy()
        let runner = try TaskRunner<ImageSegmenterResult>(options, label: "ImageSegmenter",
                                                          delegate: "imageSegmenterLiveStreamDelegate")
        guard options.shouldOutputConfidenceMasks || options.shouldOutputCategoryMask else {
            throw VisionTaskError.invalidOption(MediaPipeErrorText.noSegmenterOutput)
        }
        let path = try TaskSetup.modelPath(options.baseOptions)
        self.options = options
        pipeline = try VisionTaskError.wrappingModelErrors {
            try SegmenterPipeline(path: path, threads: options.baseOptions.threads,
                                  displayNamesLocale: options.displayNamesLocale)
        }
        labels = pipeline.labels
        super.init(runner: runner)
        runner.deliver(to: self, options: \.options) { task, result, timestamp, error in
            task.options.imageSegmenterLiveStreamDelegate?.imageSegmenter(
                task, didFinishSegmentation: result, timestampInMilliseconds: timestamp, error: error)
        }
    }

    /// Segments a single image (`.image` mode).
    public func segment(image: MPImage, imageProcessingOptions: ImageProcessingOptions? = nil) throws
        -> ImageSegmenterResult {
        try self.image("segment(image:)", image, imageProcessingOptions)
    }

    /// Segments a single image and passes the result or the error to `completion`, on the calling thread.
    public func segment(image: MPImage, completion: (ImageSegmenterResult?, Error?) -> Void) {
        do { completion(try segment(image: image), nil) } catch { completion(nil, error) }
    }

    /// Segments a video frame (`.video` mode); timestamps must increase.
    public func segment(videoFrame image: MPImage, timestampInMilliseconds: Int,
                        imageProcessingOptions: ImageProcessingOptions? = nil) throws -> ImageSegmenterResult {
        try video("segment(videoFrame:timestampInMilliseconds:)", image, timestampInMilliseconds,
                  imageProcessingOptions)
    }

    /// Segments a video frame and passes the result or the error to `completion`, on the calling thread.
    public func segment(videoFrame image: MPImage, timestampInMilliseconds: Int,
                        completion: (ImageSegmenterResult?, Error?) -> Void) {
        do {
            completion(try segment(videoFrame: image, timestampInMilliseconds: timestampInMilliseconds), nil)
        } catch {
            completion(nil, error)
        }
    }

    /// Sends a live-stream frame (`.liveStream` mode) and returns at once; the result arrives on the
    /// segmenter's serial queue. A frame sent while the previous one is in flight is dropped (returns false).
    @discardableResult
    public func segmentAsync(image: MPImage, timestampInMilliseconds: Int,
                             imageProcessingOptions: ImageProcessingOptions? = nil) throws -> Bool {
        try live("segmentAsync(image:timestampInMilliseconds:)", image, timestampInMilliseconds,
                 imageProcessingOptions)
    }

    /// A single image without blocking the caller (`.image` mode).
    public func segment(image: MPImage, imageProcessingOptions: ImageProcessingOptions? = nil) async throws
        -> ImageSegmenterResult {
        try await imageAsync("segment(image:)", image, imageProcessingOptions)
    }

    /// A video frame without blocking the caller (`.video` mode).
    public func segment(videoFrame image: MPImage, timestampInMilliseconds: Int,
                        imageProcessingOptions: ImageProcessingOptions? = nil) async throws -> ImageSegmenterResult {
        try await videoAsync("segment(videoFrame:timestampInMilliseconds:)", image, timestampInMilliseconds,
                             imageProcessingOptions)
    }

    override func process(_ image: MPImage, timestamp: Int, roi: ImageProcessingOptions?) throws
        -> ImageSegmenterResult {
        let region = try ImageRegion.of(roi, image: image)
        let input = try region?.crop(image) ?? image
        var result = masks(input, outputWidth: input.width, outputHeight: input.height)
        result.timestampInMilliseconds = timestamp
        if let region {
            result.confidenceMasks = result.confidenceMasks?.map { region.mask($0) }
            result.categoryMask = result.categoryMask.map { region.mask($0) }
        }
        return result
    }

    /// The result at a given size (MediaPipe's `SegmentationOptions`; its tasks pass the stored size).
    func masks(_ image: MPImage, outputWidth: Int, outputHeight: Int) -> ImageSegmenterResult {
        lock.lock(); defer { lock.unlock() }
        let m = pipeline.run(image, confidence: options.shouldOutputConfidenceMasks,
                             category: options.shouldOutputCategoryMask, outputWidth: outputWidth,
                             outputHeight: outputHeight)
        return ImageSegmenterResult(confidenceMasks: m.confidence, categoryMask: m.category,
                                    qualityScores: [Float](repeating: 1, count: pipeline.shape.channels))
    }
}
