import Foundation
import TasksVision

/// A task as the command line runs it, one call per running mode, each giving the frame's report.
/// Every task command's `make` returns one (faces, palms, hands and gestures through `LibraryFrameTask`,
/// pose its own), so the run loop (`TaskRun`), worker mode and the benchmark call every task alike.
protocol FrameTask: AnyObject {
    /// Image mode: one report per image.
    func image(_ image: MPImage) throws -> FrameReport
    /// Video mode: one report per frame, timestamps increasing.
    func video(_ image: MPImage, timestamp: Int) throws -> FrameReport
    /// Live stream: returns at once, false when the frame was dropped because the task was busy; the
    /// report reaches the setup's reporter from the task's queue.
    func submit(_ image: MPImage, timestamp: Int) throws -> Bool
    /// Waits for the last live-stream report.
    func drain()
    /// The line printed after the input's last frame (pose's repetitions), if any.
    func closingLine() throws -> String?
}

extension FrameTask {
    func closingLine() throws -> String? { nil }
}

/// What a task command is given to make its task: the running mode of the input, the threads of one
/// inference, and where live-stream results go.
struct FrameTaskSetup {
    let mode: RunningMode
    let threads: Int
    /// The reporter of the input (nil for a task made before any input, or for the benchmark: live results
    /// are then dropped).
    let reporter: FrameReporter?

    /// A live-stream result, on the task's queue.
    func deliver(_ result: Result<FrameReport, Error>, timestamp: Int) {
        reporter?.deliver(result, timestamp: timestamp)
    }

    /// A library task's options with what the setup decides: the model, the threads and the running mode.
    func options<O: TasksVision.TaskOptions>(_ options: O, model: String) -> O {
        options.baseOptions.modelAssetPath = model
        options.baseOptions.threads = threads
        options.runningMode = mode
        return options
    }

    /// The `resultCallback` a library task's options take: reports to the reporter in live-stream mode, nil
    /// in the other modes.
    func callback<R>(_ report: @escaping (R) -> FrameReport) -> ((Result<R, Error>, Int) -> Void)? {
        guard mode == .liveStream else { return nil }
        return { result, timestamp in deliver(result.map(report), timestamp: timestamp) }
    }
}

/// A library task, with MediaPipe's three calls under whatever name the task gives them (`detect`,
/// `recognize`, `segment`): a conformance names them, `LibraryFrameTask` does the rest.
protocol LibraryTask: AnyObject {
    associatedtype TaskResult
    func call(image: MPImage, roi: ImageProcessingOptions?) throws -> TaskResult
    func call(videoFrame: MPImage, timestamp: Int, roi: ImageProcessingOptions?) throws -> TaskResult
    func callAsync(image: MPImage, timestamp: Int, roi: ImageProcessingOptions?) throws -> Bool
    func waitForPendingResults()
}

extension DetectionTask: LibraryTask {
    func call(image: MPImage, roi: ImageProcessingOptions?) throws -> Output {
        try detect(image: image, imageProcessingOptions: roi)
    }

    func call(videoFrame: MPImage, timestamp: Int, roi: ImageProcessingOptions?) throws -> Output {
        try detect(videoFrame: videoFrame, timestampInMilliseconds: timestamp, imageProcessingOptions: roi)
    }

    func callAsync(image: MPImage, timestamp: Int, roi: ImageProcessingOptions?) throws -> Bool {
        try detectAsync(image: image, timestampInMilliseconds: timestamp, imageProcessingOptions: roi)
    }
}

extension GestureRecognizer: LibraryTask {
    func call(image: MPImage, roi: ImageProcessingOptions?) throws -> GestureRecognizerResult {
        try recognize(image: image, imageProcessingOptions: roi)
    }

    func call(videoFrame: MPImage, timestamp: Int, roi: ImageProcessingOptions?) throws -> GestureRecognizerResult {
        try recognize(videoFrame: videoFrame, timestampInMilliseconds: timestamp, imageProcessingOptions: roi)
    }

    func callAsync(image: MPImage, timestamp: Int, roi: ImageProcessingOptions?) throws -> Bool {
        try recognizeAsync(image: image, timestampInMilliseconds: timestamp, imageProcessingOptions: roi)
    }
}

/// A library task as a `FrameTask`: its calls with the region of interest, each result made a report.
/// Live-stream results come through the task's `resultCallback` (`FrameTaskSetup.callback`).
final class LibraryFrameTask<Task: LibraryTask>: FrameTask {
    let task: Task
    let roi: ImageProcessingOptions?
    let report: (Task.TaskResult) -> FrameReport

    init(_ task: Task, roi: ImageProcessingOptions?, report: @escaping (Task.TaskResult) -> FrameReport) {
        self.task = task
        self.roi = roi
        self.report = report
    }

    func image(_ image: MPImage) throws -> FrameReport { report(try task.call(image: image, roi: roi)) }

    func video(_ image: MPImage, timestamp: Int) throws -> FrameReport {
        report(try task.call(videoFrame: image, timestamp: timestamp, roi: roi))
    }

    func submit(_ image: MPImage, timestamp: Int) throws -> Bool {
        try task.callAsync(image: image, timestamp: timestamp, roi: roi)
    }

    func drain() { task.waitForPendingResults() }
}
