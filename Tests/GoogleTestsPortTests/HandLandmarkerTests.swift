import Foundation
import TasksVision
import TasksVisionImageIO
import XCTest

/// Port of mediapipe/tasks/ios/test/vision/hand_landmarker/MPPHandLandmarkerTests.m. Google's
/// images stand in as in `MPPGestureRecognizerTests`; expected landmarks are MediaPipe 1.2.3's on
/// our photos (Tests/Fixtures/hands/image_hands.json), at the iOS test's tolerance 0.03.
final class MPPHandLandmarkerTests: XCTestCase, HandLandmarkerLiveStreamDelegate {
    static let kHandLandmarkerBundleAssetFile = "hand_landmarker.task"
    static let kTwoHandsImage = "hands_two_1.png"
    static let kNoHandsImage = "negative_animals_1.png"
    static let kThumbUpImage = "hand_thumb_up_1.png"
    static let kPointingUpImage = "hand_pointing_up_2.png"
    static let kLandmarksErrorTolerance: Float = 0.03

    var liveStreamExpectation: XCTestExpectation?
    var liveStreamResults: [HandLandmarkerResult] = []
    let lock = NSLock()

    static func expected(_ file: String) throws -> MediaPipeHands {
        try MediaPipeHands.load(file, fixture: "image_hands.json")
    }

    /// `assertHandLandmarkerResult:isApproximatelyEqualToExpectedResult:` on the top hand.
    func assertResult(_ result: HandLandmarkerResult?, approximatelyEquals expected: MediaPipeHands,
                      file: StaticString = #filePath, line: UInt = #line) {
        guard let result else { return XCTFail("no result", file: file, line: line) }
        XCTAssertEqual(result.landmarks.count, expected.wrists.count, file: file, line: line)
        XCTAssertEqual(result.worldLandmarks.count, expected.wrists.count, file: file, line: line)
        guard let top = result.landmarks.first, let wrist = expected.wrists.first else { return }
        XCTAssertEqual(top.count, 21, file: file, line: line)
        XCTAssertEqual(top[0].x, wrist.x, accuracy: Self.kLandmarksErrorTolerance, file: file, line: line)
        XCTAssertEqual(top[0].y, wrist.y, accuracy: Self.kLandmarksErrorTolerance, file: file, line: line)
    }

    /// `AssertHandLandmarkerResultIsEmpty`.
    func assertIsEmpty(_ result: HandLandmarkerResult, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.handedness.count, 0, file: file, line: line)
        XCTAssertEqual(result.landmarks.count, 0, file: file, line: line)
        XCTAssertEqual(result.worldLandmarks.count, 0, file: file, line: line)
    }

    func options() throws -> HandLandmarkerOptions {
        let o = HandLandmarkerOptions()
        o.baseOptions.modelAssetPath = try Port.model(Self.kHandLandmarkerBundleAssetFile)
        return o
    }

    // MARK: General tests

    func testDetectWithModelPathSucceeds() throws {
        let landmarker = try HandLandmarker(modelPath: try Port.model(Self.kHandLandmarkerBundleAssetFile))
        assertResult(try landmarker.detect(image: try Port.image(Self.kThumbUpImage)),
                     approximatelyEquals: try Self.expected(Self.kThumbUpImage))
    }

    func testDetectWithEmptyResultsSucceeds() throws {
        let landmarker = try HandLandmarker(options: try options())
        assertIsEmpty(try landmarker.detect(image: try Port.image(Self.kNoHandsImage)))
    }

    func testDetectWithNumHandsSucceeds() throws {
        let o = try options()
        let numHands = 2
        o.numHands = numHands
        let result = try HandLandmarker(options: o).detect(image: try Port.image(Self.kTwoHandsImage))
        XCTAssertEqual(result.handedness.count, numHands)
    }

    /// Google's pointing_up_rotated.jpg, passed as `UIImageOrientationRight` (which shows it upside
    /// down; the gesture test passes it as `Left`); here our pointing-up photo turned in memory, with
    /// the orientation that shows it upright. MediaPipe gives landmarks in the stored pixels'
    /// coordinates, we give them in the displayed image's, so ours are compared with MediaPipe's on
    /// the upright photo.
    func testDetectWithRotationSucceeds() throws {
        let landmarker = try HandLandmarker(options: try options())
        let result = try landmarker.detect(image: try Port.turnedImage(Self.kPointingUpImage))
        assertResult(result, approximatelyEquals: try Self.expected(Self.kPointingUpImage))
    }

    // MARK: Running mode tests

    func testCreateHandLandmarkerFailsWithDelegateInNonLiveStreamMode() throws {
        for mode in [RunningMode.image, .video] {
            let o = try options()
            o.runningMode = mode
            o.handLandmarkerLiveStreamDelegate = self
            assertEqualErrors(thrownError { _ = try HandLandmarker(options: o) },
                              "The vision task is in image or video mode. The "
                                + "delegate must not be set in the task's options.")
        }
    }

    func testCreateHandLandmarkerFailsWithMissingDelegateInLiveStreamMode() throws {
        let o = try options()
        o.runningMode = .liveStream
        assertEqualErrors(thrownError { _ = try HandLandmarker(options: o) },
                          "The vision task is in live stream mode. An "
                            + "object must be set as the delegate of the task "
                            + "in its options to ensure asynchronous delivery "
                            + "of results.")
    }

    func testDetectFailsWithCallingWrongApiInImageMode() throws {
        let landmarker = try HandLandmarker(options: try options())
        let image = try Port.image(Self.kThumbUpImage)
        assertEqualErrors(thrownError { try landmarker.detectAsync(image: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with live "
                            + "stream mode. Current Running Mode: Image")
        assertEqualErrors(thrownError { _ = try landmarker.detect(videoFrame: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with "
                            + "video mode. Current Running Mode: Image")
    }

    func testDetectFailsWithCallingWrongApiInVideoMode() throws {
        let o = try options()
        o.runningMode = .video
        let landmarker = try HandLandmarker(options: o)
        let image = try Port.image(Self.kThumbUpImage)
        assertEqualErrors(thrownError { try landmarker.detectAsync(image: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with live "
                            + "stream mode. Current Running Mode: Video")
        assertEqualErrors(thrownError { _ = try landmarker.detect(image: image) },
                          "The vision task is not initialized with "
                            + "image mode. Current Running Mode: Video")
    }

    func testDetectFailsWithCallingWrongApiInLiveStreamMode() throws {
        let o = try options()
        o.runningMode = .liveStream
        o.handLandmarkerLiveStreamDelegate = self
        let landmarker = try HandLandmarker(options: o)
        let image = try Port.image(Self.kThumbUpImage)
        assertEqualErrors(thrownError { _ = try landmarker.detect(image: image) },
                          "The vision task is not initialized with "
                            + "image mode. Current Running Mode: Live Stream")
        assertEqualErrors(thrownError { _ = try landmarker.detect(videoFrame: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with "
                            + "video mode. Current Running Mode: Live Stream")
    }

    func testDetectWithVideoModeSucceeds() throws {
        let o = try options()
        o.runningMode = .video
        let landmarker = try HandLandmarker(options: o)
        let image = try Port.image(Self.kThumbUpImage)
        let expected = try Self.expected(Self.kThumbUpImage)
        for i in 0..<3 {
            assertResult(try landmarker.detect(videoFrame: image, timestampInMilliseconds: i),
                         approximatelyEquals: expected)
        }
    }

    func testDetectWithOutOfOrderTimestampsAndLiveStreamModeFails() throws {
        let o = try options()
        o.runningMode = .liveStream
        o.handLandmarkerLiveStreamDelegate = self
        let expectation = XCTestExpectation(description: "detectWiththOutOfOrderTimestampsAndLiveStream")
        expectation.expectedFulfillmentCount = 1
        liveStreamExpectation = expectation
        let landmarker = try HandLandmarker(options: o)
        let image = try Port.image(Self.kThumbUpImage)
        XCTAssertNoThrow(try landmarker.detectAsync(image: image, timestampInMilliseconds: 1))
        assertEqualErrors(thrownError { try landmarker.detectAsync(image: image, timestampInMilliseconds: 0) },
                          "INVALID_ARGUMENT: Input timestamp must be monotonically increasing.")
        wait(for: [expectation], timeout: 30)
        landmarker.waitForPendingResults()
        lock.lock(); let results = liveStreamResults; lock.unlock()
        XCTAssertEqual(results.count, 1)
        assertResult(results.first, approximatelyEquals: try Self.expected(Self.kThumbUpImage))
    }

    func testDetectWithLiveStreamModeSucceeds() throws {
        let o = try options()
        o.runningMode = .liveStream
        o.handLandmarkerLiveStreamDelegate = self
        let iterationCount = 100
        let expectation = XCTestExpectation(description: "detectWithLiveStream")
        expectation.expectedFulfillmentCount = iterationCount + 1
        expectation.isInverted = true
        liveStreamExpectation = expectation
        let landmarker = try HandLandmarker(options: o)
        let image = try Port.image(Self.kThumbUpImage)
        for i in 0..<iterationCount {
            XCTAssertNoThrow(try landmarker.detectAsync(image: image, timestampInMilliseconds: i))
        }
        landmarker.waitForPendingResults()
        wait(for: [expectation], timeout: 0.5)
        lock.lock(); let results = liveStreamResults; lock.unlock()
        XCTAssertGreaterThan(results.count, 0)
        let expected = try Self.expected(Self.kThumbUpImage)
        for r in results { assertResult(r, approximatelyEquals: expected) }
    }

    func handLandmarker(_ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?,
                        timestampInMilliseconds: Int, error: Error?) {
        XCTAssertNil(error)
        lock.lock()
        if let result { liveStreamResults.append(result) }
        let expectation = liveStreamExpectation
        lock.unlock()
        expectation?.fulfill()
    }
}
