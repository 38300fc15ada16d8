/// What a task's options give the running-mode shell: the live-stream callback and whether the
/// task's delegate is set. Each task's options conform, so that the receiver checks and the
/// result delivery are written once (`TaskRunner.init(_:label:delegate:)`, `deliver(to:options:_:)`).
protocol LiveStreamReceivers: TaskOptions {
    associatedtype Output
    var resultCallback: ((Result<Output, Error>, Int) -> Void)? { get }
    var hasLiveStreamDelegate: Bool { get }
}

extension TaskRunner {
    /// The runner of a task's options: a live stream needs the delegate (`delegate`, its option's
    /// name in messages) or the callback; other modes take neither.
    convenience init<Options: LiveStreamReceivers>(_ options: Options, label: String, delegate: String) throws
        where Options.Output == Output {
        try self.init(mode: options.runningMode, label: label,
                      hasReceiver: options.hasLiveStreamDelegate || options.resultCallback != nil, delegate: delegate)
    }

    /// Delivers each live-stream result to the callback of `task`'s options, then to its delegate
    /// through `tell` (the result or nil, the timestamp, the error or nil); the task is held weakly.
    func deliver<Task: AnyObject, Options: LiveStreamReceivers>(
        to task: Task, options: KeyPath<Task, Options>, _ tell: @escaping (Task, Output?, Int, Error?) -> Void
    ) where Options.Output == Output {
        notify = { [weak task] result, timestamp in
            guard let task else { return }
            task[keyPath: options].resultCallback?(result, timestamp)
            tell(task, try? result.get(), timestamp, result.error)
        }
    }
}
