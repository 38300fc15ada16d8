import Foundation

/// The one error type the vision tasks throw. Each message names what is wrong: the option,
/// the image, the method, or the model file (format and engine errors are wrapped as
/// `invalidModel`, their message kept).
///
/// As an `NSError` it is MediaPipe's: the domain `com.google.mediapipe.tasks`, the code of
/// MediaPipe's `TasksErrorCode` (3 for an invalid argument, 5 for a model not found) and, where
/// MediaPipe has a text for the same mistake, that text as `localizedDescription`. `description`
/// keeps our own wording, which names the option or method.
public enum VisionTaskError: Error, Equatable, CustomStringConvertible, LocalizedError, CustomNSError {
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

    /// MediaPipe's text where MediaPipe has one for the same mistake, else `description`.
    public var errorDescription: String? { MediaPipeErrorText.text(for: self) ?? description }

    /// MediaPipe's error domain (`MPPTasksErrorDomain`).
    public static var errorDomain: String { MediaPipeErrorText.domain }

    /// MediaPipe's error code: `notFoundError` (5) for a missing model, `invalidArgumentError` (3) otherwise,
    /// as MediaPipe reports these mistakes.
    public var tasksErrorCode: TasksErrorCode {
        switch self {
        case .modelNotFound: return .notFoundError
        case .invalidModel(let s): return MediaPipeErrorText.status(in: s)?.code ?? .invalidArgumentError
        default: return .invalidArgumentError
        }
    }

    /// `tasksErrorCode` as a number, the `NSError` code.
    public var errorCode: Int { tasksErrorCode.rawValue }

    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: errorDescription ?? description] }

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

/// MediaPipe's error codes (`MPPTasksErrorCode` of MediaPipe Tasks for iOS: absl's status codes without OK), so code
/// that compares `(error as NSError).code` with MediaPipe's codes reads the same.
public enum TasksErrorCode: Int, CaseIterable, Sendable {
    case cancelledError = 1, unknownError, invalidArgumentError, deadlineExceededError, notFoundError,
         alreadyExistsError, permissionDeniedError, resourceExhaustedError, failedPreconditionError, abortedError,
         outOfRangeError, unimplementedError, internalError, unavailableError, dataLossError, unauthenticatedError
}

/// MediaPipe's error domain, codes and texts (mediapipe/tasks/ios: `MPPCommon.h`,
/// `MPPVisionTaskRunner.mm`; the C++ task runner and external file handler), for the mistakes
/// we report as MediaPipe does.
enum MediaPipeErrorText {
    static let domain = "com.google.mediapipe.tasks"

    // Our messages for the mistakes MediaPipe words its own way (thrown by TaskRunner and TaskSetup).
    static let delegateOutsideLiveStream =
        "a live-stream delegate or resultCallback is only allowed in the liveStream running mode"
    static func missingReceiver(_ delegate: String) -> String {
        "the liveStream running mode needs \(delegate) or resultCallback"
    }
    static let missingModelPath = "baseOptions.modelAssetPath is not set (nil or empty)"
    static let noSegmenterOutput = "shouldOutputConfidenceMasks and shouldOutputCategoryMask are both false; "
        + "set at least one"
    /// ImageSegmenter::Create's text for it.
    static let noSegmenterOutputMediaPipe = "INVALID_ARGUMENT: At least one of `output_confidence_masks` and "
        + "`output_category_mask` must be set."

    // The classifier's and embedder's option mistakes, as ClassificationPostprocessingGraph and
    // ConvertToNormalizedRect word them (our messages are these texts, with what was given after them).
    static let maxResultsZero = "INVALID_ARGUMENT: Invalid `max_results` option: value must be != 0."
    static let allowAndDenyLists = "INVALID_ARGUMENT: `category_allowlist` and `category_denylist` are mutually "
        + "exclusive options."
    static let listsWithoutLabels = "INVALID_ARGUMENT: Using `category_allowlist` or `category_denylist` requires "
        + "labels to be present in the TFLite Model Metadata but none was found."
    static let roiOrder = "INVALID_ARGUMENT: Expected RectF with left < right and top < bottom."
    static let roiRange = "INVALID_ARGUMENT: Expected RectF values to be in [0,1]."
    /// Option messages that begin with MediaPipe's own text: the text is the localized description.
    static let optionTexts = [maxResultsZero, allowAndDenyLists, listsWithoutLabels, roiOrder, roiRange]

    /// `MPPCosineSimilarity`'s texts (its sizes message lacks the closing parenthesis).
    static let cosineMixed = "Cannot compute cosine similarity between quantized and float embeddings."
    static func cosineSizes(_ a: Int, _ b: Int) -> String {
        "Cannot compute cosine similarity between embeddings of different sizes (\(a) vs \(b)"
    }

    /// absl's status names in MediaPipe's texts, with the code each gives.
    static let statuses: [(name: String, code: TasksErrorCode)] = [
        ("INVALID_ARGUMENT", .invalidArgumentError), ("NOT_FOUND", .notFoundError),
        ("FAILED_PRECONDITION", .failedPreconditionError), ("UNIMPLEMENTED", .unimplementedError),
        ("INTERNAL", .internalError),
    ]

    /// A model message of the form "<file>: <STATUS>: <MediaPipe's text>" (or without the file): the status's
    /// code and the text from the status on, MediaPipe's description of the mistake.
    static func status(in message: String) -> (code: TasksErrorCode, text: String)? {
        var best: (code: TasksErrorCode, text: String, at: String.Index)?
        for (name, code) in statuses {
            let marker = name + ": "
            var range = message.range(of: marker)
            while let r = range, r.lowerBound != message.startIndex && !message[..<r.lowerBound].hasSuffix(": ") {
                range = message.range(of: marker, range: r.upperBound..<message.endIndex)
            }
            if let r = range, best.map({ r.lowerBound < $0.at }) ?? true {
                best = (code, String(message[r.lowerBound...]), r.lowerBound)
            }
        }
        return best.map { ($0.code, $0.text) }
    }

    static let delegateInImageOrVideoMode =
        "The vision task is in image or video mode. The delegate must not be set in the task's options."
    static let missingDelegateInLiveStream =
        "The vision task is in live stream mode. An object must be set as the delegate of the task in its "
        + "options to ensure asynchronous delivery of results."
    static let timestampNotIncreasing = "INVALID_ARGUMENT: Input timestamp must be monotonically increasing."
    static let externalFileUnset = "INVALID_ARGUMENT: ExternalFile must specify at least one of 'file_content', "
        + "'file_name', 'file_pointer_meta' or 'file_descriptor_meta'."

    /// The mode's name in MediaPipe's texts (`MPPRunningModeDisplayName`).
    static func displayName(_ mode: RunningMode) -> String {
        switch mode {
        case .image: return "Image"
        case .video: return "Video"
        case .liveStream: return "Live Stream"
        }
    }

    /// The running mode a task method belongs to, from its name: `…Async(…)` is live stream,
    /// `…(videoFrame:…)` video, the rest image mode.
    static func mode(ofMethod method: String) -> RunningMode {
        if method.contains("Async(") { return .liveStream }
        if method.contains("videoFrame:") { return .video }
        return .image
    }

    static func wrongMode(method: String, current: RunningMode) -> String {
        let wanted = displayName(mode(ofMethod: method)).lowercased()
        return "The vision task is not initialized with \(wanted) mode. Current Running Mode: \(displayName(current))"
    }

    /// MediaPipe's text for the error, when MediaPipe has one.
    static func text(for error: VisionTaskError) -> String? {
        switch error {
        case let .wrongRunningMode(called, mode): return wrongMode(method: called, current: mode)
        case .nonMonotonicTimestamp: return timestampNotIncreasing
        case .invalidOption(let s):
            if s.hasPrefix(detectorMaxResultsZero + " (") { return detectorMaxResultsZero }
            if s == delegateOutsideLiveStream { return delegateInImageOrVideoMode }
            if s.hasPrefix("the liveStream running mode needs ") && s.hasSuffix(" or resultCallback") {
                return missingDelegateInLiveStream
            }
            if s == missingModelPath { return externalFileUnset }
            if s == noSegmenterOutput { return noSegmenterOutputMediaPipe }
            if s.hasPrefix("Cannot compute cosine similarity") { return s }
            return optionTexts.first { s.hasPrefix($0) }
        // A model mistake MediaPipe words itself (e.g. blendshapes asked of a bundle without them).
        case .invalidModel(let s): return status(in: s)?.text
        default: return nil
        }
    }
}
