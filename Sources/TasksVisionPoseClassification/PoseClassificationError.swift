import Foundation

/// Why pose samples or a classifier could not be made.
public enum PoseClassificationError: Error, Equatable, CustomStringConvertible {
    /// A pose given as landmarks did not have BlazePose's 33.
    case landmarkCount(Int)
    /// A sample file could not be read.
    case unreadable(path: String, reason: String)
    /// A sample file had no valid row; `firstProblem` is the first row's problem, if any.
    case noSamples(source: String, firstProblem: String?)
    /// A setting out of its range: its name and what it must be.
    case invalidSetting(String, String)
    /// A class to count repetitions of that none of the samples has.
    case unknownClass(String, known: [String])

    /// The error as one line.
    public var description: String {
        switch self {
        case .landmarkCount(let n): return "a pose to classify has \(n) landmarks, not 33"
        case let .unreadable(path, reason): return "\(path): cannot read pose samples (\(reason))"
        case let .noSamples(source, problem):
            return "\(source): no valid pose sample row" + (problem.map { " (\($0))" } ?? " (the file is empty)")
        case let .invalidSetting(name, rule): return "\(name) must be \(rule)"
        case let .unknownClass(name, known):
            return "no pose sample has class '\(name)' (the classes are \(known.joined(separator: ", ")))"
        }
    }
}
