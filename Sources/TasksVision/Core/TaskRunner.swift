import Dispatch
import Foundation

/// The running-mode rules every task shares, as MediaPipe's task runner applies them:
/// methods of another mode are refused, video and live-stream timestamps must
/// increase strictly, and live-stream frames are processed one at a time on a
/// private serial queue, a frame arriving while one is in flight being dropped.
final class TaskRunner<Output>: @unchecked Sendable {
    let mode: RunningMode
    let queue: DispatchQueue
    private let lock = NSLock()
    private var lastTimestamp: Int?
    private var inFlight = false
    /// Called on `queue` with each live-stream result.
    var deliver: ((Result<Output, Error>, Int) -> Void)?

    init(mode: RunningMode, label: String) {
        self.mode = mode
        self.queue = DispatchQueue(label: "TasksVision.\(label).results")
    }

    func require(_ expected: RunningMode, method: String) throws {
        guard mode == expected else { throw VisionTaskError.wrongRunningMode(called: method, mode: mode) }
    }

    /// Accepts a timestamp only if it is greater than the last accepted one.
    func accept(timestamp: Int) throws {
        lock.lock(); defer { lock.unlock() }
        try acceptLocked(timestamp: timestamp)
    }

    /// `accept(timestamp:)` for a caller that already holds the lock.
    private func acceptLocked(timestamp: Int) throws {
        if let last = lastTimestamp, timestamp <= last {
            throw VisionTaskError.nonMonotonicTimestamp(received: timestamp, previous: last)
        }
        lastTimestamp = timestamp
    }

    /// Checks the timestamp and, unless a frame is in flight, runs `work` on the serial queue;
    /// returns false when the frame was dropped. Both happen under one lock so that frames
    /// sent from several threads reach the queue in timestamp order. `work` holds the task
    /// (the caller captures it strongly), so releasing the task mid-frame is safe.
    func submit<Input>(timestamp: Int, prepare: () -> Input, _ work: @escaping (Input) throws -> Output) throws -> Bool {
        lock.lock()
        do { try acceptLocked(timestamp: timestamp) } catch { lock.unlock(); throw error }
        if inFlight { lock.unlock(); return false }
        inFlight = true
        lock.unlock()
        // While inFlight is set no other frame can be accepted, so the order is kept after unlocking.
        let input = prepare()
        queue.async { [self] in
            let result = Result { try work(input) }
            lock.lock(); inFlight = false; lock.unlock()
            deliver?(result, timestamp)
        }
        return true
    }

    /// Waits until queued live-stream work has been delivered.
    func drain() { queue.sync {} }

    // The entry points every task shares: each checks the mode (and timestamp), then runs the pipeline.

    func runImage(_ method: String, _ body: () throws -> Output) throws -> Output {
        try require(.image, method: method)
        return try body()
    }

    func runVideo(_ method: String, timestamp: Int, _ body: () throws -> Output) throws -> Output {
        try require(.video, method: method)
        try accept(timestamp: timestamp)
        return try body()
    }

    /// Live stream: the image is copied (it may be borrowed memory) and processed on the queue.
    func runLive(_ method: String, image: MPImage, timestamp: Int, _ body: @escaping (MPImage) throws -> Output) throws -> Bool {
        try require(.liveStream, method: method)
        // The copy is made only for accepted frames, before the call returns.
        return try submit(timestamp: timestamp, prepare: { image.owned() }, body)
    }

    /// Image mode off the caller's thread.
    func runImageAsync(_ method: String, image: MPImage, _ body: @escaping @Sendable (MPImage) throws -> Output) async throws -> Output {
        try require(.image, method: method)
        let owned = image.owned()
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body(owned) }) }
        }
    }
}
