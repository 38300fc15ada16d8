/// Counts repetitions of a pose class (ML Kit's `RepetitionCounter`): the pose is entered when its
/// confidence exceeds the enter threshold, and a repetition counts when it then falls below the exit
/// threshold.
public struct RepetitionCounter: Sendable, Equatable {
    /// ML Kit's thresholds, for confidences in [0, 10] (the second stage's k).
    public static let defaultEnterThreshold: Float = 6
    public static let defaultExitThreshold: Float = 4

    public let className: String
    public let enterThreshold: Float
    public let exitThreshold: Float
    public private(set) var numRepeats = 0
    private var poseEntered = false

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
