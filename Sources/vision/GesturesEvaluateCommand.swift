import Foundation
import TasksVision
import TasksVisionTraining

/// `vision gestures evaluate BUNDLE DATASET`: accuracy and confusion matrix of a bundle's custom
/// gesture classifier on a labeled dataset.
enum GesturesEvaluateCommand: VisionCommand {
    static let table = OptionTable(
        command: "gestures evaluate",
        summary: "Accuracy and confusion matrix of a gesture recognizer bundle's custom classifier on a dataset.",
        positional: ["BUNDLE DATASET", "BUNDLE --landmarks F.csv"],
        options: [
            .text("--landmarks", "F.csv", default: "none", "evaluate on a landmarks CSV instead of a DATASET folder"),
            .flag("--json", "print the result as one JSON object"),
            GesturesLandmarksCommand.detectionOption,
            TaskCommandOptions.threads,
        ],
        notes: ["The bundle's own hand landmarker finds the hands; its embedder and custom classifier, run as",
                "MediaPipe runs them, classify them."])

    struct Report: Encodable {
        let labels: [String]
        let confusion: [[Int]]
        let total: Int
        let correct: Int
        let accuracy: Double
    }

    static func run(_ o: ParsedOptions) throws {
        let csv = o.string("--landmarks")
        guard o.positional.count == (csv == nil ? 2 : 1), let bundlePath = o.positional.first else {
            throw UsageError("give a BUNDLE and a DATASET folder, or a BUNDLE and --landmarks F.csv "
                             + "(see vision gestures evaluate --help)")
        }
        let bundle = try ModelLocator.resolve(bundlePath)
        let dataset: GestureDataset
        if let csv {
            dataset = try GestureLandmarksCSV.dataset(path: csv)
        } else {
            let base = try GestureRecognizerBundle.Base(path: bundle)
            dataset = try GesturesLandmarksCommand.pass(o.positional[1], base: base, o).0
        }
        let e = try GestureEvaluation(bundle: bundle, dataset: dataset)
        for label in e.unknownLabels {
            GesturesLandmarksCommand.warn("label '\(label)' is not one of the classifier's (\(e.labels)); its hands "
                                          + "are not counted")
        }
        if o.flag("--json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let r = Report(labels: e.labels, confusion: e.confusion, total: e.total, correct: e.correct,
                           accuracy: e.accuracy)
            print(String(decoding: try encoder.encode(r), as: UTF8.self))
            return
        }
        print(String(format: "accuracy: %.3f (%d of %d hands)", e.accuracy, e.correct, e.total))
        print("confusion matrix (rows: true label, columns: predicted):")
        let width = max(6, (e.labels.map(\.count).max() ?? 0) + 2)
        func pad(_ s: String) -> String { String(repeating: " ", count: max(0, width - s.count)) + s }
        print(pad("") + e.labels.map(pad).joined())
        for (label, row) in zip(e.labels, e.confusion) {
            print(pad(label) + row.map { pad(String($0)) }.joined())
        }
    }
}
