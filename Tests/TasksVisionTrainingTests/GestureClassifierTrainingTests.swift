import Foundation
import TasksVisionEngine
import TasksVisionFormat
@testable import TasksVisionTraining
import XCTest

/// The trainer against tools/reference_gesture_training.py (NumPy, float64): the same seed
/// gives the same initial kernels, order and dropout masks; after training every weight and
/// moving statistic agrees within 1e-5 relative to the largest of its array, and the per-epoch
/// figures agree too.
final class GestureClassifierTrainingTests: XCTestCase {
    struct Reference {
        let embeddings: [[Float]]
        let labels: [Int]
        let labelNames: [String]
        let cases: [[String: Any]]
    }

    static func reference() throws -> Reference {
        let path = TrainingTestPaths.fixtures + "/training/gesture_head_reference.json"
        let json = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: path)))
        guard let d = json as? [String: Any], let e = d["embeddings"] as? [[Double]], let l = d["labels"] as? [Int],
              let n = d["label_names"] as? [String], let c = d["cases"] as? [[String: Any]] else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return Reference(embeddings: e.map { $0.map(Float.init) }, labels: l, labelNames: n, cases: c)
    }

    static func options(_ o: [String: Any]) -> GestureTrainingOptions {
        var t = GestureTrainingOptions()
        t.epochs = o["epochs"] as? Int ?? -1
        t.batchSize = o["batch_size"] as? Int ?? -1
        t.learningRate = o["learning_rate"] as? Double ?? -1
        t.learningRateDecay = o["decay"] as? Double ?? -1
        t.dropout = o["dropout"] as? Double ?? -1
        t.hiddenWidths = o["hidden_widths"] as? [Int] ?? []
        t.gamma = o["gamma"] as? Double ?? -1
        t.validationSplit = o["validation_split"] as? Double ?? -1
        t.seed = UInt64(o["seed"] as? Int ?? 0)
        t.shuffle = o["shuffle"] as? Bool ?? true
        return t
    }

    /// max |a - b| / max |b| over an array.
    static func relative(_ a: [Double], _ b: [Double]) -> Double {
        let scale = b.map(abs).max() ?? 0
        let diff = zip(a, b).map { abs($0 - $1) }.max() ?? 0
        return scale == 0 ? diff : diff / scale
    }

    func testTrainingMatchesTheNumPyReference() throws {
        let r = try Self.reference()
        XCTAssertEqual(r.cases.count, 3)
        for c in r.cases {
            let o = try XCTUnwrap(c["options"] as? [String: Any]), name = o["name"] as? String ?? "?"
            let expected = try XCTUnwrap(c["result"] as? [String: Any])
            let trained = try GestureClassifierTrainer(options: Self.options(o))
                .train(embeddings: r.embeddings, labels: r.labels, labelNames: r.labelNames)
            XCTAssertEqual(trained.trainingSamples + trained.validationSamples, expected["order"] as? [Int], name)
            let blocks = try XCTUnwrap(expected["blocks"] as? [[String: [Double]]])
            XCTAssertEqual(blocks.count, trained.head.blocks.count, name)
            var worst = 0.0
            for (b, e) in zip(trained.head.blocks, blocks) {
                for (ours, key) in [(b.gamma, "gamma"), (b.beta, "beta"), (b.movingMean, "mean"),
                                    (b.movingVariance, "var"), (b.kernel, "kernel"), (b.bias, "bias")] {
                    let theirs = try XCTUnwrap(e[key])
                    XCTAssertEqual(ours.count, theirs.count, "\(name) \(key)")
                    let rel = Self.relative(ours, theirs)
                    worst = max(worst, rel)
                    XCTAssertLessThan(rel, 1e-5, "\(name) \(key)")
                }
                XCTAssertNotEqual(b.gamma, [Double](repeating: 1, count: b.inputs), name)
            }
            print("trainer vs NumPy reference, \(name): weights within \(worst) relative")
            let history = try XCTUnwrap(expected["history"] as? [[String: Double]])
            XCTAssertEqual(history.count, trained.history.count, name)
            for (h, e) in zip(trained.history, history) {
                XCTAssertEqual(h.loss, e["loss"] ?? .nan, accuracy: 1e-9 * max(1, h.loss), name)
                XCTAssertEqual(h.accuracy, e["accuracy"] ?? .nan, accuracy: 1e-12, name)
                if let v = e["validation_loss"] {
                    XCTAssertEqual(h.validationLoss ?? .nan, v, accuracy: 1e-9, name)
                    XCTAssertEqual(h.validationAccuracy ?? .nan, e["validation_accuracy"] ?? .nan, accuracy: 1e-12,
                                   name)
                } else {
                    XCTAssertNil(h.validationLoss, name)
                }
            }
        }
    }

    func testInitialKernelsAreTheReferencesGlorotDraws() throws {
        let r = try Self.reference()
        let c = r.cases[1]
        let o = try XCTUnwrap(c["options"] as? [String: Any])
        let expected = try XCTUnwrap((c["result"] as? [String: Any])?["initial_kernels"] as? [[Double]])
        var random = TrainingRandom.streams(seed: UInt64(o["seed"] as? Int ?? 0)).initial
        let head = GestureClassifierHead(inputSize: 128, hiddenWidths: [16, 8], classes: 4, random: &random)
        XCTAssertEqual(head.blocks.count, expected.count)
        for (ours, theirs) in zip(head.blocks.map(\.kernel), expected) {
            XCTAssertLessThan(Self.relative(ours, theirs), 1e-15)  // the same draws; JSON's decimal round trip
        }
        let limit = (6.0 / (128 + 16)).squareRoot()
        XCTAssertEqual(head.blocks[0].kernel.map(abs).max() ?? 0, limit, accuracy: 0.01)
    }

    func testTrainingIsDeterministicAndSeeded() throws {
        let r = try Self.reference()
        var o = GestureTrainingOptions()
        o.seed = 5
        let a = try GestureClassifierTrainer(options: o).train(embeddings: r.embeddings, labels: r.labels,
                                                              labelNames: r.labelNames)
        let b = try GestureClassifierTrainer(options: o).train(embeddings: r.embeddings, labels: r.labels,
                                                              labelNames: r.labelNames)
        XCTAssertEqual(try a.classifierModel(), try b.classifierModel())
        o.seed = 6
        let c = try GestureClassifierTrainer(options: o).train(embeddings: r.embeddings, labels: r.labels,
                                                              labelNames: r.labelNames)
        XCTAssertNotEqual(a.head, c.head)
        // The background label is written None, or as the dataset spells it when asked.
        XCTAssertEqual(r.labelNames, ["none", "a", "b", "c"])
        XCTAssertEqual(a.labels, ["None", "a", "b", "c"])
        o.keepBackgroundSpelling = true
        XCTAssertEqual(try GestureClassifierTrainer(options: o).train(embeddings: r.embeddings, labels: r.labels,
                                                                     labelNames: r.labelNames).labels, r.labelNames)
    }

    /// The exported model (BatchNorm folded into MUL and ADD, float32) run by our engine computes
    /// what the unfolded head computes in Double, to float32 rounding.
    func testFoldedExportComputesTheUnfoldedHead() throws {
        let r = try Self.reference()
        for widths in [[Int](), [16, 8]] {
            var o = GestureTrainingOptions()
            o.hiddenWidths = widths
            o.epochs = 3
            let trained = try GestureClassifierTrainer(options: o).train(embeddings: r.embeddings, labels: r.labels,
                                                                        labelNames: r.labelNames)
            let model = try TFLiteModel(bytes: try trained.classifierModel(), name: "custom_gesture_classifier.tflite")
            XCTAssertEqual(model.subgraphs[0].operators.map(\.opcode),
                           Array(repeating: [BuiltinOperator.mul, .add, .fullyConnected], count: widths.count + 1)
                               .flatMap { $0 } + [.softmax])
            let interpreter = try Interpreter(model: model)
            var worst = 0.0
            for e in r.embeddings {
                try interpreter.setInput(0, e)
                interpreter.invoke()
                let ours = try interpreter.output(0).map(Double.init)
                let exact = try trained.probabilities(e)
                let d = zip(ours, exact).map { abs($0 - $1) }.max() ?? 1
                worst = max(worst, d)
            }
            print("folded export vs unfolded head, hidden \(widths): max |difference| \(worst)")
            XCTAssertLessThan(worst, 1e-5)
        }
    }

    func testBadTrainingInputIsRefused() throws {
        let r = try Self.reference()
        var o = GestureTrainingOptions()
        o.batchSize = 30
        XCTAssertThrowsError(try GestureClassifierTrainer(options: o).train(embeddings: r.embeddings, labels: r.labels,
                                                                          labelNames: r.labelNames)) {
            XCTAssertTrue("\($0)".contains("fewer than a batch of 30"), "\($0)")
        }
        o = GestureTrainingOptions()
        o.dropout = 1
        XCTAssertThrowsError(try GestureClassifierTrainer(options: o).train(embeddings: r.embeddings, labels: r.labels,
                                                                          labelNames: r.labelNames)) {
            XCTAssertTrue("\($0)".contains("dropout"), "\($0)")
        }
        XCTAssertThrowsError(try GestureClassifierTrainer().train(embeddings: r.embeddings, labels: r.labels,
                                                                 labelNames: ["none"])) {
            XCTAssertTrue("\($0)".contains("at least one gesture"), "\($0)")
        }
        var block = GestureClassifierHead.Block(inputs: 4, outputs: 2, kernel: [0, 1])
        XCTAssertThrowsError(try GestureClassifierHead(blocks: [block])) {
            XCTAssertTrue("\($0)".contains("head block 0 (4 → 2) has arrays of the wrong size"), "\($0)")
        }
        block.kernel = [Double](repeating: 0, count: 8)
        let head = try GestureClassifierHead(blocks: [block])
        XCTAssertThrowsError(try GestureClassifier(labels: ["None", "a"], head: head).probabilities([1, 2])) {
            XCTAssertTrue("\($0)".contains("embedding of 2 values; the classifier takes 4"), "\($0)")
        }
        XCTAssertThrowsError(try GestureClassifier(labels: ["None"], head: head).classifierModel()) {
            XCTAssertTrue("\($0)".contains("1 labels for a head of 2 classes"), "\($0)")
        }
        XCTAssertThrowsError(try GestureClassifierTrainer().train(embeddings: r.embeddings, labels: r.labels,
                                                                 labelNames: r.labelNames, initialHead: head)) {
            XCTAssertTrue("\($0)".contains("the initial head takes 4 inputs to 2 classes"), "\($0)")
        }
        XCTAssertThrowsError(try GestureDataset.orderedLabels(["call", "rock"])) {
            XCTAssertTrue("\($0)".contains("'none'"), "\($0)")
        }
        XCTAssertEqual(try GestureDataset.orderedLabels(["rock", "None", "call", "Four"]), ["None", "Four", "call",
                                                                                              "rock"])
    }

    func testFocalLossMatchesModelMakersDocstring() {
        // loss_functions.py: y_true [[0,1,0],[0,0,1]], y_pred [[0.05,0.95,0],[0.1,0.8,0.1]], gamma 2 → 0.9326.
        let l = FocalLoss(gamma: 2)
        XCTAssertEqual((l.loss(probability: 0.95) + l.loss(probability: 0.1)) / 2, 0.9326, accuracy: 5e-5)
        // The derivative against a central difference.
        for p in [0.05, 0.3, 0.7, 0.99] {
            let h = 1e-6
            XCTAssertEqual(l.derivative(probability: p),
                           (l.loss(probability: p + h) - l.loss(probability: p - h)) / (2 * h), accuracy: 1e-5)
        }
    }
}

enum TrainingTestPaths {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
    static let models = root + "/Models"
    static let fixtures = root + "/Tests/Fixtures"
    static let shared = ProcessInfo.processInfo.environment["TASKSVISION_SHARED"] ?? (root + "/../shared")
    static let gestureTraining = shared + "/testdata/gesture_training"

    /// The gesture recognizer bundle the training fixtures were made on: tools/fetch_models.py's assembled one
    /// (Models/ holds MediaPipe's official file when ../shared has it). Written from Models/'s parts when Models/
    /// holds the official one; its checksum is the manifest's second for the name.
    static func assembledRecognizer() throws -> String {
        let name = "gesture_recognizer.task"
        let text = try String(contentsOfFile: models + "/MANIFEST.sha256", encoding: .utf8)
        let sums = text.split(separator: "\n").filter { !$0.hasPrefix("#") && $0.hasSuffix("  " + name) }
            .map { String($0.prefix(64)) }
        let installed = models + "/" + name
        if SHA256.hexDigest(of: try ModelAsset.readFile(installed)) == sums.last { return installed }
        let landmarker = try ZipWriter.storedArchive([
            ("hand_detector.tflite", try ModelAsset.readFile(models + "/hand_detector.tflite")),
            ("hand_landmarks_detector.tflite", try ModelAsset.readFile(models + "/hand_landmark_full.tflite")),
        ])
        let bytes = try ZipWriter.storedArchive([
            ("hand_landmarker.task", landmarker),
            ("hand_gesture_recognizer.task", try ModelAsset.readFile(models + "/hand_gesture_recognizer.task")),
        ])
        XCTAssertEqual(SHA256.hexDigest(of: bytes), sums.last, "the assembled \(name)")
        let path = NSTemporaryDirectory() + "/assembled_\(getpid())_" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}

final class GestureClassifierExportTests: XCTestCase {
    /// The metadata written is Model Maker's: today's names and 0.5 threshold (metadata_writer.py,
    /// gesture_recognizer.py), otherwise field for field what the older Model Maker bundle in
    /// Models/ carries (contents, stats, the labels file's description and type, parser version).
    func testMetadataIsModelMakers() throws {
        let path = TrainingTestPaths.models + "/hand_gesture_recognizer_with_custom_classifier.task"
        let old = try XCTUnwrap(try TaskBundle(path: path).model("custom_gesture_classifier.tflite").metadata())
        var ours = GestureClassifier.metadata()
        XCTAssertEqual(ours.name, "HandGestureRecognition")
        XCTAssertEqual(ours.subgraphs.first?.inputs.first?.name, "embedding")
        XCTAssertEqual(ours.subgraphs.first?.outputs.first?.name, "scores")
        XCTAssertEqual(ours.subgraphs.first?.outputs.first?.scoreThreshold, 0.5)
        ours.name = old.name
        ours.description = old.description
        ours.subgraphs[0].inputs[0].name = old.subgraphs.first?.inputs.first?.name
        ours.subgraphs[0].inputs[0].description = old.subgraphs.first?.inputs.first?.description
        ours.subgraphs[0].outputs[0].name = old.subgraphs.first?.outputs.first?.name
        ours.subgraphs[0].outputs[0].description = old.subgraphs.first?.outputs.first?.description
        ours.subgraphs[0].outputs[0].scoreThreshold = nil
        XCTAssertEqual(ours, old)
    }

    /// The graph is the converter's for Model Maker's head: the same operators, versions,
    /// options, tensor shapes and types as the older Model Maker classifier in Models/.
    func testGraphIsTheConvertersForModelMakersHead() throws {
        let path = TrainingTestPaths.models + "/hand_gesture_recognizer_with_custom_classifier.task"
        let old = try TaskBundle(path: path).model("custom_gesture_classifier.tflite")
        var random = TrainingRandom(seed: 3)
        let head = GestureClassifierHead(inputSize: 128, hiddenWidths: [], classes: 4, random: &random)
        let ours = try TFLiteModel(bytes: try GestureClassifier(labels: ["None", "a", "b", "c"], head: head)
            .classifierModel(), name: "ours")
        func ops(_ m: TFLiteModel) -> [String] {
            m.subgraphs[0].operators.map { o in
                "\(o.opcode) v\(o.version) \(o.options) " + (o.inputs + o.outputs).map { t in
                    t < 0 ? "-" : "\(m.subgraphs[0].tensors[t].shape)\(m.subgraphs[0].tensors[t].type)"
                }.joined(separator: " ")
            }
        }
        XCTAssertEqual(ops(ours), ops(old))
        XCTAssertEqual(try ours.associatedFiles(), ["labels.txt": Array("None\na\nb\nc".utf8)])
        // The converter's CONVERSION_METADATA (its own options) is left out.
        XCTAssertEqual(ours.metadataBuffers.map(\.name),
                       old.metadataBuffers.map(\.name).filter { $0 != "CONVERSION_METADATA" })
        let version = try XCTUnwrap(old.metadataBuffers.first { $0.name == "min_runtime_version" })
        XCTAssertEqual(GestureClassifier.minRuntimeVersion, Array(old.bufferBytes(version.buffer)))
    }
}
