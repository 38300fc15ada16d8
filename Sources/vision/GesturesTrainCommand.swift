import Foundation
import TasksVision
import TasksVisionTraining

/// `vision gestures train DATASET --out my_gestures.task`: Model Maker's gesture classifier
/// training, written as a gesture_recognizer.task that MediaPipe and `vision gestures --model` load.
enum GesturesTrainCommand: VisionCommand {
    static let defaults = GestureTrainingOptions()

    static let table = OptionTable(
        command: "gestures train",
        summary: "Train a custom gesture classifier (Model Maker's recipe) and write a gesture recognizer bundle.",
        positional: ["DATASET", "--landmarks F.csv"],
        options: [
            .required("--out", "F.task", "the gesture recognizer bundle to write"),
            .text("--landmarks", "F.csv", default: "none", "train on a landmarks CSV (vision gestures landmarks) "
                  + "instead of a DATASET folder"),
            GesturesLandmarksCommand.baseOption,
            .number("--epochs", "N", .atLeast(1), default: Double(defaults.epochs), "passes over the training samples"),
            .number("--batch-size", "N", .atLeast(1), default: Double(defaults.batchSize), "samples per step"),
            .number("--learning-rate", "X", .positive, default: defaults.learningRate,
                    "Adam's rate in the first epoch"),
            .number("--decay", "X", .positive, default: defaults.learningRateDecay,
                    "the learning rate is multiplied by this after each epoch"),
            .number("--dropout", "X", NumberRange(minimum: 0, maximum: 0.99), default: defaults.dropout,
                    "dropout rate before each dense layer"),
            .text("--hidden", "N,N", default: "none", valid: { hiddenWidths($0) == nil ? "whole numbers >= 1" : nil },
                  "widths of hidden layers"),
            .number("--gamma", "X", NumberRange(minimum: 0), default: defaults.gamma, "focal loss gamma"),
            .number("--validation-split", "X", NumberRange(minimum: 0, maximum: 0.9), default: 0,
                    "fraction of the shuffled samples held out for validation"),
            .number("--seed", "N", .whole(0...Int(Int32.max)), default: 0,
                    "seeds the initial weights, the shuffle and dropout"),
            .choice("--features", GestureFeatures.allCases.map(\.rawValue), default: GestureFeatures.runtime.rawValue,
                    "runtime: landmarks corrected for the aspect ratio, as MediaPipe computes them when recognizing; "
                    + "model-maker: as Model Maker computes them when training"),
            .flag("--keep-background-spelling", "write the background label as its folder spells it, not 'None' "
                  + "(MediaPipe falls back to the canned gestures only for 'None')"),
            GesturesLandmarksCommand.detectionOption,
            TaskCommandOptions.threads,
        ],
        notes: ["DATASET holds one folder of images per label, one of them named 'none' (any case) for hands",
                "showing none of the gestures. Run the result with: vision gestures --model F.task IMAGE..."])

    static func hiddenWidths(_ text: String) -> [Int]? {
        let parts = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !parts.isEmpty, parts.allSatisfy({ ($0 ?? 0) >= 1 }) else { return nil }
        return parts.compactMap { $0 }
    }

    static func run(_ o: ParsedOptions) throws {
        var options = GestureTrainingOptions()
        options.epochs = try o.int("--epochs")
        options.batchSize = try o.int("--batch-size")
        options.learningRate = try o.double("--learning-rate")
        options.learningRateDecay = try o.double("--decay")
        options.dropout = try o.double("--dropout")
        options.hiddenWidths = o.string("--hidden").flatMap(hiddenWidths) ?? []
        options.gamma = try o.double("--gamma")
        options.validationSplit = try o.double("--validation-split")
        options.seed = UInt64(try o.int("--seed"))
        options.features = GestureFeatures(rawValue: o.choice("--features") ?? "") ?? .runtime
        options.keepBackgroundSpelling = o.flag("--keep-background-spelling")
        try options.validate()
        let out = try GesturesLandmarksCommand.outputPath(o, "--out")
        let base = try GesturesLandmarksCommand.baseBundle(o)
        let dataset: GestureDataset
        if let csv = o.string("--landmarks") {
            guard o.positional.isEmpty else { throw UsageError("give a DATASET folder or --landmarks, not both") }
            dataset = try GestureLandmarksCSV.dataset(path: csv)
            print("dataset: \(dataset.samples.count) hands from \(csv) ("
                  + zip(dataset.labels, dataset.counts).map { "\($0) \($1)" }.joined(separator: ", ") + ")")
        } else {
            dataset = try GesturesLandmarksCommand.pass(GesturesLandmarksCommand.dataset(o), base: base, o).0
        }
        let terminal = isatty(STDERR_FILENO) != 0
        let start = Date()
        let classifier = try GestureClassifierTrainer(options: options).train(
            dataset, embedder: try base.gestureEmbedder(), progress: { e in
                var line = "epoch \(e.epoch)/\(options.epochs): " + String(format: "loss %.4f accuracy %.3f", e.loss,
                                                                            e.accuracy)
                if let vl = e.validationLoss, let va = e.validationAccuracy {
                    line += String(format: ", validation loss %.4f accuracy %.3f", vl, va)
                }
                if terminal {
                    // Back to the line's start, the line, then clear what a longer line left.
                    FileHandle.standardError.write(Data(("\r" + line + "\u{1B}[K"
                                                         + (e.epoch == options.epochs ? "\n" : "")).utf8))
                } else {
                    print(line)
                }
            })
        let seconds = Date().timeIntervalSince(start)
        try GestureRecognizerBundle.write(base: base, classifier: classifier, to: out)
        print("trained \(options.epochs) epochs on \(classifier.trainingSamples.count) hands"
              + (classifier.validationSamples.isEmpty ? "" : " (\(classifier.validationSamples.count) held out)")
              + String(format: " in %.2f s", seconds))
        print("wrote \(out): labels \(classifier.labels.joined(separator: ", "))")
    }
}
