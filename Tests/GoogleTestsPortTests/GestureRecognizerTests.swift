import Foundation
import TasksVision
import TasksVisionImageIO
import XCTest

/// Port of mediapipe/tasks/ios/test/vision/gesture_recognizer/MPPGestureRecognizerTests.m: every
/// test keeps its name, options and expected texts. Google's images stand in as follows:
/// thumb_up.jpg is hand_thumb_up_1.png (the MediaPipe samples' thumb-up photo), fist.jpg is
/// hand_closed_fist_1.png, cats_and_dogs.jpg is negative_animals_1.png (the same photo, from
/// mediapipe-samples), right_hands.jpg is hands_two_1.png, and pointing_up_rotated.jpg is
/// hand_pointing_up_2.png turned in memory. Google's expected landmarks (fist_landmarks.pbtxt,
/// thumb_up_landmarks.pbtxt) are of their photos; on ours the results are compared with
/// MediaPipe 1.2.3's (Tests/Fixtures/hands/image_gestures.json and gesture_filters.json) at the
/// iOS tests' tolerance, 0.03.
final class MPPGestureRecognizerTests: XCTestCase, GestureRecognizerLiveStreamDelegate {
    static let kGestureRecognizerBundleAssetFile = "gesture_recognizer.task"
    static let kTwoHandsImage = "hands_two_1.png"
    static let kFistImage = "hand_closed_fist_1.png"
    static let kNoHandsImage = "negative_animals_1.png"
    static let kThumbUpImage = "hand_thumb_up_1.png"
    static let kPointingUpImage = "hand_pointing_up_2.png"
    static let kFistLabel = "Closed_Fist"
    static let kExpectedThumbUpLabel = "Thumb_Up"
    static let kExpectedPointingUpLabel = "Pointing_Up"
    static let kGestureExpectedIndex = -1
    static let kLandmarksErrorTolerance: Float = 0.03

    // Live-stream bookkeeping (`_liveStreamSucceedsTestDict`, `_outOfOrderTimestampTestDict`).
    var liveStreamExpectation: XCTestExpectation?
    var liveStreamResults: [GestureRecognizerResult] = []
    let lock = NSLock()

    // MARK: Expected results (MediaPipe 1.2.3 on our photos)

    static func expected(_ file: String) throws -> MediaPipeHands {
        try MediaPipeHands.load(file, fixture: "image_gestures.json")
    }

    /// `assertGestureRecognizerResult:isApproximatelyEqualToExpectedResult:` on the top hand: the
    /// hand counts, its wrist within the tolerance, its gesture's index and name.
    func assertResult(_ result: GestureRecognizerResult?, approximatelyEquals expected: MediaPipeHands,
                      file: StaticString = #filePath, line: UInt = #line) {
        guard let result else { return XCTFail("no result", file: file, line: line) }
        XCTAssertEqual(result.landmarks.count, expected.wrists.count, file: file, line: line)
        XCTAssertEqual(result.worldLandmarks.count, expected.wrists.count, file: file, line: line)
        XCTAssertEqual(result.gestures.count, expected.gestures.count, file: file, line: line)
        guard let top = result.landmarks.first, let wrist = expected.wrists.first else { return }
        XCTAssertEqual(top.count, 21, file: file, line: line)
        XCTAssertEqual(top[0].x, wrist.x, accuracy: Self.kLandmarksErrorTolerance, file: file, line: line)
        XCTAssertEqual(top[0].y, wrist.y, accuracy: Self.kLandmarksErrorTolerance, file: file, line: line)
        XCTAssertEqual(result.gestures.first?.count, 1, file: file, line: line)
        XCTAssertEqual(result.gestures.first?.first?.index, Self.kGestureExpectedIndex, file: file, line: line)
        XCTAssertEqual(result.gestures.first?.first?.categoryName, expected.gestures.first, file: file, line: line)
    }

    /// `AssertGestureRecognizerResultIsEmpty`.
    func assertIsEmpty(_ result: GestureRecognizerResult, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.gestures.count, 0, file: file, line: line)
        XCTAssertEqual(result.handedness.count, 0, file: file, line: line)
        XCTAssertEqual(result.landmarks.count, 0, file: file, line: line)
        XCTAssertEqual(result.worldLandmarks.count, 0, file: file, line: line)
    }

    func options() throws -> GestureRecognizerOptions {
        let o = GestureRecognizerOptions()
        o.baseOptions.modelAssetPath = try Port.model(Self.kGestureRecognizerBundleAssetFile)
        return o
    }

    func recognize(_ file: String, _ recognizer: GestureRecognizer) throws -> GestureRecognizerResult {
        try recognizer.recognize(image: try Port.image(file))
    }

    // MARK: General tests

    func testRecognizeWithModelPathSucceeds() throws {
        let recognizer = try GestureRecognizer(modelPath: try Port.model(Self.kGestureRecognizerBundleAssetFile))
        assertResult(try recognize(Self.kThumbUpImage, recognizer),
                     approximatelyEquals: try Self.expected(Self.kThumbUpImage))
    }

    func testRecognizeWithEmptyResultsSucceeds() throws {
        let recognizer = try GestureRecognizer(options: try options())
        assertIsEmpty(try recognize(Self.kNoHandsImage, recognizer))
    }

    func testRecognizeWithScoreThresholdSucceeds() throws {
        let o = try options()
        o.cannedGesturesClassifierOptions = ClassifierOptions()
        o.cannedGesturesClassifierOptions?.scoreThreshold = 0.5
        let result = try recognize(Self.kThumbUpImage, try GestureRecognizer(options: o))
        XCTAssertEqual(result.gestures.count, 1)
        XCTAssertEqual(result.gestures.first?.first?.index, Self.kGestureExpectedIndex)
        XCTAssertEqual(result.gestures.first?.first?.categoryName, Self.kExpectedThumbUpLabel)
    }

    func testRecognizeWithNumHandsSucceeds() throws {
        let o = try options()
        let numHands = 2
        o.numHands = numHands
        let result = try recognize(Self.kTwoHandsImage, try GestureRecognizer(options: o))
        XCTAssertEqual(result.handedness.count, numHands)
    }

    func testRecognizeWithRotationSucceeds() throws {
        let o = try options()
        o.numHands = 1
        let recognizer = try GestureRecognizer(options: o)
        let result = try recognizer.recognize(image: try Port.turnedImage(Self.kPointingUpImage))
        XCTAssertEqual(result.gestures.count, 1)
        XCTAssertEqual(result.gestures.first?.first?.categoryName, Self.kExpectedPointingUpLabel)
    }

    func testRecognizeWithCannedGestureFistSucceeds() throws {
        let o = try options()
        o.numHands = 1
        let expected = try Self.expected(Self.kFistImage)
        XCTAssertEqual(expected.gestures, [Self.kFistLabel])
        assertResult(try recognize(Self.kFistImage, try GestureRecognizer(options: o)), approximatelyEquals: expected)
    }

    func testRecognizeWithAllowGestureFistSucceeds() throws {
        let o = try options()
        o.cannedGesturesClassifierOptions = ClassifierOptions()
        o.cannedGesturesClassifierOptions?.scoreThreshold = 0.5
        o.cannedGesturesClassifierOptions?.categoryAllowlist = [Self.kFistLabel]
        o.numHands = 1
        assertResult(try recognize(Self.kFistImage, try GestureRecognizer(options: o)),
                     approximatelyEquals: try Self.expected(Self.kFistImage))
    }

    func testRecognizeWithDenyGestureFistSucceeds() throws {
        let o = try options()
        o.cannedGesturesClassifierOptions = ClassifierOptions()
        o.cannedGesturesClassifierOptions?.scoreThreshold = 0.5
        o.cannedGesturesClassifierOptions?.categoryDenylist = [Self.kFistLabel]
        o.numHands = 1
        assertIsEmpty(try recognize(Self.kFistImage, try GestureRecognizer(options: o)))
    }

    func testRecognizeWithPreferAllowlistOverDenylistSucceeds() throws {
        let o = try options()
        o.cannedGesturesClassifierOptions = ClassifierOptions()
        o.cannedGesturesClassifierOptions?.scoreThreshold = 0.5
        o.cannedGesturesClassifierOptions?.categoryAllowlist = [Self.kFistLabel]
        o.cannedGesturesClassifierOptions?.categoryDenylist = [Self.kFistLabel]
        o.numHands = 1
        assertResult(try recognize(Self.kFistImage, try GestureRecognizer(options: o)),
                     approximatelyEquals: try Self.expected(Self.kFistImage))
    }

    // MARK: Running mode tests

    func testCreateGestureRecognizerFailsWithDelegateInNonLiveStreamMode() throws {
        for mode in [RunningMode.image, .video] {
            let o = try options()
            o.runningMode = mode
            o.gestureRecognizerLiveStreamDelegate = self
            assertEqualErrors(thrownError { _ = try GestureRecognizer(options: o) },
                              "The vision task is in image or video mode. The "
                                + "delegate must not be set in the task's options.")
        }
    }

    func testCreateGestureRecognizerFailsWithMissingDelegateInLiveStreamMode() throws {
        let o = try options()
        o.runningMode = .liveStream
        assertEqualErrors(thrownError { _ = try GestureRecognizer(options: o) },
                          "The vision task is in live stream mode. An "
                            + "object must be set as the delegate of the task "
                            + "in its options to ensure asynchronous delivery "
                            + "of results.")
    }

    func testRecognizeFailsWithCallingWrongApiInImageMode() throws {
        let recognizer = try GestureRecognizer(options: try options())
        let image = try Port.image(Self.kFistImage)
        assertEqualErrors(thrownError { try recognizer.recognizeAsync(image: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with live "
                            + "stream mode. Current Running Mode: Image")
        assertEqualErrors(thrownError { _ = try recognizer.recognize(videoFrame: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with "
                            + "video mode. Current Running Mode: Image")
    }

    func testRecognizeFailsWithCallingWrongApiInVideoMode() throws {
        let o = try options()
        o.runningMode = .video
        let recognizer = try GestureRecognizer(options: o)
        let image = try Port.image(Self.kFistImage)
        assertEqualErrors(thrownError { try recognizer.recognizeAsync(image: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with live "
                            + "stream mode. Current Running Mode: Video")
        assertEqualErrors(thrownError { _ = try recognizer.recognize(image: image) },
                          "The vision task is not initialized with "
                            + "image mode. Current Running Mode: Video")
    }

    func testRecognizeFailsWithCallingWrongApiInLiveStreamMode() throws {
        let o = try options()
        o.runningMode = .liveStream
        o.gestureRecognizerLiveStreamDelegate = self
        let recognizer = try GestureRecognizer(options: o)
        let image = try Port.image(Self.kFistImage)
        assertEqualErrors(thrownError { _ = try recognizer.recognize(image: image) },
                          "The vision task is not initialized with "
                            + "image mode. Current Running Mode: Live Stream")
        assertEqualErrors(thrownError { _ = try recognizer.recognize(videoFrame: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with "
                            + "video mode. Current Running Mode: Live Stream")
    }

    func testRecognizeWithVideoModeSucceeds() throws {
        let o = try options()
        o.runningMode = .video
        let recognizer = try GestureRecognizer(options: o)
        let image = try Port.image(Self.kThumbUpImage)
        let expected = try Self.expected(Self.kThumbUpImage)
        for i in 0..<3 {
            assertResult(try recognizer.recognize(videoFrame: image, timestampInMilliseconds: i),
                         approximatelyEquals: expected)
        }
    }

    func testRecognizeWithOutOfOrderTimestampsAndLiveStreamModeFails() throws {
        let o = try options()
        o.runningMode = .liveStream
        o.gestureRecognizerLiveStreamDelegate = self
        let expectation = XCTestExpectation(description: "recognizeWithOutOfOrderTimestampsAndLiveStream")
        expectation.expectedFulfillmentCount = 1
        liveStreamExpectation = expectation
        let recognizer = try GestureRecognizer(options: o)
        let image = try Port.image(Self.kThumbUpImage)
        // Objective-C's `XCTAssertTrue([... error:nil])` is "does not throw" in Swift.
        XCTAssertNoThrow(try recognizer.recognizeAsync(image: image, timestampInMilliseconds: 1))
        assertEqualErrors(thrownError { try recognizer.recognizeAsync(image: image, timestampInMilliseconds: 0) },
                          "INVALID_ARGUMENT: Input timestamp must be monotonically increasing.")
        // MediaPipe refuses an equal timestamp too.
        assertEqualErrors(thrownError { try recognizer.recognizeAsync(image: image, timestampInMilliseconds: 1) },
                          "INVALID_ARGUMENT: Input timestamp must be monotonically increasing.")
        // The iOS test waits 0.5 s on a phone's GPU-less CPU build; ours waits for the one result.
        wait(for: [expectation], timeout: 30)
        recognizer.waitForPendingResults()
        lock.lock(); let results = liveStreamResults; lock.unlock()
        XCTAssertEqual(results.count, 1)
        assertResult(results.first, approximatelyEquals: try Self.expected(Self.kThumbUpImage))
    }

    func testRecognizeWithLiveStreamModeSucceeds() throws {
        let o = try options()
        o.runningMode = .liveStream
        o.gestureRecognizerLiveStreamDelegate = self
        let iterationCount = 100
        // As in the iOS test: frames may be dropped, so the delegate is called at most iterationCount times.
        let expectation = XCTestExpectation(description: "recognizeWithLiveStream")
        expectation.expectedFulfillmentCount = iterationCount + 1
        expectation.isInverted = true
        liveStreamExpectation = expectation
        let recognizer = try GestureRecognizer(options: o)
        let image = try Port.image(Self.kThumbUpImage)
        for i in 0..<iterationCount {
            XCTAssertNoThrow(try recognizer.recognizeAsync(image: image, timestampInMilliseconds: i))
        }
        recognizer.waitForPendingResults()
        wait(for: [expectation], timeout: 0.5)
        lock.lock(); let results = liveStreamResults; lock.unlock()
        XCTAssertGreaterThan(results.count, 0)
        let expected = try Self.expected(Self.kThumbUpImage)
        for r in results { assertResult(r, approximatelyEquals: expected) }
    }

    func gestureRecognizer(_ gestureRecognizer: GestureRecognizer,
                           didFinishRecognition result: GestureRecognizerResult?,
                           timestampInMilliseconds: Int, error: Error?) {
        XCTAssertNil(error)
        lock.lock()
        if let result { liveStreamResults.append(result) }
        let expectation = liveStreamExpectation
        lock.unlock()
        expectation?.fulfill()
    }
}
