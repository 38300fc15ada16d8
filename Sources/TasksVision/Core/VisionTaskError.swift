/// Errors raised by the vision tasks. Each message names what is wrong.
public enum VisionTaskError: Error, Equatable, CustomStringConvertible {
    /// An option is out of range or inconsistent.
    case invalidOption(String)
    /// The image cannot be used (size, bytes per row, buffer length).
    case invalidImage(String)
    /// A method of another running mode was called.
    case wrongRunningMode(called: String, mode: RunningMode)
    /// A video or live-stream timestamp did not increase.
    case nonMonotonicTimestamp(received: Int, previous: Int)
    /// The model file cannot be used for this task.
    case invalidModel(String)

    public var description: String {
        switch self {
        case .invalidOption(let s): return "invalid option: \(s)"
        case .invalidImage(let s): return "invalid image: \(s)"
        case let .wrongRunningMode(called, mode):
            return "\(called) is not available in running mode \(mode); use the method of the \(mode) mode"
        case let .nonMonotonicTimestamp(received, previous):
            return "timestamp \(received) ms must be greater than the previous one, \(previous) ms"
        case .invalidModel(let s): return "invalid model: \(s)"
        }
    }
}
