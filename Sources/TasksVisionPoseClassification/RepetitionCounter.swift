/// Counts repetitions of a pose class (ML Kit's `RepetitionCounter`): the pose is entered when its
/// confidence exceeds the enter threshold, and a repetition counts when it then falls below the exit
/// threshold.
public struct RepetitionCounter: Sendable, Equatable {
    /// ML Kit's thresholds, for confidences in [0, 10] (the second stage's k).
    public static let defaultEnterThreshold: Float = 6
    /// ML Kit's exit threshold.
    public static let defaultExitThreshold: Float = 4

    /// The class counted.
    public let className: String
    /// The pose is entered when the class's confidence is above this.
    public let enterThreshold: Float
    /// A repetition counts when the confidence then falls below this.
    public let exitThreshold: Float
    /// The repetitions counted so far.
    public private(set) var numRepeats = 0
    private var poseEntered = false

    /// A counter for a class, at zero.
    public init(className: String, enterThreshold: Float = RepetitionCounter.defaultEnterThreshold,
                exitThreshold: Float = RepetitionCounter.defaultExitThreshold) {
        self.className = className
        self.enterThreshold = enterThreshold
        self.exitThreshold = exitThreshold
    }

    /// Adds a (smoothed) result and returns the repetitions so far.
    @discardableResult
    public mutating func addClassificationResult(_ result: ClassificationResult) -> Int {
        let confidence = result.classConfidence(className)
        if !poseEntered {
            poseEntered = confidence > enterThreshold
            return numRepeats
        }
        if confidence < exitThreshold {
            numRepeats += 1
            poseEntered = false
        }
        return numRepeats
    }
}
