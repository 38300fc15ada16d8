import Foundation

/// ML Kit's segmenter mode: smooth masks across the frames of a stream, or segment each image alone.
public enum SegmenterMode: Sendable {
    /// Frames of one video or camera: each mask is blended with the previous one where it is uncertain.
    case stream
    /// Unrelated images: each segmented alone.
    case singleImage
}

/// Options of ML Kit's selfie segmenter (`SelfieSegmenterOptions`).
public final class SelfieSegmenterOptions: @unchecked Sendable {
    /// `.stream` (the default, as in ML Kit) or `.singleImage`.
    public var segmenterMode: SegmenterMode = .stream
    /// Give the mask at the model's output size (256 x 256) instead of the image's.
    public var shouldEnableRawSizeMask = false
    /// The selfie model: a path, or the name of an installed model, found as `ModelLocator` describes.
    /// `selfie_segmenter.tflite` (ML Kit's own network) by default; the mediapipe 0.10.14 wheel's
    /// `selfie_segmentation.tflite` and `selfie_segmentation_landscape.tflite` work too.
    public var modelAssetPath = "selfie_segmenter.tflite"
    /// Worker threads inside one inference, 1...64.
    public var threads = 1
    /// Beyond ML Kit: how much of the previous mask stream mode keeps where the new one is uncertain
    /// (`SegmentationSmoothing`, MediaPipe's `combine_with_previous_ratio`), in [0, 1]; 0 turns it off.
    public var streamSmoothingRatio: Float = 0.7

    public init() {}
}

/// The person's mask of one image (ML Kit's `SegmentationMask`): a confidence in [0, 1] per pixel that the
/// pixel shows a person, row after row from the top left, at the displayed image's size (or the model's,
/// with `shouldEnableRawSizeMask`). On Apple platforms also as ML Kit's `buffer` (SegmentationMask+Apple.swift).
public struct SegmentationMask: Sendable, Equatable {
    /// Columns of the mask.
    public let width: Int
    /// Rows of the mask.
    public let height: Int
    /// `width * height` confidences.
    public let confidences: [Float]
    /// ML Kit's `buffer`, made on first use and shared by the copies of this mask.
    let bufferCache = ObjectCache()

    public init(width: Int, height: Int, confidences: [Float]) {
        self.width = width; self.height = height; self.confidences = confidences
    }

    public static func == (a: SegmentationMask, b: SegmentationMask) -> Bool {
        a.width == b.width && a.height == b.height && a.confidences == b.confidences
    }

    /// The confidence at column `x`, row `y`, or nil outside the mask.
    public func confidence(x: Int, y: Int) -> Float? {
        guard x >= 0, x < width, y >= 0, y < height, y * width + x < confidences.count else { return nil }
        return confidences[y * width + x]
    }
}

/// ML Kit's selfie segmentation (`Segmenter` with `SelfieSegmenterOptions`) on the selfie model, the network
/// ML Kit ships (its metadata names `selfiesegmentation_mlkit-256x256`). A mask is `ImageSegmenter`'s
/// confidence mask (MediaPipe's to the bit) of the displayed image.
///
/// Stream mode smooths across frames by rules of ours, not ML Kit's (which are not public): MediaPipe's
/// `SegmentationSmoothingCalculator` on the model-sized mask, each new value blended with the previous
/// smoothed one by `streamSmoothingRatio` times its uncertainty (none at 0 and 1, all at 0.5), then the
/// resize to the image. It restarts when the model-sized mask cannot follow (first frame).
public final class Segmenter: @unchecked Sendable {
    public let options: SelfieSegmenterOptions
    /// The loaded pipeline, or why it could not be loaded (the error of every call, as ML Kit reports it).
    let loaded: Result<SegmenterPipeline, Error>
    let mode: SegmenterMode
    let rawSize: Bool
    let smoothingRatio: Float
    private let lock = NSLock()
    private var previous: [Float]?
    private let queue = DispatchQueue(label: "TasksVision.Segmenter")

    /// A segmenter for the options (ML Kit's `Segmenter.segmenter(options:)`). As in ML Kit it does not
    /// throw: a bad model or option is the error of the first `results(in:)` or `process`.
    public static func segmenter(options: SelfieSegmenterOptions) -> Segmenter { Segmenter(options: options) }

    init(options: SelfieSegmenterOptions) {
        self.options = options
        mode = options.segmenterMode
        rawSize = options.shouldEnableRawSizeMask
        smoothingRatio = options.streamSmoothingRatio
        let (path, threads, ratio) = (options.modelAssetPath, options.threads, options.streamSmoothingRatio)
        loaded = Result {
            guard (1...64).contains(threads) else {
                throw VisionTaskError.invalidOption("threads must be in 1...64, got \(threads)")
            }
            try OptionValidation.unitInterval([("streamSmoothingRatio", ratio)])
            let file = try TaskSetup.resolve(path)
            let pipeline = try VisionTaskError.wrappingModelErrors {
                try SegmenterPipeline(path: file, threads: threads)
            }
            guard pipeline.shape.channels == 1 else {
                throw VisionTaskError.invalidModel("\(path) has \(pipeline.shape.channels) categories; a selfie "
                                                   + "segmentation model has one (the person)")
            }
            return pipeline
        }
    }

    /// The person's mask in an image. (ML Kit's `results(in:)`; its region of interest, when set, is
    /// segmented alone and the mask is 0 outside it.)
    public func results(in image: VisionImage) throws -> SegmentationMask {
        let pipeline = try loaded.get()
        try image.checkReadable()
        lock.lock(); defer { lock.unlock() }
        let region = try image.regionOfInterest.map { try ImageRegion($0, in: image.image) }
        let input = try region?.crop(image.image) ?? image.image
        var raw = pipeline.rawConfidence(input)
        let (tw, th) = (pipeline.shape.width, pipeline.shape.height)
        if mode == .stream && smoothingRatio > 0 {
            raw = SegmentationSmoothing.smooth(current: raw, previous: previous,
                                               combineWithPreviousRatio: smoothingRatio)
            previous = raw
        }
        if rawSize { return SegmentationMask(width: tw, height: th, confidences: raw) }
        var mask = Mask(checkedWidth: input.width, height: input.height,
                        values: MaskResize.linear(raw, width: tw, height: th, outputWidth: input.width,
                                                  outputHeight: input.height))
        if let region { mask = region.mask(mask) }
        return SegmentationMask(width: mask.width, height: mask.height, confidences: mask.float32Data)
    }

    /// Segments off the caller's thread and calls `completion` on the main queue (as ML Kit).
    public func process(_ image: VisionImage, completion: @escaping (SegmentationMask?, Error?) -> Void) {
        image.process(on: queue, { try self.results(in: $0) }, completion: completion)
    }

    /// The async form of `process(_:completion:)`.
    public func process(_ image: VisionImage) async throws -> SegmentationMask {
        try await image.process(on: queue) { try self.results(in: $0) }
    }
}
