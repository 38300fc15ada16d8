import Foundation

/// What every task is: a pipeline behind the shared running-mode shell (`TaskRunner`). This
/// class holds the runner and gives the methods every task has; a task overrides `process`.
public class VisionTask<Output: Sendable>: @unchecked Sendable {
    let runner: TaskRunner<Output>

    init(runner: TaskRunner<Output>) { self.runner = runner }

    /// The task's pipeline on one image; each task overrides it.
    func process(_ image: MPImage, timestamp: Int, roi: ImageProcessingOptions?) throws -> Output {
        throw VisionTaskError.invalidOption("\(type(of: self)) has no pipeline")
    }

    /// Live-stream results as an `AsyncStream`, in timestamp order.
    public var liveResults: AsyncStream<Output> { runner.liveResults }

    /// Waits until every accepted live-stream frame has been delivered.
    public func waitForPendingResults() { runner.drain() }

    // The running modes' entry points, named as the task names them (detect, recognize).

    func image(_ method: String, _ image: MPImage, _ roi: ImageProcessingOptions?) throws -> Output {
        try runner.runImage(method) { try process(image, timestamp: 0, roi: roi) }
    }

    func video(_ method: String, _ image: MPImage, _ timestamp: Int, _ roi: ImageProcessingOptions?) throws -> Output {
        try runner.runVideo(method, timestamp: timestamp) { try process(image, timestamp: timestamp, roi: roi) }
    }

    func live(_ method: String, _ image: MPImage, _ timestamp: Int, _ roi: ImageProcessingOptions?) throws -> Bool {
        try runner.runLive(method, image: image, timestamp: timestamp) { [self] in
            try self.process($0, timestamp: timestamp, roi: roi)
        }
    }

    func imageAsync(_ method: String, _ image: MPImage, _ roi: ImageProcessingOptions?) async throws -> Output {
        try await runner.runImageAsync(method, image: image) { [self] in try self.process($0, timestamp: 0, roi: roi) }
    }

    func videoAsync(_ method: String, _ image: MPImage, _ timestamp: Int,
                    _ roi: ImageProcessingOptions?) async throws -> Output {
        try await runner.runVideoAsync(method, image: image, timestamp: timestamp) { [self] in
            try self.process($0, timestamp: timestamp, roi: roi)
        }
    }
}

/// A task whose methods are named `detect` (MediaPipe's FaceDetector, HandLandmarker and
/// PoseLandmarker, and HandDetector). A region of interest, when given, is normalized to the
/// displayed image; results come back in the whole image.
public class DetectionTask<Output: Sendable>: VisionTask<Output>, @unchecked Sendable {
    /// Detects in a single image (`.image` mode).
    public func detect(image: MPImage, imageProcessingOptions: ImageProcessingOptions? = nil) throws -> Output {
        try self.image("detect(image:)", image, imageProcessingOptions)
    }

    /// Detects in a video frame (`.video` mode); timestamps must increase.
    public func detect(videoFrame image: MPImage, timestampInMilliseconds: Int,
                       imageProcessingOptions: ImageProcessingOptions? = nil) throws -> Output {
        try video("detect(videoFrame:timestampInMilliseconds:)", image, timestampInMilliseconds, imageProcessingOptions)
    }

    /// Sends a live-stream frame (`.liveStream` mode) and returns at once; the result arrives on the
    /// task's serial queue. A frame sent while the previous one is in flight is dropped (returns false).
    @discardableResult
    public func detectAsync(image: MPImage, timestampInMilliseconds: Int,
                            imageProcessingOptions: ImageProcessingOptions? = nil) throws -> Bool {
        try live("detectAsync(image:timestampInMilliseconds:)", image, timestampInMilliseconds, imageProcessingOptions)
    }

    /// A single image without blocking the caller (`.image` mode).
    public func detect(image: MPImage, imageProcessingOptions: ImageProcessingOptions? = nil) async throws -> Output {
        try await imageAsync("detect(image:)", image, imageProcessingOptions)
    }

    /// A video frame without blocking the caller (`.video` mode).
    public func detect(videoFrame image: MPImage, timestampInMilliseconds: Int,
                       imageProcessingOptions: ImageProcessingOptions? = nil) async throws -> Output {
        try await videoAsync("detect(videoFrame:timestampInMilliseconds:)", image, timestampInMilliseconds,
                             imageProcessingOptions)
    }
}
