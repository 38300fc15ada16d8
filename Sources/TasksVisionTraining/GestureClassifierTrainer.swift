/// Options of `GestureClassifierTrainer`; the defaults are Model Maker's (hyperparameters.py,
/// model_options.py).
public struct GestureTrainingOptions: Sendable, Equatable {
    public var epochs = 10
    public var batchSize = 2
    public var learningRate = 0.001
    /// The rate of epoch e is `learningRate * learningRateDecay^e`.
    public var learningRateDecay = 0.99
    public var dropout = 0.05
    /// Widths of hidden layers (Model Maker's `layer_widths`); none by default.
    public var hiddenWidths: [Int] = []
    /// Focal loss gamma.
    public var gamma = 2.0
    /// The fraction of the (shuffled) samples held out for validation, taken from the end as
    /// Model Maker's `Dataset.split` does.
    public var validationSplit = 0.0
    /// Seeds the initial weights, the one shuffle of the samples and the dropout masks.
    public var seed: UInt64 = 0
    /// Shuffle the samples once before splitting and training, as Model Maker's dataset does
    /// (its `shuffle` default); the order then stays the same every epoch, as in Model Maker.
    public var shuffle = true
    /// How the embedder's inputs are made (see `GestureFeatures`).
    public var features = GestureFeatures.runtime
    /// Write the background label as the dataset spells it (e.g. `none`) instead of `None`.
    /// MediaPipe falls back to the canned gestures only when the custom classifier's top label
    /// is exactly `None`, so the default writes `None`.
    public var keepBackgroundSpelling = false

    public init() {}

    public func validate() throws {
        func check(_ ok: Bool, _ message: String) throws { if !ok { throw TrainingError.invalidOption(message) } }
        try check(epochs >= 1, "epochs must be at least 1, got \(epochs)")
        try check(batchSize >= 1, "batch size must be at least 1, got \(batchSize)")
        try check(learningRate > 0 && learningRate.isFinite, "learning rate must be positive, got \(learningRate)")
        try check(learningRateDecay > 0 && learningRateDecay.isFinite,
                  "learning rate decay must be positive, got \(learningRateDecay)")
        try check(dropout >= 0 && dropout < 1, "dropout must be in [0, 1), got \(dropout)")
        try check(hiddenWidths.allSatisfy { $0 >= 1 && $0 <= 65536 }, "hidden widths must be 1...65536, got "
                                                                        + "\(hiddenWidths)")
        try check(gamma >= 0 && gamma.isFinite, "gamma must be at least 0, got \(gamma)")
        try check(validationSplit >= 0 && validationSplit < 1, "validation split must be in [0, 1), got "
                                                               + "\(validationSplit)")
    }
}

/// The loss and accuracy of one epoch, as Keras's `fit` reports them: training figures are the
/// mean over the epoch's batches in training mode (dropout, batch statistics) before each step;
/// validation figures are in inference mode over all validation samples.
public struct GestureEpoch: Sendable, Equatable {
    /// From 1.
    public var epoch: Int
    public var learningRate: Double
    public var loss: Double
    public var accuracy: Double
    public var validationLoss: Double?
    public var validationAccuracy: Double?
}

/// Trains Model Maker's gesture classifier head on gesture embeddings: focal loss, Adam, a
/// learning rate decayed per epoch, batches taken in order with the last partial batch dropped.
/// Deterministic: the same samples, options and seed give the same weights on any machine and
/// at any thread count (the arithmetic is sequential Double).
public struct GestureClassifierTrainer: Sendable {
    public var options: GestureTrainingOptions

    public init(options: GestureTrainingOptions = GestureTrainingOptions()) { self.options = options }

    /// Trains on a dataset's hands, embedding them first.
    public func train(_ dataset: GestureDataset, embedder: GestureEmbedder,
                      progress: ((GestureEpoch) -> Void)? = nil) throws -> GestureClassifier {
        try options.validate()
        let embeddings = try dataset.samples.map { try embedder.embedding($0.hand, features: options.features) }
        return try train(embeddings: embeddings, labels: dataset.samples.map(\.label), labelNames: dataset.labels,
                         progress: progress)
    }

    /// Trains on embeddings with label indices into `labelNames` (background first). With
    /// `initialHead`, training starts from those weights instead of drawing new ones.
    public func train(embeddings: [[Float]], labels: [Int], labelNames: [String],
                      initialHead: GestureClassifierHead? = nil,
                      progress: ((GestureEpoch) -> Void)? = nil) throws -> GestureClassifier {
        let o = options
        try o.validate()
        guard labelNames.count >= 2 else {
            throw TrainingError.invalidDataset("labels \(labelNames): a classifier needs the background label and "
                                               + "at least one gesture")
        }
        guard embeddings.count == labels.count else {
            throw TrainingError.invalidDataset("\(embeddings.count) embeddings but \(labels.count) labels")
        }
        let size = embeddings.first?.count ?? 0
        for (i, e) in embeddings.enumerated() {
            guard e.count == size, size > 0, e.allSatisfy(\.isFinite) else {
                throw TrainingError.invalidSample("embedding \(i) has \(e.count) values (expected \(size), all "
                                                  + "finite)")
            }
            guard labelNames.indices.contains(labels[i]) else {
                throw TrainingError.invalidSample("sample \(i) has label \(labels[i]) of \(labelNames.count)")
            }
        }
        var (initial, order, dropout) = TrainingRandom.streams(seed: o.seed)
        var indices = Array(embeddings.indices)
        if o.shuffle {
            for i in stride(from: indices.count - 1, to: 0, by: -1) {
                indices.swapAt(i, order.index(below: i + 1))
            }
        }
        let trainCount = Int((Double(indices.count) * (1 - o.validationSplit)).rounded(.down))
        guard trainCount >= o.batchSize else {
            throw TrainingError.invalidDataset("\(trainCount) training samples (of \(embeddings.count), validation "
                + "split \(o.validationSplit)) are fewer than a batch of \(o.batchSize); lower the batch size or add "
                + "samples")
        }
        let x = indices.map { embeddings[$0].map(Double.init) }, y = indices.map { labels[$0] }
        var head = initialHead ?? GestureClassifierHead(inputSize: size, hiddenWidths: o.hiddenWidths,
                                                         classes: labelNames.count, random: &initial)
        guard head.inputSize == size, head.classes == labelNames.count else {
            throw TrainingError.invalidOption("the initial head takes \(head.inputSize) inputs to \(head.classes) "
                                              + "classes; the data have \(size) and \(labelNames.count)")
        }
        let loss = FocalLoss(gamma: o.gamma)
        let schedule = LearningRateSchedule(initial: o.learningRate, decay: o.learningRateDecay)
        var adam = AdamOptimizer()
        var history: [GestureEpoch] = []
        let steps = trainCount / o.batchSize
        for epoch in 0..<o.epochs {
            let rate = schedule.rate(epoch: epoch)
            var total = 0.0, correct = 0
            for s in 0..<steps {
                let batch = (s * o.batchSize)..<((s + 1) * o.batchSize)
                let r = head.trainStep(Array(x[batch]), labels: Array(y[batch]), dropout: o.dropout, loss: loss,
                                       random: &dropout, optimizer: &adam, learningRate: rate)
                total += r.loss
                correct += r.correct
            }
            var report = GestureEpoch(epoch: epoch + 1, learningRate: rate, loss: total / Double(steps),
                                      accuracy: Double(correct) / Double(steps * o.batchSize))
            if trainCount < x.count {
                var vLoss = 0.0, vCorrect = 0
                for i in trainCount..<x.count {
                    let p = head.probabilities(x[i])
                    vLoss += loss.loss(probability: p[y[i]])
                    if GestureClassifierHead.argmax(p) == y[i] { vCorrect += 1 }
                }
                let n = Double(x.count - trainCount)
                report.validationLoss = vLoss / n
                report.validationAccuracy = Double(vCorrect) / n
            }
            history.append(report)
            progress?(report)
        }
        var names = labelNames
        if !o.keepBackgroundSpelling { names[0] = GestureClassifier.backgroundLabel }
        return GestureClassifier(labels: names, head: head, history: history,
                                 trainingSamples: Array(indices[..<trainCount]),
                                 validationSamples: Array(indices[trainCount...]))
    }
}

/// A trained gesture classifier: its labels as exported, the head's weights, and how training went.
public struct GestureClassifier: Sendable, Equatable {
    /// MediaPipe's background label: its gesture recognizer falls back to the canned gestures
    /// when the custom classifier's top label is exactly this.
    public static let backgroundLabel = "None"

    public var labels: [String]
    public var head: GestureClassifierHead
    public var history: [GestureEpoch]
    /// Indices (into the samples given) trained on and held out, in training order.
    public var trainingSamples: [Int]
    public var validationSamples: [Int]

    public init(labels: [String], head: GestureClassifierHead, history: [GestureEpoch] = [],
                trainingSamples: [Int] = [], validationSamples: [Int] = []) {
        self.labels = labels; self.head = head; self.history = history
        self.trainingSamples = trainingSamples; self.validationSamples = validationSamples
    }

    /// Class probabilities of an embedding, by the unfolded head in Double.
    public func probabilities(_ embedding: [Float]) throws -> [Double] {
        guard embedding.count == head.inputSize else {
            throw TrainingError.invalidSample("embedding of \(embedding.count) values; the classifier takes "
                                              + "\(head.inputSize)")
        }
        return head.probabilities(embedding.map(Double.init))
    }
}
