import Foundation
import TasksVision

/// How `PoseClassifierProcessor` feeds its repetition counters each frame.
public enum RepetitionCounting: String, Sendable, CaseIterable {
    /// ML Kit's: the counters in order, stopping after the first whose count went up; the counters
    /// after it are not fed that frame.
    case mlKit
    /// Every counter, every frame.
    case everyCounter
}

/// One frame's classification from a `PoseClassifierProcessor`.
public struct PoseClassification: Sendable, Equatable {
    /// The k-NN counts in single-image mode; the smoothed values in stream mode (where frames
    /// without a pose still go through the smoothing).
    public var result: ClassificationResult
    /// The top class by the processor's rule; nil for a frame without a pose.
    public var topClass: String?
    /// The top class's confidence divided by the classifier's `confidenceRange`, in [0, 1].
    public var topConfidence: Float?
    /// The top confidence as ML Kit prints it (`%.2f` in Java: two decimals, rounded half up).
    public var topConfidenceText: String? { topConfidence.map(PoseClassifierProcessor.javaFixed2) }
    /// In stream mode, each counted class's repetitions so far, in counting order.
    public var repetitions: [(className: String, count: Int)]
    /// ML Kit's text lines (`getPoseResult`): in stream mode "CLASS : N reps" for the last count that
    /// went up (or empty), then, with a pose, "CLASS : 0.xx confidence".
    public var lines: [String]

    /// Equal results, top class and confidence, repetitions and lines.
    public static func == (a: PoseClassification, b: PoseClassification) -> Bool {
        a.result == b.result && a.topClass == b.topClass && a.topConfidence == b.topConfidence
            && a.repetitions.elementsEqual(b.repetitions, by: { $0 == $1 }) && a.lines == b.lines
    }
}

/// Classifies a stream of poses and counts repetitions (ML Kit's `PoseClassifierProcessor`). In
/// stream mode results are smoothed over time and counted; in single-image mode each pose's raw
/// k-NN counts are given. Time is an input: a video frame's timestamp, or a monotonic clock in a
/// live stream.
public struct PoseClassifierProcessor: Sendable {
    /// ML Kit's counted classes, in its order.
    public static let defaultRepetitionClasses = ["pushups_down", "squats_down"]

    /// The k-NN classifier.
    public let classifier: PoseClassifier
    /// Stream mode smooths and counts; single-image mode gives the raw counts.
    public let isStreamMode: Bool
    /// How the top class is picked.
    public let maxConfidenceRule: MaxConfidenceRule
    /// How the counters are fed.
    public let repetitionCounting: RepetitionCounting
    private var smoothing: EMASmoothing
    /// The counters, in counting order (none in single-image mode).
    public private(set) var repetitionCounters: [RepetitionCounter]
    private var lastRepResult = ""

    /// A processor over a classifier. `repetitionClasses` are counted in stream mode, in order
    /// (ML Kit's: pushups_down, then squats_down).
    public init(classifier: PoseClassifier, isStreamMode: Bool,
                repetitionClasses: [String] = PoseClassifierProcessor.defaultRepetitionClasses,
                enterThreshold: Float = RepetitionCounter.defaultEnterThreshold,
                exitThreshold: Float = RepetitionCounter.defaultExitThreshold,
                smoothing: EMASmoothing? = nil,
                maxConfidenceRule: MaxConfidenceRule = .mlKit, repetitionCounting: RepetitionCounting = .mlKit) throws {
        self.classifier = classifier
        self.isStreamMode = isStreamMode
        self.smoothing = try smoothing ?? EMASmoothing()
        repetitionCounters = isStreamMode
            ? repetitionClasses.map {
                RepetitionCounter(className: $0, enterThreshold: enterThreshold, exitThreshold: exitThreshold)
            } : []
        self.maxConfidenceRule = maxConfidenceRule
        self.repetitionCounting = repetitionCounting
    }

    /// Classifies an ML Kit pose, or a frame without one (nil or no landmarks).
    public mutating func process(_ pose: Pose?, timestampInMilliseconds: Int64) -> PoseClassification {
        let landmarks = pose.map { PointF3D.landmarks(of: $0) } ?? []
        return (try? process(landmarks: landmarks, timestampInMilliseconds: timestampInMilliseconds))
            ?? PoseClassification(result: ClassificationResult(), topClass: nil, topConfidence: nil,
                                  repetitions: [], lines: [])
    }

    /// Classifies 33 landmarks in pixels, or a frame without a pose (no landmarks).
    public mutating func process(landmarks: [PointF3D], timestampInMilliseconds: Int64) throws -> PoseClassification {
        var classification = try classifier.classify(landmarks)
        var lines: [String] = []
        let hasPose = !landmarks.isEmpty
        if isStreamMode {
            classification = smoothing.smoothedResult(classification, timestampInMilliseconds: timestampInMilliseconds)
            if hasPose {
                for i in repetitionCounters.indices {
                    let before = repetitionCounters[i].numRepeats
                    let after = repetitionCounters[i].addClassificationResult(classification)
                    if after > before {
                        lastRepResult = "\(repetitionCounters[i].className) : \(after) reps"
                        if repetitionCounting == .mlKit { break }
                    }
                }
            }
            lines.append(lastRepResult)
        }
        var top: String?, confidence: Float?
        if hasPose, let best = classification.maxConfidenceClass(rule: maxConfidenceRule) {
            let c = classification.classConfidence(best) / Float(classifier.confidenceRange)
            top = best
            confidence = c
            lines.append("\(best) : \(Self.javaFixed2(c)) confidence")
        }
        return PoseClassification(result: classification, topClass: top, topConfidence: confidence,
                                  repetitions: repetitionCounters.map { ($0.className, $0.numRepeats) },
                                  lines: lines)
    }

    /// Java's `String.format("%.2f", float)`: the float widened to double, its shortest decimal
    /// digits rounded half up to two places.
    static func javaFixed2(_ value: Float) -> String {
        let d = Double(value)
        guard d.isFinite else { return d.isNaN ? "NaN" : (d < 0 ? "-Infinity" : "Infinity") }
        guard abs(d) < 1e15, var digits = Decimal(string: "\(d)") else { return String(format: "%.2f", d) }
        var rounded = Decimal()
        NSDecimalRound(&rounded, &digits, 2, .plain)
        let hundredths = NSDecimalNumber(decimal: abs(rounded) * 100).int64Value
        let fraction = hundredths % 100
        return (value.sign == .minus ? "-" : "") + "\(hundredths / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
    }
}
