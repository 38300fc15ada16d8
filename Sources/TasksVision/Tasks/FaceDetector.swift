import Foundation
import TasksVisionEngine
import TasksVisionFormat

/// Options of a `FaceDetector` (MediaPipe Tasks' `FaceDetectorOptions`).
public struct FaceDetectorOptions {
    public var baseOptions = BaseOptions()
    public var runningMode: RunningMode = .image
    /// Minimum score for a face to be reported, in [0, 1].
    public var minDetectionConfidence: Float = 0.5
    /// IoU above which overlapping faces are merged, in [0, 1].
    public var minSuppressionThreshold: Float = 0.3
    /// Receives live-stream results (held weakly, as in MediaPipe).
    public weak var faceDetectorLiveStreamDelegate: FaceDetectorLiveStreamDelegate?
    /// Alternative to the delegate: called with each live-stream result and its timestamp.
    public var resultCallback: ((Result<FaceDetectorResult, Error>, Int) -> Void)?

    public init() {}
}

/// Receives the results of `FaceDetector.detectAsync` on the detector's serial queue.
public protocol FaceDetectorLiveStreamDelegate: AnyObject {
    func faceDetector(_ faceDetector: FaceDetector, didFinishDetection result: FaceDetectorResult?,
                      timestampInMilliseconds: Int, error: Error?)
}

/// The faces found in one image.
public struct FaceDetectorResult: Sendable, Equatable, Codable {
    public var detections: [Detection]
    /// The timestamp of the frame (video and live stream), or 0.
    public var timestampInMilliseconds: Int

    public init(detections: [Detection], timestampInMilliseconds: Int = 0) {
        self.detections = detections
        self.timestampInMilliseconds = timestampInMilliseconds
    }

    enum CodingKeys: String, CodingKey { case detections }

    public init(from decoder: Decoder) throws {
        detections = try decoder.container(keyedBy: CodingKeys.self).decode([Detection].self, forKey: .detections)
        timestampInMilliseconds = 0
    }
}

/// Detects faces with BlazeFace, as MediaPipe Tasks' `FaceDetector`: the short-range
/// (128x128) or full-range (192x192) model, chosen from the model's input size.
public final class FaceDetector: @unchecked Sendable {
    public let options: FaceDetectorOptions
    let resources: ModelResources
    let anchors: [Anchor]
    let decoding: DetectionDecoding
    let range: ImageToTensor.ValueRange
    let runner: TaskRunner<FaceDetectorResult>
    private let lock = NSLock()
    private var streamContinuations: [UUID: AsyncStream<FaceDetectorResult>.Continuation] = [:]

    /// A detector in image mode with default options.
    public convenience init(modelPath: String) throws {
        var options = FaceDetectorOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    public init(options: FaceDetectorOptions) throws {
        try OptionValidation.unitInterval([("minDetectionConfidence", options.minDetectionConfidence),
                                           ("minSuppressionThreshold", options.minSuppressionThreshold)])
        guard options.baseOptions.threads >= 1 && options.baseOptions.threads <= 64 else {
            throw VisionTaskError.invalidOption("baseOptions.threads must be in 1...64, got \(options.baseOptions.threads)")
        }
        let hasReceiver = options.faceDetectorLiveStreamDelegate != nil || options.resultCallback != nil
        if options.runningMode == .liveStream && !hasReceiver {
            throw VisionTaskError.invalidOption("the liveStream running mode needs faceDetectorLiveStreamDelegate or resultCallback")
        }
        if options.runningMode != .liveStream && hasReceiver {
            throw VisionTaskError.invalidOption("a live-stream delegate or resultCallback is only allowed in the liveStream running mode")
        }
        guard !options.baseOptions.modelAssetPath.isEmpty else { throw VisionTaskError.invalidOption("baseOptions.modelAssetPath is empty") }
        self.options = options
        resources = try ModelResources(path: options.baseOptions.modelAssetPath, threads: options.baseOptions.threads)
        let outputs = resources.interpreter.outputs
        guard resources.interpreter.inputs.count == 1, outputs.count == 2 else {
            throw VisionTaskError.invalidModel("\(resources.model.name) is not a BlazeFace detector (1 input and 2 outputs expected)")
        }
        switch (resources.inputWidth, resources.inputHeight) {
        case (128, 128):
            anchors = SsdAnchors.generate(.faceShortRange)
            decoding = .faceShortRange(minScore: options.minDetectionConfidence)
        case (192, 192):
            anchors = SsdAnchors.generate(.faceFullRange)
            decoding = .faceFullRange(minScore: options.minDetectionConfidence)
        default:
            throw VisionTaskError.invalidModel("\(resources.model.name) has input \(resources.inputWidth)x\(resources.inputHeight); BlazeFace takes 128x128 or 192x192")
        }
        guard outputs[0].elementCount == decoding.numBoxes * decoding.numCoords, outputs[1].elementCount == decoding.numBoxes else {
            throw VisionTaskError.invalidModel("\(resources.model.name) outputs \(outputs.map(\.shape)) do not match \(decoding.numBoxes) boxes of \(decoding.numCoords) values")
        }
        // The dense full-range model ships without metadata; BlazeFace takes [-1, 1].
        range = try resources.inputRange(default: .init(min: -1, max: 1))
        runner = TaskRunner(mode: options.runningMode, label: "FaceDetector")
        runner.deliver = { [weak self] result, timestamp in
            guard let self else { return }
            self.options.resultCallback?(result, timestamp)
            switch result {
            case .success(let r):
                self.options.faceDetectorLiveStreamDelegate?.faceDetector(self, didFinishDetection: r, timestampInMilliseconds: timestamp, error: nil)
                self.lock.lock(); let continuations = Array(self.streamContinuations.values); self.lock.unlock()
                for c in continuations { c.yield(r) }
            case .failure(let e):
                self.options.faceDetectorLiveStreamDelegate?.faceDetector(self, didFinishDetection: nil, timestampInMilliseconds: timestamp, error: e)
            }
        }
    }

    deinit {
        for c in streamContinuations.values { c.finish() }
    }

    /// Detects faces in a single image (`.image` mode).
    public func detect(image: MPImage) throws -> FaceDetectorResult {
        try runner.runImage("detect(image:)") { try process(image, timestamp: 0) }
    }

    /// Detects faces in a video frame (`.video` mode); timestamps must increase.
    public func detect(videoFrame image: MPImage, timestampInMilliseconds: Int) throws -> FaceDetectorResult {
        try runner.runVideo("detect(videoFrame:timestampInMilliseconds:)", timestamp: timestampInMilliseconds) {
            try process(image, timestamp: timestampInMilliseconds)
        }
    }

    /// Sends a live-stream frame (`.liveStream` mode) and returns at once; the result
    /// arrives on the detector's serial queue. A frame sent while the previous one is
    /// still being processed is dropped (the method returns false).
    @discardableResult
    public func detectAsync(image: MPImage, timestampInMilliseconds: Int) throws -> Bool {
        try runner.runLive("detectAsync(image:timestampInMilliseconds:)", image: image, timestamp: timestampInMilliseconds) { [self] in
            try self.process($0, timestamp: timestampInMilliseconds)
        }
    }

    /// Detects faces in a single image without blocking the caller (`.image` mode).
    public func detect(image: MPImage) async throws -> FaceDetectorResult {
        try await runner.runImageAsync("detect(image:)", image: image) { [self] in try self.process($0, timestamp: 0) }
    }

    /// Live-stream results as an `AsyncStream`, in timestamp order.
    public var liveResults: AsyncStream<FaceDetectorResult> {
        AsyncStream { continuation in
            let id = UUID()
            lock.lock(); streamContinuations[id] = continuation; lock.unlock()
            continuation.onTermination = { [weak self] _ in
                guard let self else { return }
                self.lock.lock(); self.streamContinuations[id] = nil; self.lock.unlock()
            }
        }
    }

    /// Waits until every accepted live-stream frame has been delivered.
    public func waitForPendingResults() { runner.drain() }

    /// The pipeline: letterboxed crop, inference, decoding, weighted NMS, projection;
    /// then the conversion to the displayed image's pixels.
    func process(_ image: MPImage, timestamp: Int) throws -> FaceDetectorResult {
        let detections = try detectNormalized(image).map { Self.displayDetection($0, image: image) }
        return FaceDetectorResult(detections: detections, timestampInMilliseconds: timestamp)
    }

    /// Detections in normalized coordinates of the stored pixels (MediaPipe's frame before `DetectionTransformation`).
    func detectNormalized(_ image: MPImage) throws -> [RawDetection] {
        var roi = ImageToTensor.fullImageRoi(image)
        _ = ImageToTensor.padRoi(&roi, tensorWidth: resources.inputWidth, tensorHeight: resources.inputHeight)
        let flip = image.orientation.isMirrored
        let pixels = ImageToTensor.warp(image, roi: roi, flipHorizontally: flip, width: resources.inputWidth,
                                        height: resources.inputHeight, border: .zero)
        let matrix = ImageToTensor.transformMatrix(roi, imageWidth: image.pixelWidth, imageHeight: image.pixelHeight, flipHorizontally: flip)
        lock.lock()
        defer { lock.unlock() }
        let interpreter = resources.interpreter
        interpreter.withInput(0) { ImageToTensor.convert(pixels, range: range, into: $0) }
        interpreter.invoke()
        let decoded = interpreter.withOutput(0) { boxes in
            interpreter.withOutput(1) { scores in TensorsToDetections.decode(boxes: boxes, scores: scores, anchors: anchors, options: decoding) }
        }
        let kept = WeightedNonMaxSuppression.suppress(decoded, threshold: options.minSuppressionThreshold)
        return kept.map { DetectionProjection.project($0, matrix: matrix) }
    }

    /// Converts a detection in normalized stored-pixel coordinates to the displayed image.
    static func displayDetection(_ d: RawDetection, image: MPImage) -> Detection {
        let o = image.orientation
        let b = d.box
        let corners = [(b.xmin, b.ymin), (b.xmin + b.width, b.ymin + b.height)].map { o.displayPoint(fromStored: (x: $0.0, y: $0.1)) }
        let xmin = min(corners[0].x, corners[1].x), ymin = min(corners[0].y, corners[1].y)
        let box = RelativeBox(xmin: xmin, ymin: ymin, width: max(corners[0].x, corners[1].x) - xmin, height: max(corners[0].y, corners[1].y) - ymin)
        let displayBox = o == .up ? b : box
        let keypoints = d.keypoints.map { k -> NormalizedKeypoint in
            let p = o.displayPoint(fromStored: (x: k.x, y: k.y))
            return NormalizedKeypoint(x: p.x, y: p.y)
        }
        return Detection(boundingBox: DetectionTransformation.pixelBox(displayBox, width: image.width, height: image.height),
                         categories: [ResultCategory(index: d.classId, score: d.score)], keypoints: keypoints)
    }
}
