import Foundation
@testable import TasksVision
import TasksVisionFormat
import TasksVisionImageIO
import XCTest

/// `ImageClassifier` and `ImageEmbedder` beyond the parity fixtures: the live stream's deliveries, the async forms,
/// results the same at any thread count, mirrored orientations, display names of a locale, and the mistakes
/// MediaPipe refuses, with its texts.
final class ClassifierAPITests: XCTestCase {
    static let model = "efficientnet_lite0_float32.tflite"

    func options(_ model: String = model, mode: RunningMode = .image) throws -> ImageClassifierOptions {
        let o = ImageClassifierOptions()
        o.baseOptions.modelAssetPath = try Paths.model(model)
        o.runningMode = mode
        return o
    }

    func burger() throws -> MPImage { try MPImage(contentsOfFile: Paths.shared + "/testdata/google/burger.jpg") }

    /// Every accepted live-stream frame reaches the callback and `liveResults`, in timestamp order, with the
    /// image mode's result.
    func testLiveStreamDeliversEveryAcceptedFrame() throws {
        let expected = try ImageClassifier(options: try options()).classify(image: try burger())
        let o = try options(mode: .liveStream)
        let lock = NSLock()
        var delivered: [(Int, ImageClassifierResult)] = []
        o.resultCallback = { result, t in
            if case .success(let r) = result { lock.lock(); delivered.append((t, r)); lock.unlock() }
        }
        let classifier = try ImageClassifier(options: o)
        var accepted: [Int] = []
        let image = try burger()
        for t in stride(from: 0, to: 200, by: 20) where try classifier.classifyAsync(image: image,
                                                                                     timestampInMilliseconds: t) {
            accepted.append(t)
        }
        classifier.waitForPendingResults()
        lock.lock(); defer { lock.unlock() }
        XCTAssertEqual(delivered.map(\.0), accepted)
        XCTAssertFalse(accepted.isEmpty)
        for (t, r) in delivered {
            XCTAssertEqual(r.classificationResult.classifications, expected.classificationResult.classifications)
            XCTAssertEqual(r.timestampInMilliseconds, t)
        }
    }

    /// The blocking forms' results (called from a synchronous context, where they are the ones chosen).
    func blocking(_ classifier: ImageClassifier, _ embedder: ImageEmbedder, _ image: MPImage) throws
        -> (ImageClassifierResult, ImageEmbedderResult) {
        (try classifier.classify(image: image), try embedder.embed(image: image))
    }

    func testAsyncFormsAndThreads() async throws {
        let image = try burger()
        let one = try ImageClassifier(options: try options())
        let e = ImageEmbedderOptions()
        e.baseOptions.modelAssetPath = try Paths.model(Self.model)
        let (expected, embedding) = try blocking(one, try ImageEmbedder(options: e), image)
        let asyncResult = try await one.classify(image: image)
        XCTAssertEqual(asyncResult, expected)
        // Results are the same bits at any thread count.
        let o = try options()
        o.baseOptions.threads = 2
        let twoThreadsClassifier = try await ImageClassifier(options: o).classify(image: image)
        XCTAssertEqual(twoThreadsClassifier, expected)
        e.baseOptions.threads = 2
        let twoThreads = try await ImageEmbedder(options: e).embed(image: image)
        XCTAssertEqual(twoThreads, embedding)
        // The embedding of the classifier's model is its scores, by index.
        let scores = expected.classificationResult.classifications[0].categories.sorted { $0.index < $1.index }
        XCTAssertEqual(embedding.embeddingResult.embeddings[0].floatEmbedding, scores.map(\.score))
    }

    /// A mirrored image is classified as displayed: as its pixels flipped back, upright, up to the model's
    /// response to its input sampled at the mirrored grid's positions (as for the segmenter's orientations).
    func testMirroredImagesAreClassifiedAsDisplayed() throws {
        let d = try ImageFile.read(Paths.images + "/negative_animals_1.png")
        var flipped = d.pixels
        let n = d.channels
        for y in 0..<d.height {
            for x in 0..<d.width {
                for c in 0..<n { flipped[(y * d.width + x) * n + c] = d.pixels[(y * d.width + d.width - 1 - x) * n + c] }
            }
        }
        let format: MPImage.PixelFormat = n == 3 ? .rgb8 : .rgba8
        let upright = try MPImage(pixels: d.pixels, width: d.width, height: d.height, pixelFormat: format)
        let mirrored = try MPImage(pixels: flipped, width: d.width, height: d.height, pixelFormat: format,
                                   orientation: .upMirrored)
        let classifier = try ImageClassifier(options: try options())
        let a = try classifier.classify(image: upright).classificationResult.classifications[0].categories
        let b = try classifier.classify(image: mirrored).classificationResult.classifications[0].categories
        XCTAssertEqual(a.first?.index, b.first?.index)
        let byIndex = Dictionary(uniqueKeysWithValues: b.map { ($0.index, $0.score) })
        XCTAssertLessThan(a.map { abs($0.score - (byIndex[$0.index] ?? 1)) }.max() ?? 1, 0.05)
        // The stored pixels as they are (not flipped back) give another picture's scores.
        let stored = try classifier.classify(image: mirrored.withOrientation(.up))
            .classificationResult.classifications[0].categories
        XCTAssertNotEqual(stored.map(\.index), a.map(\.index))
    }

    /// A classifier with display names in French: `displayNamesLocale` picks them, "en" has none.
    func testDisplayNamesOfTheLocale() throws {
        let path = try ScoreCalibrationTests.writeLocalizedModel()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let o = ImageClassifierOptions()
        o.baseOptions.modelAssetPath = path
        o.displayNamesLocale = "fr"
        let fr = try ImageClassifier(options: o).classify(image: try burger())
        let top = try XCTUnwrap(fr.classificationResult.classifications.first?.categories.first)
        XCTAssertEqual(top.displayName, "fr:" + (top.categoryName ?? ""))
        o.displayNamesLocale = "en"
        let en = try ImageClassifier(options: o).classify(image: try burger())
        XCTAssertNil(en.classificationResult.classifications.first?.categories.first?.displayName)
        XCTAssertEqual(en.classificationResult.classifications.first?.headName, "probability")
    }

    func testMistakesWithMediaPipesTexts() throws {
        let o = try options()
        o.maxResults = 0
        XCTAssertThrowsError(try ImageClassifier(options: o)) {
            XCTAssertEqual(($0 as NSError).localizedDescription,
                           "INVALID_ARGUMENT: Invalid `max_results` option: value must be != 0.")
        }
        // A list of names needs labels: a model without them is refused.
        let path = try ScoreCalibrationTests.writeLocalizedModel(labels: false)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bare = ImageClassifierOptions()
        bare.baseOptions.modelAssetPath = path
        bare.categoryDenylist = ["x"]
        XCTAssertThrowsError(try ImageClassifier(options: bare)) {
            XCTAssertEqual(($0 as NSError).localizedDescription, "INVALID_ARGUMENT: Using `category_allowlist` or "
                           + "`category_denylist` requires labels to be present in the TFLite Model Metadata but none "
                           + "was found.")
        }
        // Without labels, categories have indices only; heads without names "" (iOS's).
        bare.categoryDenylist = []
        let r = try ImageClassifier(options: bare).classify(image: try burger())
        XCTAssertNil(r.classificationResult.classifications.first?.categories.first?.categoryName)
        // Regions outside the image or empty.
        let classifier = try ImageClassifier(options: try options())
        XCTAssertThrowsError(try classifier.classify(image: try burger(),
                                                      regionOfInterest: CGRect(x: 0.5, y: 0.5, width: 0.6, height: 0.2))) {
            XCTAssertEqual(($0 as NSError).localizedDescription, "INVALID_ARGUMENT: Expected RectF values to be in [0,1].")
        }
        XCTAssertThrowsError(try classifier.classify(image: try burger(),
                                                      regionOfInterest: CGRect(x: 0.5, y: 0.5, width: 0, height: 0.2))) {
            XCTAssertEqual(($0 as NSError).localizedDescription,
                           "INVALID_ARGUMENT: Expected RectF with left < right and top < bottom.")
        }
        // .zero is the whole image, as on iOS.
        XCTAssertEqual(try classifier.classify(image: try burger(), regionOfInterest: .zero),
                       try classifier.classify(image: try burger()))
        // A float model without normalization in its metadata: MediaPipe's NOT_FOUND.
        let noNormalization = try ScoreCalibrationTests.writeLocalizedModel(normalization: false)
        defer { try? FileManager.default.removeItem(atPath: noNormalization) }
        XCTAssertThrowsError(try ImageClassifier(modelPath: noNormalization)) { error in
            XCTAssertEqual((error as NSError).code, 5)
            XCTAssertEqual((error as NSError).localizedDescription, "NOT_FOUND: Input tensor has type float32: it "
                           + "requires specifying NormalizationOptions metadata to preprocess input images.")
            XCTAssertTrue("\(error)".contains((noNormalization as NSString).lastPathComponent), "\(error)")
        }
    }
}

extension ScoreCalibrationTests {
    /// The test classifier (see `model(transformation:)`) with labels in English and French ("fr:<name>"), or none,
    /// and with or without its input's normalization, written to a temporary file.
    static func writeLocalizedModel(labels: Bool = true, normalization: Bool = true) throws -> String {
        let written = try TFLiteModel(bytes: try model(transformation: 0), name: "calibrated")
        var writer = try TFLiteModelWriter(model: written)
        var metadata = try XCTUnwrap(try written.metadata())
        metadata.subgraphs[0].outputs[0].scoreCalibration = nil
        metadata.subgraphs[0].outputs[0].associatedFiles = labels
            ? [.init(name: "labels.txt", type: .tensorAxisLabels),
               .init(name: "labels_fr.txt", type: .tensorAxisLabels, locale: "fr")] : []
        if !normalization { metadata.subgraphs[0].inputs[0].normalization = nil }
        writer.metadata = [("TFLITE_METADATA", try metadata.serialized())]
        writer.associatedFiles = labels ? [("labels.txt", Array(Self.labels.joined(separator: "\n").utf8)),
                                           ("labels_fr.txt", Array(Self.labels.map { "fr:" + $0 }
                                                .joined(separator: "\n").utf8))] : []
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("localized-\(UUID().uuidString).tflite")
        try Data(try writer.serialized()).write(to: path)
        return path.path
    }
}
