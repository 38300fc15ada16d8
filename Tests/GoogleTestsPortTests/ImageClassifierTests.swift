import Foundation
import TasksVision
import TasksVisionImageIO
import TestFixtureSupport
import XCTest

/// MediaPipe 1.2.3's ImageClassifier results on our inputs (tools/reference_classification.py,
/// Tests/Fixtures/classification): the categories of a case with default options, best first.
struct MediaPipeClassifications {
    let categories: [(index: Int, score: Float, name: String)]

    /// The entry of `model` on `file` (a photo of ../shared/testdata/images, or "google/burger.jpg"), upright
    /// unless `rotation`, the whole image unless `roi` (MediaPipe's RectF of the stored pixels), `turned` for the
    /// burger turned as `Port.turnedImage` turns it.
    static func load(model: String, file: String, rotation: Int = 0, roi: [Double]? = nil, turned: Bool = false)
        throws -> MediaPipeClassifications {
        let fixtures = try ClassificationFixtures.load()
        let labels = fixtures.labels
        let (order, scores) = try fixtures.scores(model: model, file: file, rotation: rotation, roi: roi,
                                                  turned: turned)
        guard order.allSatisfy({ $0 < labels.count }) else {
            throw ClassificationFixtures.FixtureError(description: "\(model) \(file): an index past the labels")
        }
        return MediaPipeClassifications(categories: order.map { ($0, scores[$0], labels[$0]) })
    }
}

/// Port of mediapipe/tasks/ios/test/vision/image_classifier/MPPImageClassifierTests.m. Google's test models
/// (mobilenet_v2_1.0_224.tflite, 1001 classes; mobilenet_v1_0.25_224_quant.tflite) and its multi_objects*.jpg are
/// not here: the float cases run efficientnet_lite0_float32.tflite, the quantized one efficientnet_lite0.tflite
/// (1000 classes each), on burger.jpg (Google's own photo), and the expected categories are MediaPipe 1.2.3's on
/// the same inputs with the same models. Google's turned burger_rotated.jpg is burger.jpg turned clockwise
/// (`Port.turnedImage`), and its multi-object photos with their regions are our photos with the reference's
/// regions. Regions are normalized to the displayed image here (to the stored pixels in MediaPipe): a region
/// of a turned image is given as it shows upright.
final class MPPImageClassifierTests: XCTestCase, ImageClassifierLiveStreamDelegate {
    static let kFloatModelName = "efficientnet_lite0_float32.tflite"
    static let kQuantizedModelName = "efficientnet_lite0.tflite"
    static let kBurgerImage = "google/burger.jpg"
    static let kMobileNetCategoriesCount = 1000

    var liveStreamExpectation: XCTestExpectation?
    var outOfOrderClassifier: ImageClassifier?
    var liveStreamClassifier: ImageClassifier?
    var callbackErrors: [String] = []
    let lock = NSLock()

    static func burger() throws -> MPImage { try MPImage(contentsOfFile: Port.shared + "/testdata/google/burger.jpg") }

    /// `expectedResultCategoriesForClassifyBurgerImageWithFloatModel`: MediaPipe's top three.
    static func expectedBurgerCategories(_ model: String = kFloatModelName) throws -> [ResultCategory] {
        try MediaPipeClassifications.load(model: model, file: kBurgerImage).categories.prefix(3).map {
            ResultCategory(index: $0.index, score: $0.score, categoryName: $0.name, displayName: nil)
        }
    }

    func options(_ model: String = kFloatModelName) throws -> ImageClassifierOptions {
        let o = ImageClassifierOptions()
        o.baseOptions.modelAssetPath = try Port.model(model)
        return o
    }

    /// `AssertEqualCategoryArrays`, with the test's 1e-2 on scores.
    func assertEqualCategories(_ categories: [ResultCategory], _ expected: [ResultCategory],
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(categories.count, expected.count, file: file, line: line)
        for (c, e) in zip(categories, expected) {
            XCTAssertEqual(c.index, e.index, file: file, line: line)
            XCTAssertEqual(c.score, e.score, accuracy: 1e-2, file: file, line: line)
            XCTAssertEqual(c.categoryName, e.categoryName, file: file, line: line)
            XCTAssertEqual(c.displayName, e.displayName, file: file, line: line)
        }
    }

    /// `assertImageClassifierResult:hasExpectedCategoriesCount:expectedCategories:`.
    func assertResult(_ result: ImageClassifierResult?, count: Int, expected: [ResultCategory],
                      file: StaticString = #filePath, line: UInt = #line) {
        guard let result else { return XCTFail("no result", file: file, line: line) }
        XCTAssertEqual(result.classificationResult.classifications.count, 1, file: file, line: line)
        XCTAssertEqual(result.classificationResult.classifications.first?.headIndex, 0, file: file, line: line)
        let categories = result.classificationResult.classifications.first?.categories ?? []
        XCTAssertEqual(categories.count, count, file: file, line: line)
        assertEqualCategories(Array(categories.prefix(expected.count)), expected, file: file, line: line)
    }

    // MARK: General tests

    func testCreateImageClassifierWithMissingModelPathFails() throws {
        assertEqualErrors(thrownError { _ = try ImageClassifier(modelPath: "") },
                          "INVALID_ARGUMENT: ExternalFile must specify at least one of 'file_content', "
                          + "'file_name', 'file_pointer_meta' or 'file_descriptor_meta'.")
    }

    func testCreateImageClassifierAllowlistAndDenylistFails() throws {
        let o = try options()
        o.categoryAllowlist = ["cheeseburger"]
        o.categoryDenylist = ["bagel"]
        assertEqualErrors(thrownError { _ = try ImageClassifier(options: o) },
                          "INVALID_ARGUMENT: `category_allowlist` and `category_denylist` are mutually exclusive "
                          + "options.")
    }

    func testClassifyWithModelPathAndFloatModelSucceeds() throws {
        let classifier = try ImageClassifier(modelPath: try Port.model(Self.kFloatModelName))
        assertResult(try classifier.classify(image: try Self.burger()), count: Self.kMobileNetCategoriesCount,
                     expected: try Self.expectedBurgerCategories())
    }

    func testClassifyWithOptionsAndFloatModelSucceeds() throws {
        let o = try options()
        o.maxResults = 3
        assertResult(try ImageClassifier(options: o).classify(image: try Self.burger()), count: 3,
                     expected: try Self.expectedBurgerCategories())
    }

    func testClassifyWithQuantizedModelSucceeds() throws {
        let o = try options(Self.kQuantizedModelName)
        o.maxResults = 1
        let expected = Array(try Self.expectedBurgerCategories(Self.kQuantizedModelName).prefix(1))
        XCTAssertEqual(expected.first?.categoryName, "cheeseburger")
        assertResult(try ImageClassifier(options: o).classify(image: try Self.burger()), count: 1, expected: expected)
    }

    func testClassifyWithScoreThresholdSucceeds() throws {
        let o = try options()
        o.scoreThreshold = 0.25
        let expected = Array(try Self.expectedBurgerCategories().prefix(1))
        assertResult(try ImageClassifier(options: o).classify(image: try Self.burger()), count: 1, expected: expected)
    }

    func testClassifyWithAllowlistSucceeds() throws {
        let o = try options()
        o.categoryAllowlist = ["cheeseburger", "guacamole", "meat loaf"]
        let all = try MediaPipeClassifications.load(model: Self.kFloatModelName, file: Self.kBurgerImage).categories
        let expected = all.filter { o.categoryAllowlist.contains($0.name) }.map {
            ResultCategory(index: $0.index, score: $0.score, categoryName: $0.name, displayName: nil)
        }
        XCTAssertEqual(expected.map(\.categoryName), ["cheeseburger", "guacamole", "meat loaf"])
        assertResult(try ImageClassifier(options: o).classify(image: try Self.burger()), count: 3, expected: expected)
    }

    func testClassifyWithDenylistSucceeds() throws {
        let o = try options()
        o.categoryDenylist = ["bagel"]
        o.maxResults = 3
        let all = try MediaPipeClassifications.load(model: Self.kFloatModelName, file: Self.kBurgerImage).categories
        let expected = all.filter { $0.name != "bagel" }.prefix(3).map {
            ResultCategory(index: $0.index, score: $0.score, categoryName: $0.name, displayName: nil)
        }
        assertResult(try ImageClassifier(options: o).classify(image: try Self.burger()), count: 3, expected: expected)
    }

    /// multi_objects.jpg's soccer ball: the left half of negative_animals_1.png, the region the reference used.
    func testClassifyWithRegionOfInterestSucceeds() throws {
        let o = try options()
        o.maxResults = 1
        let mp = try MediaPipeClassifications.load(model: Self.kFloatModelName, file: "negative_animals_1.png",
                                                   roi: [0, 0, 0.5, 1]).categories[0]
        let result = try ImageClassifier(options: o).classify(
            image: try Port.image("negative_animals_1.png"), regionOfInterest: CGRect(x: 0, y: 0, width: 0.5, height: 1))
        assertResult(result, count: 1, expected: [ResultCategory(index: mp.index, score: mp.score,
                                                                 categoryName: mp.name, displayName: nil)])
    }

    func testClassifyWithOrientationSucceeds() throws {
        let o = try options()
        o.maxResults = 3
        let expected = try MediaPipeClassifications.load(model: Self.kFloatModelName, file: Self.kBurgerImage,
                                                         rotation: 270, turned: true).categories.prefix(3).map {
            ResultCategory(index: $0.index, score: $0.score, categoryName: $0.name, displayName: nil)
        }
        let image = try Port.turnedImageFile(Port.shared + "/testdata/google/burger.jpg")
        assertResult(try ImageClassifier(options: o).classify(image: image), count: 3, expected: expected)
    }

    /// multi_objects_rotated.jpg's folding chair: hand_victory_1.png shown with orientation .left and the
    /// reference's region (RectF 0.5, 0, 1, 0.5 of the stored pixels), given as it shows upright.
    func testClassifyWithRegionOfInterestAndOrientationSucceeds() throws {
        let o = try options()
        o.maxResults = 1
        let mp = try MediaPipeClassifications.load(model: Self.kFloatModelName, file: "hand_victory_1.png",
                                                   rotation: 270, roi: [0.5, 0, 1, 0.5]).categories[0]
        let image = try Port.image("hand_victory_1.png", orientation: .left)
        // The stored rect (0.5, 0)-(1, 0.5) turned as .left shows it: (0, 0)-(0.5, 0.5).
        let result = try ImageClassifier(options: o).classify(
            image: image, regionOfInterest: CGRect(x: 0, y: 0, width: 0.5, height: 0.5))
        assertResult(result, count: 1, expected: [ResultCategory(index: mp.index, score: mp.score,
                                                                 categoryName: mp.name, displayName: nil)])
    }

    // MARK: Running mode tests

    func testCreateImageClassifierFailsWithDelegateInNonLiveStreamMode() throws {
        for mode in [RunningMode.image, .video] {
            let o = try options()
            o.runningMode = mode
            o.imageClassifierLiveStreamDelegate = self
            assertEqualErrors(thrownError { _ = try ImageClassifier(options: o) },
                              "The vision task is in image or video mode. The delegate must not be set in the "
                              + "task's options.")
        }
    }

    func testCreateImageClassifierFailsWithMissingDelegateInLiveStreamMode() throws {
        let o = try options()
        o.runningMode = .liveStream
        assertEqualErrors(thrownError { _ = try ImageClassifier(options: o) },
                          "The vision task is in live stream mode. An object must be set as the delegate of the "
                          + "task in its options to ensure asynchronous delivery of results.")
    }

    func testClassifyFailsWithCallingWrongApiInImageMode() throws {
        let classifier = try ImageClassifier(options: try options())
        let image = try Self.burger()
        assertEqualErrors(thrownError { try classifier.classifyAsync(image: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with live stream mode. Current Running Mode: Image")
        assertEqualErrors(thrownError { _ = try classifier.classify(videoFrame: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with video mode. Current Running Mode: Image")
    }

    func testClassifyFailsWithCallingWrongApiInVideoMode() throws {
        let o = try options()
        o.runningMode = .video
        let classifier = try ImageClassifier(options: o)
        let image = try Self.burger()
        assertEqualErrors(thrownError { try classifier.classifyAsync(image: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with live stream mode. Current Running Mode: Video")
        assertEqualErrors(thrownError { _ = try classifier.classify(image: image) },
                          "The vision task is not initialized with image mode. Current Running Mode: Video")
    }

    func testClassifyFailsWithCallingWrongApiInLiveStreamMode() throws {
        let o = try options()
        o.runningMode = .liveStream
        o.imageClassifierLiveStreamDelegate = self
        let classifier = try ImageClassifier(options: o)
        let image = try Self.burger()
        assertEqualErrors(thrownError { _ = try classifier.classify(image: image) },
                          "The vision task is not initialized with image mode. Current Running Mode: Live Stream")
        assertEqualErrors(thrownError { _ = try classifier.classify(videoFrame: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with video mode. Current Running Mode: Live Stream")
    }

    func testClassifyWithVideoModeSucceeds() throws {
        let o = try options()
        o.runningMode = .video
        o.maxResults = 3
        let classifier = try ImageClassifier(options: o)
        let image = try Self.burger()
        for i in 0..<3 {
            assertResult(try classifier.classify(videoFrame: image, timestampInMilliseconds: i), count: 3,
                         expected: try Self.expectedBurgerCategories())
        }
    }

    func testClassifyWithOutOfOrderTimestampsAndLiveStreamModeFails() throws {
        let o = try options()
        o.maxResults = 3
        o.runningMode = .liveStream
        o.imageClassifierLiveStreamDelegate = self
        let classifier = try ImageClassifier(options: o)
        outOfOrderClassifier = classifier
        let expectation = XCTestExpectation(description: "classifyWithOutOfOrderTimestampsAndLiveStream")
        expectation.expectedFulfillmentCount = 1
        liveStreamExpectation = expectation
        let image = try Self.burger()
        XCTAssertTrue(try classifier.classifyAsync(image: image, timestampInMilliseconds: 1))
        assertEqualErrors(thrownError { try classifier.classifyAsync(image: image, timestampInMilliseconds: 0) },
                          "INVALID_ARGUMENT: Input timestamp must be monotonically increasing.")
        wait(for: [expectation], timeout: 30)
        lock.lock(); defer { lock.unlock() }
        XCTAssertEqual(callbackErrors, [])
    }

    /// As the iOS test: at most `iterationCount` deliveries (frames in flight are dropped), each checked.
    func testClassifyWithLiveStreamModeSucceeds() throws {
        let iterationCount = 100
        let o = try options()
        o.maxResults = 3
        o.runningMode = .liveStream
        o.imageClassifierLiveStreamDelegate = self
        let classifier = try ImageClassifier(options: o)
        liveStreamClassifier = classifier
        let expectation = XCTestExpectation(description: "classifyWithLiveStream")
        expectation.expectedFulfillmentCount = iterationCount + 1
        expectation.isInverted = true
        liveStreamExpectation = expectation
        let image = try Self.burger()
        for i in 0..<iterationCount {
            _ = try classifier.classifyAsync(image: image, timestampInMilliseconds: i)
        }
        classifier.waitForPendingResults()
        wait(for: [expectation], timeout: 0.5)
        lock.lock(); defer { lock.unlock() }
        XCTAssertEqual(callbackErrors, [])
    }

    func imageClassifier(_ imageClassifier: ImageClassifier, didFinishClassification result: ImageClassifierResult?,
                         timestampInMilliseconds: Int, error: Error?) {
        let expected = (try? Self.expectedBurgerCategories()) ?? []
        let categories = result?.classificationResult.classifications.first?.categories ?? []
        let ok = error == nil && categories.count == 3 && zip(categories, expected).allSatisfy {
            $0.index == $1.index && abs($0.score - $1.score) <= 1e-2
        }
        lock.lock()
        if !ok { callbackErrors.append("frame \(timestampInMilliseconds): \(String(describing: error))") }
        lock.unlock()
        if imageClassifier === outOfOrderClassifier || imageClassifier === liveStreamClassifier {
            liveStreamExpectation?.fulfill()
        }
    }
}
