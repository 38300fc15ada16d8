import Foundation

/// The one error type the vision tasks throw. Each message names what is wrong: the option,
/// the image, the method, or the model file (format and engine errors are wrapped as
/// `invalidModel`, their message kept).
public enum VisionTaskError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// An option is out of range or inconsistent.
    case invalidOption(String)
    /// The image cannot be used (size, bytes per row, buffer length).
    case invalidImage(String)
    /// A method of another running mode was called.
    case wrongRunningMode(called: String, mode: RunningMode)
    /// A video or live-stream timestamp did not increase.
    case nonMonotonicTimestamp(received: Int, previous: Int)
    /// The model file cannot be used for this task (unreadable, malformed, or of another kind).
    case invalidModel(String)
    /// No model file was found at the path or in any of the places `ModelLocator` searches.
    case modelNotFound(String)

    public var description: String {
        switch self {
        case .invalidOption(let s): return "invalid option: \(s)"
        case .invalidImage(let s): return "invalid image: \(s)"
        case let .wrongRunningMode(called, mode):
            return "\(called) is not available in running mode \(mode); use the method of the \(mode) mode"
        case let .nonMonotonicTimestamp(received, previous):
            return "timestamp \(received) ms must be greater than the previous one, \(previous) ms"
        case .invalidModel(let s): return "invalid model: \(s)"
        case .modelNotFound(let s): return "model not found: \(s)"
        }
    }

    public var errorDescription: String? { description }

    /// Runs model loading, giving any error but our own as `invalidModel` with its message
    /// (which names the file), so a caller catches one type.
    static func wrappingModelErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as VisionTaskError {
            throw error
        } catch {
            throw VisionTaskError.invalidModel(String(describing: error))
        }
    }
}
