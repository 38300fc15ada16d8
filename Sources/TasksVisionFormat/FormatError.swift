/// Errors raised while reading model files, metadata, zips and `.task` bundles.
///
/// Every case names the file (or bundle member path) and what is wrong with it.
public enum FormatError: Error, Equatable, CustomStringConvertible {
    /// The file could not be read from disk.
    case unreadable(file: String, reason: String)
    /// A structure points outside the file or is otherwise malformed.
    case malformed(file: String, reason: String)
    /// The file is valid but uses something this reader does not support.
    case unsupported(file: String, reason: String)
    /// A `.task` bundle (or nested bundle) has no member of that name.
    case missingMember(file: String, member: String, available: [String])

    public var description: String {
        switch self {
        case let .unreadable(file, reason): return "\(file): cannot read file: \(reason)"
        case let .malformed(file, reason): return "\(file): malformed: \(reason)"
        case let .unsupported(file, reason): return "\(file): unsupported: \(reason)"
        case let .missingMember(file, member, available):
            return "\(file): no member named '\(member)' (members: \(available.joined(separator: ", ")))"
        }
    }
}

extension FormatError: CustomDebugStringConvertible {
    public var debugDescription: String { description }
}
