import Foundation
import TasksVision
import TasksVisionTraining

/// `vision gestures landmarks DATASET --out landmarks.csv`, and what the gesture training
/// commands share: the base bundle, the dataset pass with its progress and report.
enum GesturesLandmarksCommand: VisionCommand {
    static let baseOption = OptionSpec.text("--base", "M", default: "gesture_recognizer.task, found as models are",
        "the gesture recognizer bundle whose hand landmarker, embedder and canned classifier are used")
    static let detectionOption = OptionSpec.number("--min-hand-detection-confidence", "X", .unitInterval,
                                                   default: Double(GestureDataset.minHandDetectionConfidence),
                                                   "minimum palm detection score of the dataset pass (Model Maker's)")

    static let table = OptionTable(
        command: "gestures landmarks",
        summary: "Find the hand in each image of a gesture dataset (one folder per label) and write a landmarks CSV.",
        positional: ["DATASET"],
        options: [.required("--out", "F.csv", "the CSV to write"), baseOption, detectionOption,
                  TaskCommandOptions.threads],
        notes: ["DATASET holds one folder of images per label, one of them named 'none' (any case) for hands",
                "showing none of the gestures."])

    static func run(_ o: ParsedOptions) throws {
        let folder = try dataset(o)
        let out = try outputPath(o, "--out")
        let base = try baseBundle(o)
        let (dataset, _) = try pass(folder, base: base, o)
        try OutputFile.write(Array(GestureLandmarksCSV.text(dataset).utf8), to: out)
        print("wrote \(out): \(dataset.samples.count) hands")
    }

    /// The one DATASET argument.
    static func dataset(_ o: ParsedOptions) throws -> String {
        guard o.positional.count == 1, let path = o.positional.first else {
            throw UsageError("give one DATASET folder (see vision \(o.table.command) --help)")
        }
        return path
    }

    /// An output path, checked before any work (OutputPath: its folder exists and is writable; no folder, device,
    /// socket or FIFO; a link followed, a dangling one refused), and returned with its links followed.
    static func outputPath(_ o: ParsedOptions, _ name: String) throws -> String {
        guard let path = o.string(name) else { throw UsageError("\(name) is required") }
        return try OutputPath.file(path, option: name)
    }

    /// The base gesture recognizer bundle: --base, or the installed gesture_recognizer.task.
    static func baseBundle(_ o: ParsedOptions) throws -> GestureRecognizerBundle.Base {
        let path = try ModelLocator.resolve(o.string("--base") ?? HandsCommand.gestureModel)
        return try GestureRecognizerBundle.Base(path: path)
    }

    /// The dataset pass over a folder, with a progress line on a terminal and a report of what was left out.
    static func pass(_ folder: String, base: GestureRecognizerBundle.Base, _ o: ParsedOptions) throws
        -> (GestureDataset, GestureFolderReport) {
        let terminal = isatty(STDERR_FILENO) != 0
        let (dataset, report) = try GestureDataset.fromFolder(
            folder, handLandmarker: base.handLandmarkerPath,
            minHandDetectionConfidence: try o.float("--min-hand-detection-confidence"), threads: try o.int("--threads"),
            progress: { done, total, _ in
                if terminal { FileHandle.standardError.write(Data("\rhands: \(done)/\(total) images".utf8)) }
            })
        if terminal { FileHandle.standardError.write(Data("\n".utf8)) }
        for s in report.unreadable { warn("skipped \(s.path): \(s.reason)") }
        for path in report.withoutHand { warn("no hand: \(path)") }
        for label in report.droppedLabels { warn("label '\(label)' left out: none of its images has a hand") }
        if dataset.counts.first == 0, let background = dataset.labels.first {
            warn("the background label '\(background)' has no hand: the classifier learns no 'None'")
        }
        let counts = zip(dataset.labels, dataset.counts).map { "\($0) \($1)" }.joined(separator: ", ")
        // With --json (evaluate) standard output holds the JSON alone.
        let summary = o.flag("--json") ? warn : { print($0) }
        summary("dataset: \(report.images) images, \(dataset.samples.count) hands (\(counts)), "
              + "\(report.withoutHand.count) without a hand, \(report.unreadable.count) unreadable; "
              + String(format: "%.1f s", report.seconds))
        return (dataset, report)
    }

    static func warn(_ message: String) {
        FileHandle.standardError.write(Data("vision: \(message)\n".utf8))
    }
}
