/// How a task is fed: single images, frames of a video, or a live stream with results delivered asynchronously.
public enum RunningMode: String, Sendable, Codable, CustomStringConvertible {
    case image, video, liveStream
    public var description: String { rawValue }
}

/// Options shared by every task (MediaPipe's `BaseOptions`).
public struct BaseOptions: Sendable, Equatable {
    /// Path of the model: a `.tflite` or `.task` file, or a bundle member (`bundle.task:member.tflite`).
    public var modelAssetPath: String
    /// Worker threads used inside one inference.
    public var threads: Int

    public init(modelAssetPath: String = "", threads: Int = 1) {
        self.modelAssetPath = modelAssetPath
        self.threads = threads
    }
}
