import TasksVisionEngine
import TasksVisionFormat

/// Accuracy and confusion matrix of a bundle's custom classifier on labeled hands, run as the
/// gesture recognizer runs it: the bundle's embedder on runtime features, its custom classifier
/// on our engine, the top score's label (background labels compared case-insensitively).
public struct GestureEvaluation: Sendable, Equatable {
    /// The classifier's labels, in its order.
    public var labels: [String]
    /// `confusion[true][predicted]`, indexed by the classifier's labels.
    public var confusion: [[Int]]
    /// Samples whose label the classifier does not have.
    public var unknownLabels: [String]

    public var total: Int { confusion.reduce(0) { $0 + $1.reduce(0, +) } }
    public var correct: Int { confusion.indices.reduce(0) { $0 + confusion[$1][$1] } }
    public var accuracy: Double { total == 0 ? 0 : Double(correct) / Double(total) }

    /// Evaluates `bundle` (a gesture_recognizer.task with a custom classifier) on a dataset.
    public init(bundle path: String, dataset: GestureDataset) throws {
        let bundle = try TaskBundle(path: path)
        let gestures = try bundle.bundle(GestureRecognizerBundle.handGestureRecognizer)
        guard gestures.contains(GestureRecognizerBundle.custom) else {
            throw TrainingError.invalidBaseModel("\(path) has no \(GestureRecognizerBundle.custom) to evaluate")
        }
        let embedder = try GestureEmbedder(model: try gestures.model(GestureRecognizerBundle.embedder))
        let model = try gestures.model(GestureRecognizerBundle.custom)
        let classifier = try Interpreter(model: model, options: .init(threads: 1))
        let labels = try model.labels()
        guard !labels.isEmpty, classifier.outputs.first?.elementCount == labels.count else {
            throw TrainingError.invalidBaseModel("\(path): the custom classifier's labels (\(labels.count)) do not "
                                                 + "match its \(classifier.outputs.first?.elementCount ?? 0) scores")
        }
        func key(_ s: String) -> String { s.lowercased() == "none" ? "none" : s }
        let index = Dictionary(labels.enumerated().map { (key($1), $0) }, uniquingKeysWith: { a, _ in a })
        var confusion = [[Int]](repeating: [Int](repeating: 0, count: labels.count), count: labels.count)
        var unknown: Set<String> = []
        for sample in dataset.samples {
            let name = dataset.labels[sample.label]
            guard let truth = index[key(name)] else { unknown.insert(name); continue }
            try classifier.setInput(0, try embedder.embedding(sample.hand, features: .runtime))
            classifier.invoke()
            let scores = try classifier.output(0)
            var best = 0
            for i in scores.indices where scores[i] > scores[best] { best = i }
            confusion[truth][best] += 1
        }
        self.labels = labels
        self.confusion = confusion
        self.unknownLabels = unknown.sorted()
    }
}
