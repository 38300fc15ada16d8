/// What went wrong while making a dataset, training or writing a gesture classifier; each
/// message names the file, folder, option or sample at fault.
public enum TrainingError: Error, Equatable, CustomStringConvertible {
    /// The dataset cannot be trained on (no background label, no hands, too few samples).
    case invalidDataset(String)
    /// A sample or a landmarks CSV row is malformed.
    case invalidSample(String)
    /// A training option is out of range.
    case invalidOption(String)
    /// A base model (embedder, canned classifier, bundle) is not what a gesture recognizer needs.
    case invalidBaseModel(String)
    /// A file could not be written.
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case let .invalidDataset(m): return "invalid dataset: \(m)"
        case let .invalidSample(m): return "invalid sample: \(m)"
        case let .invalidOption(m): return "invalid option: \(m)"
        case let .invalidBaseModel(m): return "invalid base model: \(m)"
        case let .unwritable(path, reason): return "\(path): cannot write: \(reason)"
        }
    }
}
