import Dispatch
import Foundation
import TasksVision

/// A task's entry point for the running mode of the input.
enum TaskCalls {
    /// Image mode: one result per image.
    case image((MPImage) throws -> FrameReport)
    /// Video mode: one result per frame, timestamps increasing.
    case video((MPImage, Int) throws -> FrameReport)
    /// Live stream: `submit` returns at once, false when the frame was dropped because the task was
    /// busy; results reach `FrameReporter.deliver` from the task's queue; `drain` waits for the last.
    case live(submit: (MPImage, Int) throws -> Bool, drain: () -> Void)
}

extension TaskCalls {
    /// The calls of a task named `detect` (faces, palms, hands) in `mode`, with the region of interest.
    static func detection<R>(_ task: DetectionTask<R>, _ mode: RunningMode, roi: ImageProcessingOptions?,
                             _ report: @escaping (R) -> FrameReport) -> TaskCalls {
        switch mode {
        case .image: return .image { report(try task.detect(image: $0, imageProcessingOptions: roi)) }
        case .video:
            return .video {
                report(try task.detect(videoFrame: $0, timestampInMilliseconds: $1, imageProcessingOptions: roi))
            }
        case .liveStream:
            return .live(submit: {
                try task.detectAsync(image: $0, timestampInMilliseconds: $1, imageProcessingOptions: roi)
            }, drain: task.waitForPendingResults)
        }
    }
}

/// Runs a task command: every frame of the input through the task, results to the reporter.
enum TaskRun {
    /// Throws the input's own failure (after the frames read before it were reported), else the frames'.
    static func run(_ input: FrameInput, _ calls: TaskCalls, _ reporter: FrameReporter) throws {
        var streamFailure: Error?
        do {
            try frames(input, calls, reporter)
        } catch {
            streamFailure = error
        }
        if case .live(_, let drain) = calls { drain() }
        try reporter.finish(after: streamFailure)
    }

    private static func frames(_ input: FrameInput, _ calls: TaskCalls, _ reporter: FrameReporter) throws {
        try input.forEach { frame in
            let image: MPImage
            switch frame.image {
            case .failure(let error): reporter.fail(frame, error); return
            case .success(let i): image = i
            }
            do {
                switch calls {
                case .image(let detect): reporter.report(frame, image, try detect(image))
                case .video(let detect): reporter.report(frame, image, try detect(image, frame.timestamp ?? 0))
                case .live(let submit, _):
                    reporter.hold(frame, image)
                    if try !submit(image, frame.timestamp ?? 0) { reporter.release(timestamp: frame.timestamp) }
                }
            } catch {
                reporter.release(timestamp: frame.timestamp)
                reporter.fail(frame, error)
            }
        }
    }
}

/// Live-stream running for a task that has no asynchronous method of its own (ML Kit's
/// `PoseDetector`), with the rule the tasks' `detectAsync` follows: one frame at a time on a serial
/// queue, a frame arriving while one is in flight dropped.
final class LiveQueue: @unchecked Sendable {
    private let queue = DispatchQueue(label: "vision.live")
    private let lock = NSLock()
    private var inFlight = false

    /// Runs `work` on the queue and returns true, or returns false if a frame is still in flight.
    func submit(_ work: @escaping () -> Void) -> Bool {
        lock.lock()
        if inFlight { lock.unlock(); return false }
        inFlight = true
        lock.unlock()
        queue.async { [self] in
            work()
            lock.lock(); inFlight = false; lock.unlock()
        }
        return true
    }

    /// Waits until the last accepted frame is done.
    func drain() { queue.sync {} }
}
