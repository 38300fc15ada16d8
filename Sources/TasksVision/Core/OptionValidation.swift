/// Checks shared by the task options, so every task words the same mistake the same way.
enum OptionValidation {
    /// A result count such as `numHands` or `numPoses` must be at least 1.
    static func atLeastOne(_ name: String, _ value: Int) throws {
        guard value >= 1 else { throw VisionTaskError.invalidOption("\(name) must be at least 1, got \(value)") }
    }

    /// Confidences and thresholds must lie in [0, 1] (NaN is rejected too).
    static func unitInterval(_ values: [(String, Float)]) throws {
        for (name, v) in values where !(0...1).contains(v) {
            throw VisionTaskError.invalidOption("\(name) must be in [0, 1], got \(v)")
        }
    }
}
