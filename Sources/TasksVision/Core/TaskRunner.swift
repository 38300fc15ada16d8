import Dispatch
import Foundation

/// The shell every task plugs its pipeline into: the running-mode rules as MediaPipe's task
/// runner applies them (methods of another mode are refused, video and live-stream timestamps
/// must increase strictly, live-stream frames are processed one at a time on a private serial
/// queue and a frame arriving while one is in flight is dropped), the delivery of live-stream
/// results to the delegate, the callback and `liveResults`, and the async forms.
final class TaskRunner<Output: Sendable>: @unchecked Sendable {
    let mode: RunningMode
    let queue: DispatchQueue
    private let lock = NSLock()
    private var lastTimestamp: Int?
    private var inFlight = false
    private var continuations: [UUID: AsyncStream<Output>.Continuation] = [:]
    private let clockStart = DispatchTime.now().uptimeNanoseconds
    /// Called on `queue` with each live-stream result: the task's delegate and callback.
    var notify: ((Result<Output, Error>, Int) -> Void)?

    /// Checks the options every task shares: a live stream needs a receiver (the task's
    /// delegate, named `delegate` in messages, or `resultCallback`) and other modes take none.
    init(mode: RunningMode, label: String, hasReceiver: Bool, delegate: String) throws {
        if mode == .liveStream && !hasReceiver {
            throw VisionTaskError.invalidOption(MediaPipeErrorText.missingReceiver(delegate))
        }
        if mode != .liveStream && hasReceiver {
            throw VisionTaskError.invalidOption(MediaPipeErrorText.delegateOutsideLiveStream)
        }
        self.mode = mode
        self.queue = DispatchQueue(label: "TasksVision.\(label).results")
    }

    /// A runner without receivers, for ML Kit's detector (its stream mode runs as video mode).
    init(mode: RunningMode, label: String) {
        self.mode = mode
        self.queue = DispatchQueue(label: "TasksVision.\(label).results")
    }

    deinit {
        for c in continuations.values { c.finish() }
    }

    func require(_ expected: RunningMode, method: String) throws {
        guard mode == expected else { throw VisionTaskError.wrongRunningMode(called: method, mode: mode) }
    }

    /// Accepts a timestamp only if it is greater than the last accepted one.
    func accept(timestamp: Int) throws {
        lock.lock(); defer { lock.unlock() }
        try acceptLocked(timestamp: timestamp)
    }

    private func acceptLocked(timestamp: Int) throws {
        if let last = lastTimestamp, timestamp <= last {
            throw VisionTaskError.nonMonotonicTimestamp(received: timestamp, previous: last)
        }
        lastTimestamp = timestamp
    }

    /// A given timestamp must increase; without one, the monotonic clock's milliseconds since
    /// the runner was made, moved past the last one when two calls fall in one millisecond.
    func acceptOrClock(_ given: Int?) throws -> Int {
        lock.lock(); defer { lock.unlock() }
        if let given {
            try acceptLocked(timestamp: given)
            return given
        }
        var t = Int((DispatchTime.now().uptimeNanoseconds - clockStart) / 1_000_000)
        if let last = lastTimestamp, t <= last { t = last + 1 }
        lastTimestamp = t
        return t
    }

    /// Checks the timestamp and, unless a frame is in flight, runs `work` on the serial queue;
    /// returns false when the frame was dropped. Both happen under one lock so that frames
    /// sent from several threads reach the queue in timestamp order. `work` holds the task
    /// (the caller captures it strongly), so releasing the task mid-frame is safe.
    func submit<Input>(timestamp: Int, prepare: () -> Input,
                       _ work: @escaping (Input) throws -> Output) throws -> Bool {
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
            deliver(result, timestamp: timestamp)
        }
        return true
    }

    private func deliver(_ result: Result<Output, Error>, timestamp: Int) {
        notify?(result, timestamp)
        guard case .success(let output) = result else { return }
        lock.lock(); let receivers = Array(continuations.values); lock.unlock()
        for c in receivers { c.yield(output) }
    }

    /// Live-stream results as an `AsyncStream`, in timestamp order; each call makes a new stream.
    var liveResults: AsyncStream<Output> {
        AsyncStream { continuation in
            let id = UUID()
            lock.lock(); continuations[id] = continuation; lock.unlock()
            continuation.onTermination = { [weak self] _ in
                guard let self else { return }
                self.lock.lock(); self.continuations[id] = nil; self.lock.unlock()
            }
        }
    }

    /// Waits until queued live-stream work has been delivered.
    func drain() { queue.sync {} }

    // The entry points: each checks the mode (and timestamp), then runs the pipeline.

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
    func runLive(_ method: String, image: MPImage, timestamp: Int,
                 _ body: @escaping (MPImage) throws -> Output) throws -> Bool {
        try require(.liveStream, method: method)
        // The copy is made only for accepted frames, before the call returns.
        return try submit(timestamp: timestamp, prepare: { image.owned() }, body)
    }

    /// Image mode off the caller's thread.
    func runImageAsync(_ method: String, image: MPImage,
                       _ body: @escaping @Sendable (MPImage) throws -> Output) async throws -> Output {
        try require(.image, method: method)
        return try await Self.detached(image.owned(), body)
    }

    /// Video mode off the caller's thread; the timestamp is checked before the call suspends.
    func runVideoAsync(_ method: String, image: MPImage, timestamp: Int,
                       _ body: @escaping @Sendable (MPImage) throws -> Output) async throws -> Output {
        try require(.video, method: method)
        try accept(timestamp: timestamp)
        return try await Self.detached(image.owned(), body)
    }

    static func detached<Input>(_ input: Input, _ body: @escaping (Input) throws -> Output) async throws -> Output {
        let box = UncheckedBox(input)
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body(box.value) }) }
        }
    }
}

/// Carries a value the caller has made private (an owned image copy) to another thread.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

extension Result {
    var error: Failure? { if case .failure(let e) = self { return e } else { return nil } }
}
