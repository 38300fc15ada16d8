import Dispatch
import Foundation
import TasksVision

/// Runs a task command: every frame of the input through the task, results to the reporter.
enum TaskRun {
    /// Throws the input's own failure (after the frames read before it were reported), else the frames'.
    static func run(_ input: FrameInput, _ task: FrameTask, _ reporter: FrameReporter) throws {
        var streamFailure: Error?
        do {
            try frames(input, task, reporter)
        } catch {
            streamFailure = error
        }
        if input.runningMode == .liveStream { task.drain() }
        try reporter.finish(after: streamFailure, closing: task.closingLine)
    }

    private static func frames(_ input: FrameInput, _ task: FrameTask, _ reporter: FrameReporter) throws {
        let mode = input.runningMode
        try input.forEach { frame in
            let image: MPImage
            switch frame.image {
            case .failure(let error): reporter.fail(frame, error); return
            case .success(let i): image = i
            }
            do {
                switch mode {
                case .image: reporter.report(frame, image, try task.image(image))
                case .video: reporter.report(frame, image, try task.video(image, timestamp: frame.timestamp ?? 0))
                case .liveStream:
                    reporter.hold(frame, image)
                    if try !task.submit(image, timestamp: frame.timestamp ?? 0) {
                        reporter.release(timestamp: frame.timestamp)
                    }
                }
            } catch {
                reporter.release(timestamp: frame.timestamp)
                reporter.fail(frame, error)
            }
            // An output that cannot be written ends the run now, not after the frames left.
            if let stop = reporter.stopped { throw stop }
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
