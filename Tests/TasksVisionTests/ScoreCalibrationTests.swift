import Foundation
@testable import TasksVision
import TasksVisionFormat
import TestFixtureSupport
import XCTest

/// Score calibration, MediaPipe's `ScoreCalibrationCalculator`: the calculator alone against its formula, the
/// calibration file's parsing and errors, and `ImageClassifier` on small calibrated classifiers this test writes
/// with our model and metadata writers, against MediaPipe 1.2.3 on the same files (no official model carries a
/// calibration). The models' SHA-256 in the fixture proves they are the files MediaPipe ran:
///
///     TASKSVISION_WRITE_CALIBRATED_MODELS=/tmp/calibrated swift test --filter ScoreCalibrationTests
///     python3 tools/reference_classification.py --calibrated /tmp/calibrated
final class ScoreCalibrationTests: XCTestCase {
    static let labels = ["zero", "one", "two", "three", "four"]
    /// Three and four parameters, an empty line (the default score), a minimum score.
    static let sigmoids = "0.9,2.5,-1.0\n1.0,-3.0,0.5,0.2\n\n0.5,1.5,0.25,0.05\n1.2,4.0,-2.0"
    static let defaultScore: Float = 0.125
    static let transformations: [(name: String, type: UInt8)] = [("identity", 0), ("log", 1), ("inverse_logistic", 2)]

    /// A 4x4 RGB image classifier: a fully connected layer over the 48 normalized values, then a softmax; labels,
    /// normalization (mean 127.5, std 127.5) and the calibration in its metadata.
    static func model(transformation: UInt8, sigmoids: String = sigmoids) throws -> [UInt8] {
        let weights = (0..<(5 * 48)).map { Float(sin(Double($0) * 0.7) * 0.08) }
        let bias: [Float] = [0.1, -0.2, 0.05, 0.3, -0.1]
        let tensors: [TFLiteModelWriter.Tensor] = [
            .init(name: "image", shape: [1, 4, 4, 3]),
            .init(name: "weights", shape: [5, 48], floats: weights),
            .init(name: "bias", shape: [5], floats: bias),
            .init(name: "logits", shape: [1, 5]),
            .init(name: "probability", shape: [1, 5]),
        ]
        let fc = TFLiteModelWriter.Operator(.fullyConnected, inputs: [0, 1, 2], outputs: [3], options: .fullyConnected(
            OperatorOptions.FullyConnected(activation: .none, weightsFormat: 0, keepNumDims: false)))
        let softmax = TFLiteModelWriter.Operator(.softmax, inputs: [3], outputs: [4], options: .softmax(beta: 1))
        let graph = TFLiteModelWriter.Subgraph(name: "main", tensors: tensors, inputs: [0], outputs: [4],
                                               operators: [fc, softmax])
        let input = ModelMetadata.TensorMetadata(name: "image", normalization: .init(mean: [127.5], std: [127.5]),
                                                 content: .image(colorSpace: 1))
        let output = ModelMetadata.TensorMetadata(
            name: "probability",
            associatedFiles: [.init(name: "labels.txt", type: .tensorAxisLabels),
                              .init(name: "calibration.txt", type: .tensorAxisScoreCalibration)],
            content: .feature,
            scoreCalibration: .init(transformation: transformation, defaultScore: defaultScore))
        let metadata = ModelMetadata(name: "calibrated classifier", subgraphs: [.init(inputs: [input],
                                                                                      outputs: [output])],
                                     minParserVersion: "1.0.1")
        return try TFLiteModelWriter(description: "TasksVision score calibration test", subgraphs: [graph],
                                     metadata: [("TFLITE_METADATA", try metadata.serialized())],
                                     associatedFiles: [("labels.txt", Array(labels.joined(separator: "\n").utf8)),
                                                       ("calibration.txt", Array(sigmoids.utf8))]).serialized()
    }

    /// Writes the models into a temporary folder (and into $TASKSVISION_WRITE_CALIBRATED_MODELS when set).
    static func writeModels() throws -> [String: String] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("calibrated-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var paths: [String: String] = [:]
        for t in transformations {
            let name = "calibrated_\(t.name).tflite"
            let bytes = try model(transformation: t.type)
            try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name))
            if let out = ProcessInfo.processInfo.environment["TASKSVISION_WRITE_CALIBRATED_MODELS"] {
                try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
                try Data(bytes).write(to: URL(fileURLWithPath: out + "/" + name))
            }
            paths[name] = folder + "/" + name
        }
        return paths
    }

    func testCalibratedClassifiersMatchMediaPipe() throws {
        let fixtures = try ClassificationFixtures.load()
        let entries = fixtures.calibrated ?? []
        XCTAssertEqual(Set(entries.map(\.model)).count, 3)
        let paths = try Self.writeModels()
        var classifiers: [String: ImageClassifier] = [:]
        var compared = 0, identical = 0, largest = 0.0
        for e in entries {
            let path = try XCTUnwrap(paths[e.model])
            let sha = SHA256.hexDigest(of: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
            XCTAssertEqual(sha, e.sha256, "\(e.model) is not the model MediaPipe ran")
            if classifiers[e.model] == nil { classifiers[e.model] = try ImageClassifier(modelPath: path) }
            let r = try XCTUnwrap(classifiers[e.model]).classify(image: try ClassificationFixtures.image(e.file))
            let categories = r.classificationResult.classifications.first?.categories ?? []
            XCTAssertEqual(categories.map(\.index), e.categories.map { Int($0[0]) }, "\(e.model) \(e.file)")
            for (c, m) in zip(categories, e.categories) {
                XCTAssertEqual(Double(c.score), m[1], accuracy: 1e-6, "\(e.model) \(e.file)")
                XCTAssertEqual(c.categoryName, Self.labels[c.index])
                compared += 1
                identical += Double(c.score) == m[1] ? 1 : 0
                largest = max(largest, abs(Double(c.score) - m[1]))
            }
        }
        print("calibrated classifiers: \(identical) of \(compared) scores equal MediaPipe's, largest difference \(largest)")
        XCTAssertGreaterThanOrEqual(compared, 100)
    }

    /// The calculator against its formula in double: scale / (1 + exp(-(slope * g(x) + offset))).
    func testCalibratedScoreFollowsTheFormula() throws {
        let sigmoid = ScoreCalibration.Sigmoid(scale: 0.9, slope: 2.5, offset: -1, minScore: nil)
        for (t, g) in [(ScoreCalibration.Transformation.identity, { (x: Double) in x }),
                       (.log, { (x: Double) in log(x) }),
                       (.inverseLogistic, { (x: Double) in log(x) - log(1 - x) })] {
            let c = ScoreCalibration(transformation: t, defaultScore: 0.5, sigmoids: [sigmoid])
            for x: Float in [0.01, 0.2, 0.5, 0.77, 0.99] {
                let expected = 0.9 / (1 + exp(-(2.5 * g(Double(x)) - 1)))
                XCTAssertEqual(Double(c.calibrated(x, index: 0)), expected, accuracy: 1e-6, "\(t) \(x)")
            }
        }
        // Below min_score, or a sigmoid without parameters: the default score.
        let c = ScoreCalibration(transformation: .identity, defaultScore: 0.25,
                                 sigmoids: [.init(scale: 1, slope: 1, offset: 0, minScore: 0.3), nil])
        XCTAssertEqual(c.calibrated(0.2, index: 0), 0.25)
        XCTAssertEqual(Double(c.calibrated(0.4, index: 0)), 1 / (1 + exp(-0.4)), accuracy: 1e-7)
        XCTAssertEqual(c.calibrated(0.9, index: 1), 0.25)
        // ClampedLog keeps log away from 0: finite, and increasing, for x at and below the threshold.
        let logarithmic = ScoreCalibration(transformation: .log, defaultScore: 0,
                                           sigmoids: [.init(scale: 1, slope: 0.01, offset: 0, minScore: nil)])
        XCTAssertTrue(logarithmic.calibrated(0, index: 0).isFinite)
        XCTAssertLessThan(logarithmic.calibrated(0, index: 0), logarithmic.calibrated(1e-12, index: 0))
    }

    func testCalibrationFileParsing() throws {
        let c = try ScoreCalibration(transformation: .identity, defaultScore: 0, file: Array(Self.sigmoids.utf8))
        XCTAssertEqual(c.sigmoids.count, 5)
        XCTAssertEqual(c.sigmoids[1], .init(scale: 1, slope: -3, offset: 0.5, minScore: 0.2))
        XCTAssertNil(c.sigmoids[2])
        // A final newline is one more (empty) sigmoid, as MediaPipe splits the file.
        XCTAssertEqual(try ScoreCalibration(transformation: .identity, defaultScore: 0,
                                            file: Array((Self.sigmoids + "\n").utf8)).sigmoids.count, 6)
        func failure(_ text: String) -> String? {
            do {
                _ = try ScoreCalibration(transformation: .identity, defaultScore: 0, file: Array(text.utf8))
                return nil
            } catch let f as ScoreCalibration.Failure {
                return f.text
            } catch {
                return "\(error)"
            }
        }
        XCTAssertEqual(failure(""), "INVALID_ARGUMENT: Expected non-empty score calibration file.")
        XCTAssertEqual(failure("1,2"), "INVALID_ARGUMENT: Expected 3 or 4 parameters per line in score calibration "
                       + "file, got 2.")
        XCTAssertEqual(failure("1,x,2"), "INVALID_ARGUMENT: Could not parse score calibration parameter as float: x.")
        XCTAssertEqual(failure("-1,2,3"), "INVALID_ARGUMENT: The scale parameter of the sigmoids must be positive, "
                       + "found -1.000000.")
        XCTAssertEqual(try ScoreCalibration(transformation: .identity, defaultScore: 0, file: Array(" 1 , 2,3".utf8))
                        .sigmoids.first, .init(scale: 1, slope: 2, offset: 3, minScore: nil))
    }

    /// A calibration of another count than the scores is refused when the classifier is made (MediaPipe fails on
    /// every image), with MediaPipe's text.
    func testMismatchedCalibrationIsRefused() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("calibrated-bad-\(getpid()).tflite")
        try Data(try Self.model(transformation: 0, sigmoids: Self.sigmoids + "\n")).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        XCTAssertThrowsError(try ImageClassifier(modelPath: path.path)) { error in
            XCTAssertEqual((error as NSError).localizedDescription, "INVALID_ARGUMENT: Mismatch between number of "
                           + "sigmoids (6) and number of elements in the input scores tensor (5).")
            XCTAssertTrue("\(error)".contains(path.lastPathComponent), "\(error)")
        }
    }

    /// The metadata writer writes ScoreCalibrationOptions, and the reader reads them back.
    func testCalibrationMetadataRoundTrips() throws {
        let model = try TFLiteModel(bytes: try Self.model(transformation: 2), name: "calibrated")
        let output = try XCTUnwrap(model.metadata()?.subgraphs.first?.outputs.first)
        XCTAssertEqual(output.scoreCalibration, .init(transformation: 2, defaultScore: Self.defaultScore))
        XCTAssertEqual(try model.associatedFiles()["calibration.txt"], Array(Self.sigmoids.utf8))
    }
}
