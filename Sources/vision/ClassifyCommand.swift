import Foundation
import TasksVision
import TasksVisionFormat

/// `vision classify [--max-results N] [--score-threshold X] [--allow|--deny LABEL,...] [options] PATH... | --video ...`
/// (MediaPipe ImageClassifier).
enum ClassifyCommand: TaskCommand {
    static let defaultModel = "efficientnet_lite0.tflite"

    static let table = OptionTable(
        command: "classify", summary: "Say what an image shows (MediaPipe ImageClassifier, 1000 ImageNet classes).",
        positional: TaskCommandOptions.positional,
        options: [
            TaskCommandOptions.model("image classification .tflite (also efficientnet_lite0_float32.tflite, or a "
                                     + "Model Maker classifier)", default: defaultModel),
            .number("--max-results", "N", NumberRange(minimum: -1, integer: true), default: -1,
                    "the N best categories of each head; -1 gives every category, as MediaPipe does"),
            .number("--score-threshold", "X", NumberRange(), default: 0, "drop categories scoring below X"),
            .text("--allow", "LABEL,...", default: "every category",
                  "only these categories (the model's label names, comma-separated)"),
            .text("--deny", "LABEL,...", default: "none", "leave out these categories"),
        ] + TaskCommandOptions.common)

    static let benchmarks = [
        BenchmarkEntry(name: "classify", photo: "negative_animals_1.png", sequence: "pose_dance_1",
                       reference: .init("ImageClassifier", model: defaultModel, call: "classify")),
        BenchmarkEntry(name: "classify-float", arguments: ["--model", "efficientnet_lite0_float32.tflite"],
                       photo: "negative_animals_1.png",
                       reference: .init("ImageClassifier", model: "efficientnet_lite0_float32.tflite",
                                        call: "classify")),
    ]

    /// One head in the JSON: {"headIndex", "headName", "categories"}.
    struct Head: Encodable {
        let headIndex: Int
        let headName: String?
        let categories: [ResultCategory]

        enum CodingKeys: String, CodingKey { case headIndex, headName, categories }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(headIndex, forKey: .headIndex)
            try c.encode(headName, forKey: .headName)
            try c.encode(categories, forKey: .categories)
        }
    }

    struct Output: Encodable { let classifications: [Head] }

    static func maker(_ o: ParsedOptions) throws -> TaskMaker {
        let roi = try TaskCommandOptions.region(o)
        let model = try TaskCommandOptions.modelPath(o, default: defaultModel, kind: .imageClassifier)
        let maxResults = try o.int("--max-results")
        guard maxResults != 0 else {
            throw UsageError("--max-results takes -1 (every category) or a number of categories, not 0")
        }
        let allow = o.list("--allow"), deny = o.list("--deny")
        if !allow.isEmpty && !deny.isEmpty {
            throw UsageError("--allow and --deny cannot be given together (MediaPipe refuses both lists)")
        }
        try checkLabels(allow + deny, option: allow.isEmpty ? "--deny" : "--allow", model: model)
        let threshold = try o.float("--score-threshold")
        return TaskMaker { setup in
            let options = setup.options(ImageClassifierOptions(), model: model)
            options.maxResults = maxResults
            options.scoreThreshold = threshold
            options.categoryAllowlist = allow
            options.categoryDenylist = deny
            options.resultCallback = setup.callback(report)
            return LibraryFrameTask(try ImageClassifier(options: options), roi: roi, report: report)
        }
    }

    /// Refuses names the model's labels do not have (MediaPipe ignores them silently), naming a few real ones.
    static func checkLabels(_ names: [String], option: String, model: String) throws {
        guard !names.isEmpty else { return }
        let labels = (try? ModelAsset.loadModel(model).labels()) ?? []
        guard !labels.isEmpty else {
            throw UsageError("\(option): \((model as NSString).lastPathComponent) has no labels to choose from")
        }
        let known = Set(labels)
        for name in names where !known.contains(name) {
            throw UsageError("\(option): '\(name)' is not a label of \((model as NSString).lastPathComponent); "
                             + "labels such as " + LabelSuggestions.near(name, in: labels).map { "'\($0)'" }
                             .joined(separator: ", "))
        }
    }

    /// The top three of each head: "kit fox 0.10, grey fox 0.10, cougar 0.08".
    static func summary(_ r: ImageClassifierResult) -> String {
        let heads = r.classificationResult.classifications
        let parts = heads.map { head -> String in
            let top = head.categories.prefix(3).map { String(format: "%@ %.2f", name($0), $0.score) }
            let text = top.isEmpty ? "no category" : top.joined(separator: ", ")
            return heads.count > 1 ? "\(head.headName.map { $0.isEmpty ? "head \(head.headIndex)" : $0 } ?? "")"
                + ": " + text : text
        }
        return parts.joined(separator: "; ")
    }

    static func name(_ c: ResultCategory) -> String { c.displayName ?? c.categoryName ?? "#\(c.index)" }

    static func report(_ r: ImageClassifierResult) -> FrameReport {
        let output = Output(classifications: r.classificationResult.classifications.map {
            Head(headIndex: $0.headIndex, headName: $0.headName, categories: $0.categories)
        })
        return FrameReport(result: output, summary: summary(r)) { overlay in
            let lines = (r.classificationResult.classifications.first?.categories ?? []).prefix(3)
            for (i, c) in lines.enumerated() {
                overlay.text(String(format: "%@ %.2f", name(c), c.score), 4,
                             Float(4 + i * overlay.thickness * 16), (255, 255, 0))
            }
        }
    }
}

extension ImageClassifier: LibraryTask {
    func detect(image: MPImage, imageProcessingOptions: ImageProcessingOptions?) throws -> ImageClassifierResult {
        try classify(image: image, imageProcessingOptions: imageProcessingOptions)
    }

    func detect(videoFrame: MPImage, timestampInMilliseconds: Int,
                imageProcessingOptions: ImageProcessingOptions?) throws -> ImageClassifierResult {
        try classify(videoFrame: videoFrame, timestampInMilliseconds: timestampInMilliseconds,
                     imageProcessingOptions: imageProcessingOptions)
    }

    func detectAsync(image: MPImage, timestampInMilliseconds: Int,
                     imageProcessingOptions: ImageProcessingOptions?) throws -> Bool {
        try classifyAsync(image: image, timestampInMilliseconds: timestampInMilliseconds,
                          imageProcessingOptions: imageProcessingOptions)
    }
}

/// A few of a model's labels to suggest for a name it does not have: those containing it (or contained in it),
/// else the nearest by edit distance.
enum LabelSuggestions {
    static func near(_ name: String, in labels: [String], count: Int = 4) -> [String] {
        let lower = name.lowercased()
        let containing = labels.filter { let l = $0.lowercased(); return l.contains(lower) || lower.contains(l) }
        if !containing.isEmpty { return Array(containing.prefix(count)) }
        let ranked = labels.enumerated().map { ($0.offset, $0.element, distance(lower, $0.element.lowercased())) }
            .sorted { ($0.2, $0.0) < ($1.2, $1.0) }
        return ranked.prefix(count).map { $0.1 }
    }

    /// Levenshtein distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count), current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
