import Foundation
import TasksVision
import TasksVisionImageIO
import XCTest

/// Port of mediapipe/tasks/ios/test/vision/face_detector/MPPFaceDetectorTests.mm. Google's
/// portrait.jpg is our face_frontal_1.png (the same photo: MediaPipe 1.2.3's keypoints on ours
/// lie within the test's 1e-2 of Google's expected ones), portrait_rotated.jpg is that photo
/// turned in memory, and cat.jpg is negative_animals_1.png. The expected keypoints are the iOS
/// test's, verbatim.
final class MPPFaceDetectorTests: XCTestCase, FaceDetectorLiveStreamDelegate {
    static let kPortraitImage = "face_frontal_1.png"
    static let kCatImage = "negative_animals_1.png"
    static let kShortRangeBlazeFaceModel = "face_detection_short_range"
    static let kFullRangeBlazeFaceModel = "face_detection_full_range"
    static let kPortraitExpectedKeypoints: [[Float]] = [
        [0.44416, 0.17643], [0.55514, 0.17731], [0.50467, 0.22657],
        [0.50227, 0.27199], [0.36063, 0.20143], [0.60841, 0.20409],
    ]
    static let kPortraitRotatedExpectedKeypoints: [[Float]] = [
        [0.82075, 0.44679], [0.81965, 0.56261], [0.76194, 0.51719],
        [0.71993, 0.51719], [0.80700, 0.36298], [0.80882, 0.61204],
    ]
    static let kPortraitFullRangeExpectedKeypoints: [[Float]] = [
        [0.44088, 0.17409], [0.55402, 0.17958], [0.49858, 0.22155],
        [0.49662, 0.26796], [0.37493, 0.20280], [0.61058, 0.20888],
    ]
    static let kKeypointErrorThreshold: Float = 1e-2

    var liveStreamExpectation: XCTestExpectation?
    var liveStreamResults: [FaceDetectorResult] = []
    let lock = NSLock()

    func options(_ model: String) throws -> FaceDetectorOptions {
        let o = FaceDetectorOptions()
        o.baseOptions.modelAssetPath = try Port.model(model + ".tflite")
        return o
    }

    /// `assertFaceDetectorResult:containsExpectedKeypoints:`: one face, its six keypoints.
    /// `stored` maps our keypoints (in the displayed image) to the stored pixels, where MediaPipe reports them.
    func assertResult(_ result: FaceDetectorResult?, containsExpectedKeypoints expected: [[Float]],
                      stored orientation: ImageOrientation = .up, file: StaticString = #filePath, line: UInt = #line) {
        guard let result else { return XCTFail("no result", file: file, line: line) }
        XCTAssertEqual(result.detections.count, 1, file: file, line: line)
        guard let keypoints = result.detections.first?.keypoints else {
            return XCTFail("no keypoints", file: file, line: line)
        }
        XCTAssertEqual(keypoints.count, expected.count, file: file, line: line)
        for (i, k) in keypoints.enumerated() where i < expected.count {
            let p = orientation.storedPoint(fromDisplay: (x: Float(k.location.x), y: Float(k.location.y)))
            XCTAssertEqual(p.x, expected[i][0], accuracy: Self.kKeypointErrorThreshold, "index i = \(i)",
                           file: file, line: line)
            XCTAssertEqual(p.y, expected[i][1], accuracy: Self.kKeypointErrorThreshold, "index i = \(i)",
                           file: file, line: line)
        }
    }

    // MARK: General tests

    /// The iOS test passes a nil path (`pathForResource:@""` finds nothing).
    func testCreateFaceDetectorWithMissingModelPathFails() throws {
        assertEqualErrors(thrownError { _ = try FaceDetector(options: FaceDetectorOptions()) },
                          "INVALID_ARGUMENT: ExternalFile must specify at least one of 'file_content', "
                            + "'file_name', 'file_pointer_meta' or 'file_descriptor_meta'.")
    }

    // MARK: Image mode tests

    func testDetectWithImageModeAndPotraitSucceeds() throws {
        let detector = try FaceDetector(modelPath: try Port.model(Self.kShortRangeBlazeFaceModel + ".tflite"))
        assertResult(try detector.detect(image: try Port.image(Self.kPortraitImage)),
                     containsExpectedKeypoints: Self.kPortraitExpectedKeypoints)
    }

    func testDetectWithImageModeAndFullRangeSucceeds() throws {
        let o = try options(Self.kFullRangeBlazeFaceModel)
        o.runningMode = .image
        let detector = try FaceDetector(options: o)
        assertResult(try detector.detect(image: try Port.image(Self.kPortraitImage)),
                     containsExpectedKeypoints: Self.kPortraitFullRangeExpectedKeypoints)
    }

    /// MediaPipe reports keypoints in the stored (turned) pixels, we in the displayed image: ours
    /// are mapped back before the comparison with Google's numbers.
    func testDetectWithImageModeAndRotatedPotraitSucceeds() throws {
        let detector = try FaceDetector(modelPath: try Port.model(Self.kShortRangeBlazeFaceModel + ".tflite"))
        let image = try Port.turnedImage(Self.kPortraitImage)
        assertResult(try detector.detect(image: image),
                     containsExpectedKeypoints: Self.kPortraitRotatedExpectedKeypoints, stored: image.orientation)
    }

    func testDetectWithImageModeAndNoFaceSucceeds() throws {
        let detector = try FaceDetector(modelPath: try Port.model(Self.kShortRangeBlazeFaceModel + ".tflite"))
        let result = try detector.detect(image: try Port.image(Self.kCatImage))
        XCTAssertEqual(result.detections.count, 0)
    }

    // MARK: Video mode tests

    func testDetectWithVideoModeAndPotraitSucceeds() throws {
        let o = try options(Self.kShortRangeBlazeFaceModel)
        o.runningMode = .video
        let detector = try FaceDetector(options: o)
        let image = try Port.image(Self.kPortraitImage)
        for i in 0..<3 {
            assertResult(try detector.detect(videoFrame: image, timestampInMilliseconds: i),
                         containsExpectedKeypoints: Self.kPortraitExpectedKeypoints)
        }
    }

    func testDetectWithVideoModeAndRotatedPotraitSucceeds() throws {
        let o = try options(Self.kShortRangeBlazeFaceModel)
        o.runningMode = .video
        let detector = try FaceDetector(options: o)
        let image = try Port.turnedImage(Self.kPortraitImage)
        for i in 0..<3 {
            assertResult(try detector.detect(videoFrame: image, timestampInMilliseconds: i),
                         containsExpectedKeypoints: Self.kPortraitRotatedExpectedKeypoints, stored: image.orientation)
        }
    }

    // MARK: Live stream mode tests

    func testDetectWithLiveStreamModeAndPotraitSucceeds() throws { try liveStreamSucceeds() }

    func testDetectWithLiveStreamModeSucceeds() throws { try liveStreamSucceeds() }

    /// The two iOS live-stream tests differ only in where they stand in the file.
    func liveStreamSucceeds() throws {
        let iterationCount = 100
        let expectation = XCTestExpectation(description: "detectWithOutOfOrderTimestampsAndLiveStream")
        expectation.expectedFulfillmentCount = iterationCount + 1
        expectation.isInverted = true
        liveStreamExpectation = expectation
        let o = try options(Self.kShortRangeBlazeFaceModel)
        o.runningMode = .liveStream
        o.faceDetectorLiveStreamDelegate = self
        let detector = try FaceDetector(options: o)
        let image = try Port.image(Self.kPortraitImage)
        for i in 0..<iterationCount {
            XCTAssertNoThrow(try detector.detectAsync(image: image, timestampInMilliseconds: i))
        }
        detector.waitForPendingResults()
        wait(for: [expectation], timeout: 0.5)
        lock.lock(); let results = liveStreamResults; lock.unlock()
        XCTAssertGreaterThan(results.count, 0)
        for r in results { assertResult(r, containsExpectedKeypoints: Self.kPortraitExpectedKeypoints) }
    }

    func testDetectWithOutOfOrderTimestampsAndLiveStreamModeFails() throws {
        let o = try options(Self.kShortRangeBlazeFaceModel)
        o.runningMode = .liveStream
        o.faceDetectorLiveStreamDelegate = self
        let expectation = XCTestExpectation(description: "detectWithOutOfOrderTimestampsAndLiveStream")
        expectation.expectedFulfillmentCount = 1
        liveStreamExpectation = expectation
        let detector = try FaceDetector(options: o)
        let image = try Port.image(Self.kPortraitImage)
        XCTAssertNoThrow(try detector.detectAsync(image: image, timestampInMilliseconds: 1))
        assertEqualErrors(thrownError { try detector.detectAsync(image: image, timestampInMilliseconds: 0) },
                          "INVALID_ARGUMENT: Input timestamp must be monotonically increasing.")
        wait(for: [expectation], timeout: 30)
        detector.waitForPendingResults()
        lock.lock(); let results = liveStreamResults; lock.unlock()
        XCTAssertEqual(results.count, 1)
        assertResult(results.first, containsExpectedKeypoints: Self.kPortraitExpectedKeypoints)
    }

    // MARK: Running mode tests

    func testCreateFaceDetectorFailsWithDelegateInNonLiveStreamMode() throws {
        for mode in [RunningMode.image, .video] {
            let o = try options(Self.kShortRangeBlazeFaceModel)
            o.runningMode = mode
            o.faceDetectorLiveStreamDelegate = self
            assertEqualErrors(thrownError { _ = try FaceDetector(options: o) },
                              "The vision task is in image or video mode. The "
                                + "delegate must not be set in the task's options.")
        }
    }

    func testCreateFaceDetectorFailsWithMissingDelegateInLiveStreamMode() throws {
        let o = try options(Self.kShortRangeBlazeFaceModel)
        o.runningMode = .liveStream
        assertEqualErrors(thrownError { _ = try FaceDetector(options: o) },
                          "The vision task is in live stream mode. An "
                            + "object must be set as the delegate of the task "
                            + "in its options to ensure asynchronous delivery "
                            + "of results.")
    }

    func testDetectFailsWithCallingWrongApiInImageMode() throws {
        let detector = try FaceDetector(options: try options(Self.kShortRangeBlazeFaceModel))
        let image = try Port.image(Self.kPortraitImage)
        assertEqualErrors(thrownError { try detector.detectAsync(image: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with live "
                            + "stream mode. Current Running Mode: Image")
        assertEqualErrors(thrownError { _ = try detector.detect(videoFrame: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with "
                            + "video mode. Current Running Mode: Image")
    }

    func testDetectFailsWithCallingWrongApiInVideoMode() throws {
        let o = try options(Self.kShortRangeBlazeFaceModel)
        o.runningMode = .video
        let detector = try FaceDetector(options: o)
        let image = try Port.image(Self.kPortraitImage)
        assertEqualErrors(thrownError { try detector.detectAsync(image: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with live "
                            + "stream mode. Current Running Mode: Video")
        assertEqualErrors(thrownError { _ = try detector.detect(image: image) },
                          "The vision task is not initialized with "
                            + "image mode. Current Running Mode: Video")
    }

    func testDetectFailsWithCallingWrongApiInLiveStreamMode() throws {
        let o = try options(Self.kShortRangeBlazeFaceModel)
        o.runningMode = .liveStream
        o.faceDetectorLiveStreamDelegate = self
        let detector = try FaceDetector(options: o)
        let image = try Port.image(Self.kPortraitImage)
        assertEqualErrors(thrownError { _ = try detector.detect(image: image) },
                          "The vision task is not initialized with "
                            + "image mode. Current Running Mode: Live Stream")
        assertEqualErrors(thrownError { _ = try detector.detect(videoFrame: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with "
                            + "video mode. Current Running Mode: Live Stream")
    }

    func faceDetector(_ faceDetector: FaceDetector, didFinishDetection result: FaceDetectorResult?,
                      timestampInMilliseconds: Int, error: Error?) {
        XCTAssertNil(error)
        lock.lock()
        if let result { liveStreamResults.append(result) }
        let expectation = liveStreamExpectation
        lock.unlock()
        expectation?.fulfill()
    }
}
