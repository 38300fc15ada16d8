/// How `ClassificationResult.maxConfidenceClass` picks the top class.
public enum MaxConfidenceRule: String, Sendable, CaseIterable {
    /// ML Kit's: walk the classes in Java `HashMap` order, and let a class take the lead only if its
    /// confidence exceeds the leader's by at least 1.0 (the comparator is `(int) (a - b)`).
    case mlKit
    /// The highest confidence; among equals, the first in ML Kit's class order.
    case highest
}

/// Per class, how many of the k nearest samples are of that class, or a smoothed value of it
/// (ML Kit's `ClassificationResult`). The classes are kept in the order Java's `HashMap` gives them,
/// which decides ML Kit's top class.
public struct ClassificationResult: Sendable, Equatable {
    private var order = JavaHashOrder()
    private var values: [String: Float] = [:]

    /// An empty result (no classes).
    public init() {}

    /// The classes, in ML Kit's order (Java `HashMap` iteration order).
    public var allClasses: [String] { order.iterationOrder }

    /// The confidences by class.
    public var confidences: [String: Float] { values }

    /// The confidence of a class, 0 for a class not present.
    public func classConfidence(_ className: String) -> Float { values[className] ?? 0 }

    /// Adds 1 to a class's confidence (1 for a new class).
    public mutating func incrementClassConfidence(_ className: String) {
        putClassConfidence(className, values[className].map { $0 + 1 } ?? 1)
    }

    /// Sets a class's confidence.
    public mutating func putClassConfidence(_ className: String, _ confidence: Float) {
        order.insert(className)
        values[className] = confidence
    }

    /// The class with the largest confidence by `rule` (ML Kit's `getMaxConfidenceClass`); nil when
    /// there are no classes (where Java throws).
    public func maxConfidenceClass(rule: MaxConfidenceRule = .mlKit) -> String? {
        let classes = allClasses
        guard var best = classes.first else { return nil }
        var bestValue = classConfidence(best)
        for c in classes.dropFirst() {
            let v = classConfidence(c)
            let leads: Bool
            switch rule {
            case .mlKit: leads = Java.toInt(v - bestValue) > 0
            case .highest: leads = v > bestValue
            }
            if leads { best = c; bestValue = v }
        }
        return best
    }
}
