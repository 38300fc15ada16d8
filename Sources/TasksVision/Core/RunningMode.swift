/// How a task is fed: single images, frames of a video, or a live stream with results delivered asynchronously.
public enum RunningMode: String, Sendable, Codable, CustomStringConvertible {
    case image, video, liveStream
    public var description: String { rawValue }
}

/// The processing unit a task runs on (MediaPipe's `Delegate`). There is no GPU path here:
/// `.GPU` is accepted, so code written for it runs, and the work runs on the CPU.
public enum Delegate: Int, Sendable {
    case CPU, GPU
}

/// Options shared by every task (MediaPipe's `BaseOptions`).
public final class BaseOptions: @unchecked Sendable {
    /// The model: a `.tflite` or `.task` file, a bundle member (`bundle.task:member.tflite`) or the
    /// file name of an installed model, looked up as `ModelLocator` describes.
    public var modelAssetPath: String?
    /// Where inference runs; see `Delegate`.
    public var delegate: Delegate = .CPU
    /// Worker threads used inside one inference, 1...64.
    public var threads = 1

    public init() {}

    public convenience init(modelAssetPath: String?, threads: Int = 1) {
        self.init()
        self.modelAssetPath = modelAssetPath
        self.threads = threads
    }

    func copy() -> BaseOptions {
        let c = BaseOptions(modelAssetPath: modelAssetPath, threads: threads)
        c.delegate = delegate
        return c
    }
}

/// The options every task has (MediaPipe's `TaskOptions`): the base options and the running mode.
/// Tasks copy their options when created, so changing an options object later affects only
/// tasks created after the change, as in MediaPipe.
public class TaskOptions: @unchecked Sendable {
    public var baseOptions = BaseOptions()
    public var runningMode: RunningMode = .image

    public init() {}

    /// Copies the shared fields onto `other` (each subclass's `copy()` starts here).
    func copyBase<T: TaskOptions>(into other: T) -> T {
        other.baseOptions = baseOptions.copy()
        other.runningMode = runningMode
        return other
    }
}
