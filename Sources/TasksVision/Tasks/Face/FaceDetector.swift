import Foundation
import TasksVisionEngine
import TasksVisionFormat

/// Options of a `FaceDetector` (MediaPipe Tasks' `FaceDetectorOptions`).
public final class FaceDetectorOptions: TaskOptions, @unchecked Sendable {
    /// Minimum score for a face to be reported, in [0, 1].
    public var minDetectionConfidence: Float = 0.5
    /// IoU above which overlapping faces are merged, in [0, 1].
    public var minSuppressionThreshold: Float = 0.3
    /// Receives live-stream results (held weakly, as in MediaPipe).
    public weak var faceDetectorLiveStreamDelegate: FaceDetectorLiveStreamDelegate?
    /// Alternative to the delegate: called with each live-stream result and its timestamp.
    public var resultCallback: ((Result<FaceDetectorResult, Error>, Int) -> Void)?

    public override init() { super.init() }

    func copy() -> FaceDetectorOptions {
        let c = copyBase(into: FaceDetectorOptions())
        c.minDetectionConfidence = minDetectionConfidence
        c.minSuppressionThreshold = minSuppressionThreshold
        c.faceDetectorLiveStreamDelegate = faceDetectorLiveStreamDelegate
        c.resultCallback = resultCallback
        return c
    }
}

extension FaceDetectorOptions: LiveStreamReceivers {
    var hasLiveStreamDelegate: Bool { faceDetectorLiveStreamDelegate != nil }
}

/// Receives the results of `FaceDetector.detectAsync` on the detector's serial queue.
public protocol FaceDetectorLiveStreamDelegate: AnyObject {
    func faceDetector(_ faceDetector: FaceDetector, didFinishDetection result: FaceDetectorResult?,
                      timestampInMilliseconds: Int, error: Error?)
}

/// The method is optional, as in MediaPipe.
extension FaceDetectorLiveStreamDelegate {
    public func faceDetector(_ faceDetector: FaceDetector, didFinishDetection result: FaceDetectorResult?,
                             timestampInMilliseconds: Int, error: Error?) {}
}

/// The faces found in one image.
public struct FaceDetectorResult: Sendable, Equatable, Codable {
    public var detections: [Detection]
    /// The timestamp of the frame (video and live stream), or 0.
    public var timestampInMilliseconds: Int = 0

    public init(detections: [Detection], timestampInMilliseconds: Int = 0) {
        self.detections = detections
        self.timestampInMilliseconds = timestampInMilliseconds
    }

    enum CodingKeys: String, CodingKey { case detections }
}

/// Detects faces with BlazeFace, as MediaPipe Tasks' `FaceDetector`: the short-range
/// (128x128) or full-range (192x192) model, chosen from the model's input size.
public final class FaceDetector: DetectionTask<FaceDetectorResult>, @unchecked Sendable {
    /// The options the detector was made with (a copy).
    public let options: FaceDetectorOptions
    let detector: DetectorStage
    private let lock = NSLock()

    /// A detector in image mode with default options.
    public convenience init(modelPath: String) throws {
        let options = FaceDetectorOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    public init(options: FaceDetectorOptions) throws {
        let options = options.copy()
        try OptionValidation.unitInterval([("minDetectionConfidence", options.minDetectionConfidence),
                                           ("minSuppressionThreshold", options.minSuppressionThreshold)])
        let runner = try TaskRunner<FaceDetectorResult>(options, label: "FaceDetector",
                                                        delegate: "faceDetectorLiveStreamDelegate")
        let path = try TaskSetup.modelPath(options.baseOptions)
        self.options = options
        detector = try VisionTaskError.wrappingModelErrors { try Self.detectorStage(path: path, options: options) }
        super.init(runner: runner)
        runner.deliver(to: self, options: \.options) { task, result, timestamp, error in
            task.options.faceDetectorLiveStreamDelegate?.faceDetector(task, didFinishDetection: result,
                                                                      timestampInMilliseconds: timestamp, error: error)
        }
    }

    /// BlazeFace short range (128x128) or full range (192x192), told apart by the input size.
    static func detectorStage(path: String, options: FaceDetectorOptions) throws -> DetectorStage {
        try detectorStage(try ModelResources(path: path, threads: options.baseOptions.threads),
                          minDetectionConfidence: options.minDetectionConfidence,
                          minSuppressionThreshold: options.minSuppressionThreshold)
    }

    /// The BlazeFace stage of a loaded model (also the face landmarker's detector).
    static func detectorStage(_ resources: ModelResources, minDetectionConfidence: Float,
                              minSuppressionThreshold: Float) throws -> DetectorStage {
        let name = resources.name
        let outputs = resources.interpreter.outputs
        guard resources.interpreter.inputs.count == 1, outputs.count == 2 else {
            throw VisionTaskError.invalidModel("\(name) is not a BlazeFace detector (1 input and 2 outputs expected)")
        }
        let anchors: [Anchor], decoding: DetectionDecoding
        switch (resources.inputWidth, resources.inputHeight) {
        case (128, 128):
            anchors = SsdAnchors.generate(.faceShortRange)
            decoding = .faceShortRange(minScore: minDetectionConfidence)
        case (192, 192):
            anchors = SsdAnchors.generate(.faceFullRange)
            decoding = .faceFullRange(minScore: minDetectionConfidence)
        default:
            throw VisionTaskError.invalidModel("\(name) has input \(resources.inputWidth)x\(resources.inputHeight); "
                                               + "BlazeFace takes 128x128 or 192x192")
        }
        guard outputs[0].elementCount == decoding.numBoxes * decoding.numCoords,
              outputs[1].elementCount == decoding.numBoxes else {
            throw VisionTaskError.invalidModel("\(name) outputs \(outputs.map(\.shape)) do not match "
                                               + "\(decoding.numBoxes) boxes of \(decoding.numCoords) values")
        }
        try resources.requireFloat32("the face detector")
        // The dense full-range model ships without metadata; BlazeFace takes [-1, 1].
        let range = try resources.inputRange(default: .init(min: -1, max: 1))
        return DetectorStage(resources: resources, anchors: anchors, decoding: decoding, range: range,
                             suppressionThreshold: minSuppressionThreshold)
    }

    /// The pipeline: letterboxed crop, inference, decoding, weighted NMS, projection;
    /// then the conversion to the displayed image's pixels.
    override func process(_ image: MPImage, timestamp: Int, roi: ImageProcessingOptions? = nil) throws
        -> FaceDetectorResult {
        let region = try ImageRegion.of(roi, image: image)
        let input = try region?.crop(image) ?? image
        var detections = detectNormalized(input).map { DetectionTransformation.displayDetection($0, image: input) }
        if let region { detections = detections.map(region.detection) }
        return FaceDetectorResult(detections: detections, timestampInMilliseconds: timestamp)
    }

    /// Detections in normalized coordinates of the stored pixels (MediaPipe's frame before `DetectionTransformation`).
    func detectNormalized(_ image: MPImage) -> [RawDetection] {
        lock.lock(); defer { lock.unlock() }
        return detector.run(image).projected()
    }

}
