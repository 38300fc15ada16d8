import Foundation
@testable import TasksVision
import TasksVisionEngine
import TestFixtureSupport
import XCTest

/// `ImageClassifier` against MediaPipe 1.2.3's (tools/reference_classification.py): every one of the 1000 scores of
/// each photo (upright, turned by 90, 180 and 270 degrees, regions of interest, a 20-frame video) within 1e-6,
/// and the categories in MediaPipe's order, equal scores included; the options (max results, thresholds, allow
/// and deny lists) giving MediaPipe's categories.
final class ImageClassifierParityTests: XCTestCase {
    static let float32 = "efficientnet_lite0_float32.tflite"
    static let int8 = "efficientnet_lite0.tflite"

    static func classifier(_ model: String, mode: RunningMode = .image,
                           configure: (ImageClassifierOptions) -> Void = { _ in }) throws -> ImageClassifier {
        let o = ImageClassifierOptions()
        o.baseOptions.modelAssetPath = try Paths.model(model)
        o.runningMode = mode
        configure(o)
        return try ImageClassifier(options: o)
    }

    /// The classifier of `model`, or a skip while the engine cannot run it (the uint8 model before the int8 engine).
    static func classifierOrSkip(_ model: String, mode: RunningMode = .image) throws -> ImageClassifier {
        do {
            return try classifier(model, mode: mode)
        } catch let e as VisionTaskError where "\(e)".contains("not run by this engine yet") {
            throw XCTSkip("\(model): \(e)")
        }
    }

    func check(_ r: ImageClassifierResult, _ e: ClassificationFixtures.Classify, _ tally: inout ScoreComparison,
               orders: inout Int, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(r.classificationResult.classifications.count, 1, e.what, file: file, line: line)
        guard let head = r.classificationResult.classifications.first else { return }
        XCTAssertEqual(head.headIndex, 0, file: file, line: line)
        XCTAssertEqual(head.headName, e.head, file: file, line: line)
        XCTAssertEqual(head.categories.count, e.count, e.what, file: file, line: line)
        var scores = [Float](repeating: .nan, count: e.count)
        for c in head.categories where c.index >= 0 && c.index < e.count { scores[c.index] = c.score }
        let before = tally.maxError
        tally.add(scores, e.values)
        XCTAssertLessThanOrEqual(tally.maxError, 1e-6, "\(e.what): scores differ by \(tally.maxError)",
                                 file: file, line: line)
        let sameOrder = head.categories.map(\.index) == e.indices
        orders += sameOrder ? 1 : 0
        // The order follows the scores: MediaPipe's only when the scores are its bits.
        if tally.maxError == before || tally.maxError == 0 {
            XCTAssertTrue(sameOrder, "\(e.what): categories in another order than MediaPipe's", file: file, line: line)
        }
    }

    func runImageMode(_ model: String) throws {
        let fixtures = try ClassificationFixtures.load()
        let classifier = try Self.classifierOrSkip(model)
        XCTAssertEqual(classifier.labels.first, fixtures.labels)
        var tally = ScoreComparison(), orders = 0, results = 0
        for e in fixtures.classify where e.model == model && e.sequence == nil {
            let image = try ClassificationFixtures.image(e.file, rotation: e.rotation, turned: e.turned ?? false)
            let roi = e.roi.map { ClassificationFixtures.displayedRegion($0, rotation: e.rotation) }
            let r = try classifier.classify(image: image, imageProcessingOptions: roi.map {
                ImageProcessingOptions(regionOfInterest: $0) })
            check(r, e, &tally, orders: &orders)
            results += 1
        }
        print("\(model), image mode: \(results) images, \(tally.identical) of \(tally.compared) scores bit-identical, "
              + "largest difference \(tally.maxError), \(orders) of \(results) orders MediaPipe's")
        XCTAssertGreaterThan(results, 50)
        if EngineArithmetic.matchesX86XNNPACK { XCTAssertEqual(tally.identical, tally.compared, "not TFLite's bits") }
    }

    func runVideoMode(_ model: String) throws {
        let fixtures = try ClassificationFixtures.load()
        let classifier = try Self.classifierOrSkip(model, mode: .video)
        var tally = ScoreComparison(), orders = 0, results = 0
        for e in fixtures.classify where e.model == model && e.sequence != nil {
            let image = try ClassificationFixtures.image(e.file, sequence: e.sequence)
            let r = try classifier.classify(videoFrame: image, timestampInMilliseconds: e.timestampMs ?? 0)
            XCTAssertEqual(r.timestampInMilliseconds, e.timestampMs ?? 0)
            check(r, e, &tally, orders: &orders)
            results += 1
        }
        print("\(model), video mode: \(results) frames, \(tally.identical) of \(tally.compared) scores bit-identical, "
              + "largest difference \(tally.maxError), \(orders) of \(results) orders MediaPipe's")
        XCTAssertEqual(results, 20)
        if EngineArithmetic.matchesX86XNNPACK { XCTAssertEqual(tally.identical, tally.compared, "not TFLite's bits") }
    }

    func testFloatModelImageModeMatchesMediaPipe() throws { try runImageMode(Self.float32) }
    func testFloatModelVideoModeMatchesMediaPipe() throws { try runVideoMode(Self.float32) }
    func testQuantizedModelImageModeMatchesMediaPipe() throws { try runImageMode(Self.int8) }
    func testQuantizedModelVideoModeMatchesMediaPipe() throws { try runVideoMode(Self.int8) }

    /// max_results (MediaPipe's partial sort, equal scores of the uint8 model included), score thresholds and the
    /// allow and deny lists: the same categories in the same order, scores within 1e-6.
    func testOptionsGiveMediaPipesCategories() throws {
        let fixtures = try ClassificationFixtures.load()
        var cases = 0
        for e in fixtures.options {
            let classifier: ImageClassifier
            do {
                classifier = try Self.classifier(e.model) { o in
                    if let m = e.options.max_results { o.maxResults = m }
                    if let t = e.options.score_threshold { o.scoreThreshold = t }
                    o.categoryAllowlist = e.options.category_allowlist ?? []
                    o.categoryDenylist = e.options.category_denylist ?? []
                }
            } catch let error as VisionTaskError where "\(error)".contains("not run by this engine yet") {
                continue
            }
            let r = try classifier.classify(image: try ClassificationFixtures.image(e.file))
            let categories = r.classificationResult.classifications.first?.categories ?? []
            let what = "\(e.model) \(e.file) \(e.options)"
            XCTAssertEqual(categories.map(\.index), e.categories.map { Int($0[0]) }, what)
            for (c, m) in zip(categories, e.categories) {
                XCTAssertEqual(Double(c.score), m[1], accuracy: 1e-6, what)
                XCTAssertEqual(c.categoryName, fixtures.labels[c.index], what)
                XCTAssertNil(c.displayName, what)
            }
            cases += 1
        }
        XCTAssertGreaterThanOrEqual(cases, 28)
    }
}
