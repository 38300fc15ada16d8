import Foundation
import TasksVision
import TasksVisionImageIO
import XCTest

/// Port of mediapipe/tasks/ios/test/vision/object_detector/MPPObjectDetectorTests.m. Google's model
/// (coco_ssd_mobilenet_v1, with non-maximum suppression inside) and cats_and_dogs.jpg are not here: the cases
/// run on efficientdet_lite0.tflite and Google's burger.jpg (../shared/testdata/google), and the expected
/// detections are MediaPipe 1.2.3's on those (Python Tasks API), written out as the iOS test writes its own.
/// The iOS test's tolerances (10 pixels, 0.02) are kept for the comparison, though ours equal MediaPipe's.
/// Its rotated image is burger.jpg turned clockwise in memory with `.left` (MediaPipe's rotation_degrees 270),
/// whose boxes MediaPipe reports in the turned pixels; ours, in the displayed image, are turned back first.
final class MPPObjectDetectorTests: XCTestCase, ObjectDetectorLiveStreamDelegate {
    static let kModelName = "efficientdet_lite0"
    static let kBurgerImage = "burger.jpg"
    static let pixelDifferenceTolerance: CGFloat = 10
    static let scoreDifferenceTolerance: Float = 0.02

    var liveStreamExpectation: XCTestExpectation?
    var liveStreamResults: [(ObjectDetectorResult, Int)] = []
    let lock = NSLock()

    static func detection(_ score: Float, _ name: String, _ x: Int, _ y: Int, _ w: Int, _ h: Int) -> Detection {
        Detection(categories: [ResultCategory(index: -1, score: score, categoryName: name, displayName: nil)],
                  boundingBox: CGRect(x: x, y: y, width: w, height: h))
    }

    /// `expectedDetectionResultForCatsAndDogsImageWithTimestampInMilliseconds:`, on burger.jpg.
    static func expectedBurgerResult(timestamp: Int = 0) -> ObjectDetectorResult {
        ObjectDetectorResult(detections: [
            detection(0.71875, "sandwich", 10, 36, 404, 289),
            detection(0.5, "sandwich", 298, 2, 174, 140),
            detection(0.36328125, "sandwich", 374, 98, 101, 173),
            detection(0.16796875, "carrot", 331, 2, 90, 37),
        ], timestampInMilliseconds: timestamp)
    }

    static func burger() throws -> MPImage {
        try MPImage(contentsOfFile: Port.shared + "/testdata/google/" + kBurgerImage)
    }

    func options() throws -> ObjectDetectorOptions {
        let o = ObjectDetectorOptions()
        o.baseOptions.modelAssetPath = try Port.model(Self.kModelName + ".tflite")
        return o
    }

    /// `assertDetections:isEqualToExpectedDetections:`.
    func assertDetections(_ detections: [Detection], equal expected: [Detection], file: StaticString = #filePath,
                          line: UInt = #line) {
        for (i, d) in detections.enumerated() where i < expected.count {
            for (j, c) in d.categories.enumerated() where j < expected[i].categories.count {
                let e = expected[i].categories[j]
                XCTAssertEqual(c.index, e.index, "detection \(i) category \(j)", file: file, line: line)
                XCTAssertEqual(c.score, e.score, accuracy: Self.scoreDifferenceTolerance, "detection \(i)",
                               file: file, line: line)
                XCTAssertEqual(c.categoryName, e.categoryName, "detection \(i)", file: file, line: line)
                XCTAssertEqual(c.displayName, e.displayName, "detection \(i)", file: file, line: line)
            }
            let (b, e) = (d.boundingBox, expected[i].boundingBox)
            for (v, w) in [(b.minX, e.minX), (b.minY, e.minY), (b.width, e.width), (b.height, e.height)] {
                XCTAssertEqual(v, w, accuracy: Self.pixelDifferenceTolerance, "detection \(i)", file: file, line: line)
            }
        }
    }

    /// `assertObjectDetectorResult:isEqualToExpectedResult:expectedDetectionsCount:`.
    func assertResult(_ result: ObjectDetectorResult?, equals expected: ObjectDetectorResult, count: Int,
                      file: StaticString = #filePath, line: UInt = #line) {
        guard let result else { return XCTFail("no result", file: file, line: line) }
        XCTAssertEqual(result.detections.count, count, file: file, line: line)
        assertDetections(Array(result.detections.prefix(expected.detections.count)), equal: expected.detections,
                         file: file, line: line)
        XCTAssertEqual(result.timestampInMilliseconds, expected.timestampInMilliseconds, file: file, line: line)
    }

    /// `assertResultsOfDetectInImage:usingObjectDetector:maxResults:equalsObjectDetectorResult:`.
    func assertDetect(_ detector: ObjectDetector, maxResults: Int, equals expected: ObjectDetectorResult,
                      file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try detector.detect(image: try Self.burger())
        assertResult(result, equals: expected, count: maxResults > 0 ? maxResults : result.detections.count,
                     file: file, line: line)
    }

    // MARK: General tests

    func testCreateObjectDetectorWithMissingModelPathFails() throws {
        assertEqualErrors(thrownError { _ = try ObjectDetector(options: ObjectDetectorOptions()) },
                          "INVALID_ARGUMENT: ExternalFile must specify at least one of 'file_content', "
                            + "'file_name', 'file_pointer_meta' or 'file_descriptor_meta'.")
    }

    func testCreateObjectDetectorAllowlistAndDenylistFails() throws {
        let o = try options()
        o.categoryAllowlist = ["cat"]
        o.categoryDenylist = ["dog"]
        assertEqualErrors(thrownError { _ = try ObjectDetector(options: o) },
                          "INVALID_ARGUMENT: `category_allowlist` and `category_denylist` are mutually exclusive "
                            + "options.")
    }

    func testDetectWithModelPathSucceeds() throws {
        let detector = try ObjectDetector(modelPath: try Port.model(Self.kModelName + ".tflite"))
        try assertDetect(detector, maxResults: -1, equals: Self.expectedBurgerResult())
    }

    func testDetectWithOptionsSucceeds() throws {
        try assertDetect(try ObjectDetector(options: try options()), maxResults: -1,
                         equals: Self.expectedBurgerResult())
    }

    func testDetectWithMaxResultsSucceeds() throws {
        let o = try options()
        o.maxResults = 4
        try assertDetect(try ObjectDetector(options: o), maxResults: 4, equals: Self.expectedBurgerResult())
    }

    func testDetectWithScoreThresholdSucceeds() throws {
        let o = try options()
        o.scoreThreshold = 0.68
        try assertDetect(try ObjectDetector(options: o), maxResults: -1, equals: ObjectDetectorResult(
            detections: [Self.detection(0.71875, "sandwich", 10, 36, 404, 289)]))
        let result = try ObjectDetector(options: o).detect(image: try Self.burger())
        XCTAssertEqual(result.detections.count, 1)
    }

    func testDetectWithCategoryAllowlistSucceeds() throws {
        let o = try options()
        o.categoryAllowlist = ["sandwich"]
        try assertDetect(try ObjectDetector(options: o), maxResults: -1, equals: ObjectDetectorResult(detections: [
            Self.detection(0.71875, "sandwich", 10, 36, 404, 289),
            Self.detection(0.5, "sandwich", 298, 2, 174, 140),
            Self.detection(0.36328125, "sandwich", 375, 111, 100, 167),
            Self.detection(0.09765625, "sandwich", 310, 0, 141, 44),
            Self.detection(0.08984375, "sandwich", 0, 278, 167, 43),
        ]))
    }

    func testDetectWithCategoryDenylistSucceeds() throws {
        let o = try options()
        o.categoryDenylist = ["sandwich"]
        try assertDetect(try ObjectDetector(options: o), maxResults: -1, equals: ObjectDetectorResult(detections: [
            Self.detection(0.16796875, "carrot", 331, 2, 90, 37),
            Self.detection(0.14453125, "dining table", 8, 26, 410, 290),
            Self.detection(0.12109375, "hot dog", 380, 130, 97, 140),
            Self.detection(0.09765625, "orange", 0, 180, 42, 97),
            Self.detection(0.09765625, "pizza", 303, 0, 174, 140),
        ]))
    }

    /// MediaPipe's box is in the turned pixels (325 x 480): (0, 1, 289, 404). Ours is in the displayed (upright)
    /// image; turned back by `.left` (stored x = displayed height - 1 - y edge) it is the same box.
    func testDetectWithOrientationSucceeds() throws {
        let o = try options()
        o.maxResults = 1
        let detector = try ObjectDetector(options: o)
        let image = try Self.turnedBurger()
        let result = try detector.detect(image: image)
        XCTAssertEqual(result.detections.count, 1)
        let d = try XCTUnwrap(result.detections.first)
        // Displayed (x, y) of the upright image is stored (H - y, x) of the clockwise-turned pixels.
        let b = d.boundingBox
        let stored = CGRect(x: CGFloat(image.pixelWidth) - b.maxY, y: b.minX, width: b.height, height: b.width)
        assertDetections([Detection(categories: d.categories, boundingBox: stored)],
                         equal: [Self.detection(0.73828125, "sandwich", 0, 1, 289, 404)])
    }

    /// burger.jpg's pixels turned 90 degrees clockwise, with `.left` to show them upright (as `Port.turnedImage`).
    static func turnedBurger() throws -> MPImage {
        let d = try ImageFile.read(Port.shared + "/testdata/google/" + kBurgerImage)
        let (w, h, n) = (d.width, d.height, d.channels)
        var stored = [UInt8](repeating: 0, count: w * h * n)
        for y in 0..<w {
            for x in 0..<h {
                let from = ((h - 1 - x) * w + y) * n, to = (y * h + x) * n
                for c in 0..<n { stored[to + c] = d.pixels[from + c] }
            }
        }
        return try MPImage(pixels: stored, width: h, height: w, pixelFormat: n == 3 ? .rgb8 : .rgba8,
                           orientation: .left)
    }

    // MARK: Running mode tests

    func testCreateObjectDetectorFailsWithDelegateInNonLiveStreamMode() throws {
        for mode in [RunningMode.image, .video] {
            let o = try options()
            o.runningMode = mode
            o.objectDetectorLiveStreamDelegate = self
            assertEqualErrors(thrownError { _ = try ObjectDetector(options: o) },
                              "The vision task is in image or video mode. The delegate must not be set in the task's "
                                + "options.")
        }
    }

    func testCreateObjectDetectorFailsWithMissingDelegateInLiveStreamMode() throws {
        let o = try options()
        o.runningMode = .liveStream
        assertEqualErrors(thrownError { _ = try ObjectDetector(options: o) },
                          "The vision task is in live stream mode. An object must be set as the delegate of the task "
                            + "in its options to ensure asynchronous delivery of results.")
    }

    func testDetectFailsWithCallingWrongApiInImageMode() throws {
        let detector = try ObjectDetector(options: try options())
        let image = try Self.burger()
        assertEqualErrors(thrownError { try detector.detectAsync(image: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with live stream mode. Current Running Mode: Image")
        assertEqualErrors(thrownError { _ = try detector.detect(videoFrame: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with video mode. Current Running Mode: Image")
    }

    func testDetectFailsWithCallingWrongApiInVideoMode() throws {
        let o = try options()
        o.runningMode = .video
        let detector = try ObjectDetector(options: o)
        let image = try Self.burger()
        assertEqualErrors(thrownError { try detector.detectAsync(image: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with live stream mode. Current Running Mode: Video")
        assertEqualErrors(thrownError { _ = try detector.detect(image: image) },
                          "The vision task is not initialized with image mode. Current Running Mode: Video")
    }

    func testDetectFailsWithCallingWrongApiInLiveStreamMode() throws {
        let o = try options()
        o.runningMode = .liveStream
        o.objectDetectorLiveStreamDelegate = self
        let detector = try ObjectDetector(options: o)
        let image = try Self.burger()
        assertEqualErrors(thrownError { _ = try detector.detect(image: image) },
                          "The vision task is not initialized with image mode. Current Running Mode: Live Stream")
        assertEqualErrors(thrownError { _ = try detector.detect(videoFrame: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with video mode. Current Running Mode: Live Stream")
    }

    /// The iOS name (`testClassifyWithVideoModeSucceeds`) is kept.
    func testClassifyWithVideoModeSucceeds() throws {
        let o = try options()
        o.runningMode = .video
        o.maxResults = 4
        let detector = try ObjectDetector(options: o)
        let image = try Self.burger()
        for i in 0..<3 {
            assertResult(try detector.detect(videoFrame: image, timestampInMilliseconds: i),
                         equals: Self.expectedBurgerResult(timestamp: i), count: 4)
        }
    }

    func testDetectWithOutOfOrderTimestampsAndLiveStreamModeFails() throws {
        let o = try options()
        o.maxResults = 4
        o.runningMode = .liveStream
        o.objectDetectorLiveStreamDelegate = self
        let expectation = XCTestExpectation(description: "detectWithOutOfOrderTimestampsAndLiveStream")
        expectation.expectedFulfillmentCount = 1
        liveStreamExpectation = expectation
        let detector = try ObjectDetector(options: o)
        let image = try Self.burger()
        XCTAssertTrue(try detector.detectAsync(image: image, timestampInMilliseconds: 1))
        assertEqualErrors(thrownError { try detector.detectAsync(image: image, timestampInMilliseconds: 0) },
                          "INVALID_ARGUMENT: Input timestamp must be monotonically increasing.")
        wait(for: [expectation], timeout: 30)
        detector.waitForPendingResults()
        lock.lock(); let results = liveStreamResults; lock.unlock()
        XCTAssertEqual(results.count, 1)
        for (r, t) in results { assertResult(r, equals: Self.expectedBurgerResult(timestamp: t), count: 4) }
    }

    func testDetectWithLiveStreamModeSucceeds() throws {
        let o = try options()
        o.maxResults = 4
        o.runningMode = .liveStream
        let iterationCount = 100
        let expectation = XCTestExpectation(description: "detectWithOutOfOrderTimestampsAndLiveStream")
        expectation.expectedFulfillmentCount = iterationCount + 1
        expectation.isInverted = true
        liveStreamExpectation = expectation
        o.objectDetectorLiveStreamDelegate = self
        let detector = try ObjectDetector(options: o)
        let image = try Self.burger()
        for i in 0..<iterationCount {
            XCTAssertNoThrow(try detector.detectAsync(image: image, timestampInMilliseconds: i))
        }
        detector.waitForPendingResults()
        wait(for: [expectation], timeout: 0.5)
        lock.lock(); let results = liveStreamResults; lock.unlock()
        XCTAssertGreaterThan(results.count, 0)
        for (r, t) in results { assertResult(r, equals: Self.expectedBurgerResult(timestamp: t), count: 4) }
    }

    func objectDetector(_ objectDetector: ObjectDetector, didFinishDetection result: ObjectDetectorResult?,
                        timestampInMilliseconds: Int, error: Error?) {
        XCTAssertNil(error)
        lock.lock()
        if let result { liveStreamResults.append((result, timestampInMilliseconds)) }
        let expectation = liveStreamExpectation
        lock.unlock()
        expectation?.fulfill()
    }
}
