import Foundation
import TasksVision
import TasksVisionImageIO
import XCTest

/// Port of mediapipe/tasks/ios/test/vision/pose_landmarker/MPPPoseLandmarkerTests.mm. Google's
/// pose.jpg is our pose_yoga_1.png (tfjs's pose.jpg, a Warrior II on a beach), burger.jpg is
/// negative_coffee_1.png (a mug, no person); pose_landmarker.task is pose_landmarker_lite.task.
/// Expected landmarks are MediaPipe 1.2.3's on our photo (Tests/Fixtures/pose/image_lite.json), at the
/// iOS test's tolerance 0.03.
final class MPPPoseLandmarkerTests: XCTestCase, PoseLandmarkerLiveStreamDelegate {
    static let kPoseLandmarkerBundleAssetFile = "pose_landmarker_lite.task"
    static let kPoseImage = "pose_yoga_1.png"
    static let kNoPoseImage = "negative_coffee_1.png"
    static let kLandmarksErrorTolerance: Float = 0.03
    static let kVisibilityTolerance: Float = 0.9
    static let kPresenceTolerance: Float = 0.9

    var liveStreamExpectation: XCTestExpectation?
    var liveStreamResults: [PoseLandmarkerResult] = []
    let lock = NSLock()

    /// MediaPipe's landmarks (x, y) of each pose on a photo.
    static func expected(_ file: String) throws -> [[SIMD2<Float>]] {
        struct Fixture: Decodable {
            struct Pose: Decodable { let landmarks: [[Float]] }
            struct Entry: Decodable { let file: String; let rotation: Int?; let poses: [Pose] }
            let results: [Entry]
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: Port.fixtures + "/pose/image_lite.json"))
        let entries = try JSONDecoder().decode(Fixture.self, from: data).results
        guard let entry = entries.first(where: { $0.file == file && ($0.rotation ?? 0) == 0 }) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return entry.poses.map { $0.landmarks.map { SIMD2($0[0], $0[1]) } }
    }

    func options() throws -> PoseLandmarkerOptions {
        let o = PoseLandmarkerOptions()
        o.baseOptions.modelAssetPath = try Port.model(Self.kPoseLandmarkerBundleAssetFile)
        return o
    }

    /// `assertPoseLandmarkerResult:isApproximatelyEqualToExpectedResult:`: the pose count, the top
    /// pose's landmarks, and `assertLandmarksAreVisibleAndPresentInPoseLandmarkerResult:`, whose
    /// loop reads `landmarks[i]` (the pose index) where it means `landmarks[j]`, so it checks the
    /// first landmark of each pose; ported as it runs.
    func assertResult(_ result: PoseLandmarkerResult?, approximatelyEquals expected: [[SIMD2<Float>]],
                      file: StaticString = #filePath, line: UInt = #line) {
        guard let result else { return XCTFail("no result", file: file, line: line) }
        XCTAssertEqual(result.landmarks.count, expected.count, file: file, line: line)
        if let top = result.landmarks.first, let expectedTop = expected.first {
            XCTAssertEqual(top.count, expectedTop.count, file: file, line: line)
            for (j, lm) in top.enumerated() where j < expectedTop.count {
                XCTAssertEqual(lm.x, expectedTop[j].x, accuracy: Self.kLandmarksErrorTolerance,
                               "pose index = 0 landmark index j = \(j)", file: file, line: line)
                XCTAssertEqual(lm.y, expectedTop[j].y, accuracy: Self.kLandmarksErrorTolerance,
                               "pose index = 0 landmark index j = \(j)", file: file, line: line)
            }
        }
        for (i, landmarks) in result.landmarks.enumerated() where i < landmarks.count {
            XCTAssertGreaterThanOrEqual(landmarks[i].visibility ?? 0, Self.kVisibilityTolerance, file: file, line: line)
            XCTAssertGreaterThanOrEqual(landmarks[i].presence ?? 0, Self.kPresenceTolerance, file: file, line: line)
        }
    }

    // MARK: General tests

    func testDetectWithModelPathSucceeds() throws {
        let landmarker = try PoseLandmarker(modelPath: try Port.model(Self.kPoseLandmarkerBundleAssetFile))
        assertResult(try landmarker.detect(image: try Port.image(Self.kPoseImage)),
                     approximatelyEquals: try Self.expected(Self.kPoseImage))
    }

    func testDetectWithOptionsSucceeds() throws {
        let landmarker = try PoseLandmarker(options: try options())
        let result = try landmarker.detect(image: try Port.image(Self.kPoseImage))
        assertResult(result, approximatelyEquals: try Self.expected(Self.kPoseImage))
        // Not asked for, no masks (as MediaPipe's C++ and Python; see docs/mediapipe-behaviours.md for iOS).
        XCTAssertNil(result.segmentationMasks)
    }

    func testDetectWithEmptyResultsSucceeds() throws {
        let landmarker = try PoseLandmarker(options: try options())
        let result = try landmarker.detect(image: try Port.image(Self.kNoPoseImage))
        XCTAssertEqual(try Self.expected(Self.kNoPoseImage).count, 0, "MediaPipe finds no pose either")
        assertResult(result, approximatelyEquals: [])
        XCTAssertEqual(result.worldLandmarks.count, 0)
    }

    // MARK: Running mode tests

    func testCreatePoseLandmarkerFailsWithDelegateInNonLiveStreamMode() throws {
        for mode in [RunningMode.image, .video] {
            let o = try options()
            o.runningMode = mode
            o.poseLandmarkerLiveStreamDelegate = self
            assertEqualErrors(thrownError { _ = try PoseLandmarker(options: o) },
                              "The vision task is in image or video mode. The "
                                + "delegate must not be set in the task's options.")
        }
    }

    func testCreatePoseLandmarkerFailsWithMissingDelegateInLiveStreamMode() throws {
        let o = try options()
        o.runningMode = .liveStream
        assertEqualErrors(thrownError { _ = try PoseLandmarker(options: o) },
                          "The vision task is in live stream mode. An "
                            + "object must be set as the delegate of the task "
                            + "in its options to ensure asynchronous delivery "
                            + "of results.")
    }

    func testDetectFailsWithCallingWrongApiInImageMode() throws {
        let landmarker = try PoseLandmarker(options: try options())
        let image = try Port.image(Self.kPoseImage)
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
        let landmarker = try PoseLandmarker(options: o)
        let image = try Port.image(Self.kPoseImage)
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
        o.poseLandmarkerLiveStreamDelegate = self
        let landmarker = try PoseLandmarker(options: o)
        let image = try Port.image(Self.kPoseImage)
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
        let landmarker = try PoseLandmarker(options: o)
        let image = try Port.image(Self.kPoseImage)
        let expected = try Self.expected(Self.kPoseImage)
        for i in 0..<3 {
            assertResult(try landmarker.detect(videoFrame: image, timestampInMilliseconds: i),
                         approximatelyEquals: expected)
        }
    }

    func testDetectWithOutOfOrderTimestampsAndLiveStreamModeFails() throws {
        let o = try options()
        o.runningMode = .liveStream
        o.poseLandmarkerLiveStreamDelegate = self
        let expectation = XCTestExpectation(description: "detectWithOutOfOrderTimestampsAndLiveStream")
        expectation.expectedFulfillmentCount = 1
        liveStreamExpectation = expectation
        let landmarker = try PoseLandmarker(options: o)
        let image = try Port.image(Self.kPoseImage)
        XCTAssertNoThrow(try landmarker.detectAsync(image: image, timestampInMilliseconds: 1))
        assertEqualErrors(thrownError { try landmarker.detectAsync(image: image, timestampInMilliseconds: 0) },
                          "INVALID_ARGUMENT: Input timestamp must be monotonically increasing.")
        wait(for: [expectation], timeout: 30)
        landmarker.waitForPendingResults()
        lock.lock(); let results = liveStreamResults; lock.unlock()
        XCTAssertEqual(results.count, 1)
        assertResult(results.first, approximatelyEquals: try Self.expected(Self.kPoseImage))
    }

    func testDetectWithLiveStreamModeSucceeds() throws {
        let o = try options()
        o.runningMode = .liveStream
        o.poseLandmarkerLiveStreamDelegate = self
        let iterationCount = 100
        let expectation = XCTestExpectation(description: "detectWithLiveStream")
        expectation.expectedFulfillmentCount = iterationCount + 1
        expectation.isInverted = true
        liveStreamExpectation = expectation
        let landmarker = try PoseLandmarker(options: o)
        let image = try Port.image(Self.kPoseImage)
        for i in 0..<iterationCount {
            XCTAssertNoThrow(try landmarker.detectAsync(image: image, timestampInMilliseconds: i))
        }
        landmarker.waitForPendingResults()
        wait(for: [expectation], timeout: 0.5)
        lock.lock(); let results = liveStreamResults; lock.unlock()
        XCTAssertGreaterThan(results.count, 0)
        let expected = try Self.expected(Self.kPoseImage)
        for r in results { assertResult(r, approximatelyEquals: expected) }
    }

    func poseLandmarker(_ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
                        timestampInMilliseconds: Int, error: Error?) {
        XCTAssertNil(error)
        lock.lock()
        if let result { liveStreamResults.append(result) }
        let expectation = liveStreamExpectation
        lock.unlock()
        expectation?.fulfill()
    }
}
