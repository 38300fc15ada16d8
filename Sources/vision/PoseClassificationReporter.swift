import Foundation
import TasksVision
import TasksVisionPoseClassification

/// `vision pose --classify SAMPLES.csv [--count-reps CLASS,...]`: ML Kit's pose classification and,
/// in stream mode, its repetition counting: a reporter that adds them to each frame's report (one per task).
final class PoseClassificationReporter: @unchecked Sendable {
    static let specs: [OptionSpec] = [
        .text("--classify", "SAMPLES.csv", default: "off",
              "classify each pose against these samples (ML Kit's k-NN; smoothed in stream mode)"),
        .text("--count-reps", "CLASS[,CLASS...]", default: "pushups_down,squats_down where the samples have them",
              "in stream mode, count repetitions of these classes (with --classify)"),
        .choice("--classify-rules", ["mlkit", "plain"], default: "mlkit",
                "ML Kit's top class (a lead of 1.0 in Java HashMap order) and counting (the first counter up "
                    + "ends the frame), or the plain ones (the highest; every counter)"),
    ]

    /// What the options ask for, read once per run: the samples' classifier, the classes to count and the rules.
    /// Each task then gets a processor of its own (`init(_:isStreamMode:)`), so every video starts afresh.
    struct Samples {
        let classifier: PoseClassifier
        /// The classes `--count-reps` names, or nil for ML Kit's defaults where the samples have them.
        let countRepsOption: [String]?
        let counted: [String]
        let plain: Bool
    }

    /// The samples the options name, or nil without --classify. Throws for a missing or empty sample file and
    /// for a class to count that the samples lack; a skipped row is reported once.
    static func samples(_ o: ParsedOptions) throws -> Samples? {
        guard let path = o.string("--classify") else {
            if let other = ["--count-reps", "--classify-rules"].first(where: o.isSet) {
                throw UsageError("\(other) needs --classify SAMPLES.csv")
            }
            return nil
        }
        let file = try PoseSampleFile(contentsOfFile: path)
        for row in file.skipped {
            FileHandle.standardError.write(Data("vision: \(path): \(row), skipped\n".utf8))
        }
        let classes = file.classes
        let option = o.string("--count-reps").map { list in
            list.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
        }
        if let bad = option?.first(where: { !classes.contains($0) }) {
            let error = PoseClassificationError.unknownClass(bad, known: classes)
            throw UsageError("--count-reps: \(error)")
        }
        return Samples(classifier: try PoseClassifier(samples: file.samples), countRepsOption: option,
                       counted: option ?? PoseClassifierProcessor.defaultRepetitionClasses.filter(classes.contains),
                       plain: o.choice("--classify-rules") == "plain")
    }

    private let lock = NSLock()
    private var processor: PoseClassifierProcessor
    let isStreamMode: Bool

    /// A task's classification, with smoothing and counts of its own. Throws for --count-reps in single-image
    /// mode.
    init(_ samples: Samples, isStreamMode: Bool) throws {
        if samples.countRepsOption != nil && !isStreamMode {
            throw UsageError("--count-reps counts in stream mode (--video, or --mode stream), "
                             + "not in single-image mode")
        }
        processor = try PoseClassifierProcessor(classifier: samples.classifier, isStreamMode: isStreamMode,
                                                repetitionClasses: samples.counted,
                                                maxConfidenceRule: samples.plain ? .highest : .mlKit,
                                                repetitionCounting: samples.plain ? .everyCounter : .mlKit)
        self.isStreamMode = isStreamMode
    }

    /// Classifies a frame's first pose (or its absence) at its timestamp.
    func classify(_ poses: [Pose], timestamp: Int) -> PoseClassification {
        lock.lock(); defer { lock.unlock() }
        return processor.process(poses.first, timestampInMilliseconds: Int64(timestamp))
    }

    /// The repetitions so far, by class.
    var repetitions: [(className: String, count: Int)] {
        lock.lock(); defer { lock.unlock() }
        return processor.repetitionCounters.map { ($0.className, $0.numRepeats) }
    }

    struct Classification: Encodable {
        let confidences: [String: Float]
        /// The top class; null for a frame without a pose.
        let top: String?

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(confidences, forKey: .confidences)
            try c.encode(top, forKey: .top)
        }

        enum CodingKeys: String, CodingKey { case confidences, top }
    }

    struct Output: Encodable {
        let poses: [Pose]
        let classification: Classification
        let repetitions: [String: Int]?
    }

    /// A frame's report with its classification: the JSON result gains "classification" (and
    /// "repetitions" in stream mode), the summary and the overlay the top class and the counts.
    func report(_ poses: [Pose], timestamp: Int, base: FrameReport) -> FrameReport {
        let c = classify(poses, timestamp: timestamp)
        let reps = isStreamMode ? Dictionary(c.repetitions.map { ($0.className, $0.count) }, uniquingKeysWith: { $1 })
            : nil
        let output = Output(poses: poses, classification: Classification(confidences: c.result.confidences,
                                                                         top: c.topClass),
                            repetitions: reps)
        var words: [String] = []
        if let top = c.topClass, let confidence = c.topConfidenceText { words.append("\(top) \(confidence)") }
        if isStreamMode { words.append(Self.repsText(c.repetitions)) }
        let text = words.joined(separator: ", ")
        var r = FrameReport(result: output, summary: base.summary + (text.isEmpty ? "" : "; " + text)) { overlay in
            base.draw(&overlay)
            let size = max(2, min(overlay.width, overlay.height) / 200)
            overlay.text(text, Float(4 * size), Float(4 * size), (255, 255, 0))
        }
        r.masks = base.masks
        return r
    }

    static func repsText(_ reps: [(className: String, count: Int)]) -> String {
        "reps " + (reps.isEmpty ? "none counted" : reps.map { "\($0.className) \($0.count)" }.joined(separator: " "))
    }

    /// The line a video ends with: the repetitions per class (a JSON line with --json).
    func finalLine(json: Bool) throws -> String {
        let reps = repetitions
        guard json else { return Self.repsText(reps) }
        let object = ["repetitions": Dictionary(reps.map { ($0.className, $0.count) }, uniquingKeysWith: { $1 })]
        return String(decoding: try TaskCommandSupport.encoder.encode(object), as: UTF8.self)
    }
}
