import Foundation
import TasksVision

/// `vision objects [options] PATH... | --video DIR|FILE|/dev/videoN`
enum ObjectsCommand: TaskCommand {
    static let defaultModel = "efficientdet_lite0.tflite"
    /// MediaPipe's own samples' threshold; the library's default (0) reports every box left after suppression.
    static let defaultScoreThreshold = 0.5

    static let table = OptionTable(
        command: "objects", summary: "Detect objects (MediaPipe ObjectDetector, EfficientDet-Lite and Model Maker "
            + "detectors).",
        positional: TaskCommandOptions.positional,
        options: [
            TaskCommandOptions.model("object detector .tflite", default: defaultModel),
            .number("--score-threshold", "X", .unitInterval, default: defaultScoreThreshold,
                    "minimum score of a reported object (0: every box, as the library's default)"),
            .number("--max-results", "N", .atLeast(-1), default: -1, note: "all",
                    "report at most N objects, best first (-1: all)"),
            .text("--allow", "LABEL,...", default: "all", "report only these categories (the model's labels)"),
            .text("--deny", "LABEL,...", default: "none", "report no objects of these categories"),
        ] + TaskCommandOptions.common)

    /// MediaPipe's default options on both sides (every box kept after suppression), so both do the same work.
    static let benchmarks = [BenchmarkEntry(name: "objects", arguments: ["--score-threshold", "0"],
                                            photo: "negative_animals_1.png", sequence: "pose_dance_1",
                                            reference: .init("ObjectDetector", model: defaultModel))]

    /// The labels of `--allow` or `--deny`.
    static func labels(_ o: ParsedOptions, _ name: String) throws -> [String] {
        guard let text = o.string(name) else { return [] }
        let labels = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if labels.isEmpty { throw UsageError("\(name) takes category labels separated by commas, got '\(text)'") }
        return labels
    }

    static func maker(_ o: ParsedOptions) throws -> TaskMaker {
        let roi = try TaskCommandOptions.region(o)
        let maxResults = try o.int("--max-results")
        if maxResults == 0 { throw UsageError("--max-results takes -1 (all) or a count of at least 1, got 0") }
        let allow = try labels(o, "--allow"), deny = try labels(o, "--deny")
        if !allow.isEmpty && !deny.isEmpty { throw UsageError("give --allow or --deny, not both") }
        let model = try TaskCommandOptions.modelPath(o, default: defaultModel, kind: .objectDetector)
        return TaskMaker { setup in
            let options = setup.options(ObjectDetectorOptions(), model: model)
            options.scoreThreshold = try o.float("--score-threshold")
            options.maxResults = maxResults
            options.categoryAllowlist = allow
            options.categoryDenylist = deny
            options.resultCallback = setup.callback(report)
            let detector = try ObjectDetector(options: options)
            try checkLabels(allow.isEmpty ? deny : allow, option: allow.isEmpty ? "--deny" : "--allow",
                            known: detector.categoryNames, model: model)
            return LibraryFrameTask(detector, roi: roi, report: report)
        }
    }

    /// MediaPipe ignores unknown labels; the command refuses them, naming labels of the model close to each.
    static func checkLabels(_ labels: [String], option: String, known: [String], model: String) throws {
        let names = Array(Set(known.filter { $0 != "???" })).sorted()
        for label in labels where !known.contains(label) {
            let name = (model as NSString).lastPathComponent
            guard !names.isEmpty else {
                throw UsageError("\(option): \(name) has no category labels, so '\(label)' matches nothing")
            }
            let close = names.sorted { (distance(label, $0), $0) < (distance(label, $1), $1) }.prefix(4)
            throw UsageError("\(option): '\(label)' is not a category of \(name); did you mean "
                             + close.map { "'\($0)'" }.joined(separator: ", ") + "? (\(names.count) categories, "
                             + "e.g. " + names.prefix(6).joined(separator: ", ") + ")")
        }
    }

    /// Edit distance, case-insensitive, to rank the suggestions.
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a.lowercased()), y = Array(b.lowercased())
        guard !x.isEmpty, !y.isEmpty else { return max(x.count, y.count) }
        var row = Array(0...y.count)
        for i in 1...x.count {
            var previous = row[0]
            row[0] = i
            for j in 1...y.count {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (x[i - 1] == y[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[y.count]
    }

    /// "2 objects: cat 0.80 [847,409 222x187], #3 dog ...": each object's track ID (video), label, score and box.
    static func report(_ result: ObjectDetectorResult) -> FrameReport {
        let ids = result.trackingIds
        func label(_ i: Int) -> String {
            let d = result.detections[i]
            let id = ids.flatMap { $0.indices.contains(i) ? "#\($0[i]) " : nil } ?? ""
            let c = d.categories.first
            return id + (c?.displayName ?? c?.categoryName ?? c.map { "\($0.index)" } ?? "?")
                + String(format: " %.2f", c?.score ?? 0)
        }
        let objects = result.detections.indices.map { i -> String in
            let b = result.detections[i].boundingBox
            return label(i) + String(format: " [%.0f,%.0f %.0fx%.0f]", b.minX, b.minY, b.width, b.height)
        }
        let n = result.detections.count
        let summary = "\(n) object\(n == 1 ? "" : "s")"
            + (objects.isEmpty ? "" : ": " + objects.joined(separator: ", "))
        return FrameReport(result: result, summary: summary) { overlay in
            overlay.draw(result.detections)
            for i in result.detections.indices {
                let b = result.detections[i].boundingBox
                overlay.text(label(i), Float(b.minX) + Float(overlay.thickness),
                             max(0, Float(b.minY) - Float(overlay.thickness * 14)), (255, 255, 0))
            }
        }
    }
}
