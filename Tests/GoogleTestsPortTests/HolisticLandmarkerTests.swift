import Foundation
import TasksVision
import TasksVisionImageIO
import XCTest

/// MediaPipe 1.2.3's HolisticLandmarker on one of our photos (Tests/Fixtures/holistic/image_rot0.json, upright):
/// its parts' x, y and the blendshape scores, as Google's tests compare them.
struct MediaPipeHolistic {
    let face: [SIMD2<Float>], pose: [SIMD2<Float>], leftHand: [SIMD2<Float>], rightHand: [SIMD2<Float>]
    let blendshapes: [Float]

    static func load(_ file: String) throws -> MediaPipeHolistic {
        struct Fixture: Decodable {
            struct Entry: Decodable {
                let file: String; let rotation: Int
                let faceLandmarks: [[Float?]], poseLandmarks: [[Float?]], leftHandLandmarks: [[Float?]]
                let rightHandLandmarks: [[Float?]], faceBlendshapes: [Float]
            }
            let results: [Entry]
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: Port.fixtures + "/holistic/image_rot0.json"))
        guard let e = try JSONDecoder().decode(Fixture.self, from: data).results.first(where: {
            $0.file == file && $0.rotation == 0
        }) else { throw CocoaError(.fileReadCorruptFile) }
        let xy = { (rows: [[Float?]]) in
            rows.map { SIMD2(($0.first ?? nil) ?? .nan, ($0.count > 1 ? $0[1] : nil) ?? .nan) }
        }
        return MediaPipeHolistic(face: xy(e.faceLandmarks), pose: xy(e.poseLandmarks),
                                 leftHand: xy(e.leftHandLandmarks), rightHand: xy(e.rightHandLandmarks),
                                 blendshapes: e.faceBlendshapes)
    }
}

/// Port of mediapipe/tasks/ios/test/vision/holistic_landmarker/MPPHolisticLandmarkerTests.mm and of the runnable
/// cases of mediapipe/tasks/cc/vision/holistic_landmarker/holistic_landmarker_test.cc. Google's
/// male_full_height_hands.jpg (with its expected result, male_full_height_hands_result_cpu.pbtxt) is not here:
/// our pose_standing_1.png stands in (a woman standing full body, face and both hands visible), compared with
/// MediaPipe 1.2.3's result on it at the tests' tolerances (0.03 for landmarks, 0.13 for blendshapes). cat.jpg
/// is negative_coffee_1.png (MediaPipe finds no person there; on our cats-and-dogs photo it finds one).
/// portrait.jpg is here (face_frontal_1.png, tfjs's portrait.jpg): the face-only case runs on it, and its face
/// is also held to Google's expected face landmarks and blendshapes of that photo (portrait_expected_*.pbtxt,
/// Tests/Fixtures/face_landmarks/google_portrait_expected.json) at the holistic tests' tolerances.
///
/// One deliberate difference: MediaPipe refuses a region of interest ("This task doesn't support
/// region-of-interest."); here it is taken, and the result is the crop's, in the whole image.
final class MPPHolisticLandmarkerTests: XCTestCase, HolisticLandmarkerLiveStreamDelegate {
    static let kHolisticLandmarkerBundleAssetFile = "holistic_landmarker_assembled.task"
    static let kHolisticImage = "pose_standing_1.png"
    static let kCatImage = "negative_coffee_1.png"
    static let kPortraitImage = "face_frontal_1.png"
    static let kLandmarksErrorTolerance: Float = 0.03
    static let kFaceBlendshapesErrorTolerance: Float = 0.13

    var liveStreamExpectation: XCTestExpectation?
    var liveStreamResults: [(HolisticLandmarkerResult, Int)] = []
    let lock = NSLock()

    func options() throws -> HolisticLandmarkerOptions {
        let o = HolisticLandmarkerOptions()
        o.baseOptions.modelAssetPath = try Port.model(Self.kHolisticLandmarkerBundleAssetFile)
        return o
    }

    func assertLandmarks(_ landmarks: [NormalizedLandmark], _ expected: [SIMD2<Float>], _ name: String,
                         file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(landmarks.count, expected.count, name, file: file, line: line)
        for (i, (lm, e)) in zip(landmarks, expected).enumerated() {
            XCTAssertEqual(lm.x, e.x, accuracy: Self.kLandmarksErrorTolerance, "\(name) \(i)", file: file, line: line)
            XCTAssertEqual(lm.y, e.y, accuracy: Self.kLandmarksErrorTolerance, "\(name) \(i)", file: file, line: line)
        }
    }

    /// `assertHolisticLandmarkerResult:isApproximatelyEqualToExpectedResult:`: every part's landmarks, the world
    /// landmarks' counts, and the blendshapes when the expected result has them.
    func assertResult(_ result: HolisticLandmarkerResult?, approximatelyEquals expected: MediaPipeHolistic,
                      blendshapes: Bool = false, file: StaticString = #filePath, line: UInt = #line) {
        guard let result else { return XCTFail("no result", file: file, line: line) }
        assertLandmarks(result.faceLandmarks, expected.face, "face_landmarks", file: file, line: line)
        assertLandmarks(result.poseLandmarks, expected.pose, "pose_landmarks", file: file, line: line)
        XCTAssertEqual(result.poseWorldLandmarks.count, expected.pose.count, file: file, line: line)
        assertLandmarks(result.leftHandLandmarks, expected.leftHand, "left_hand_landmarks", file: file, line: line)
        XCTAssertEqual(result.leftHandWorldLandmarks.count, expected.leftHand.count, file: file, line: line)
        assertLandmarks(result.rightHandLandmarks, expected.rightHand, "right_hand_landmarks", file: file, line: line)
        XCTAssertEqual(result.rightHandWorldLandmarks.count, expected.rightHand.count, file: file, line: line)
        let scores = result.faceBlendshapes?.categories ?? []
        XCTAssertEqual(scores.count, blendshapes ? expected.blendshapes.count : 0, file: file, line: line)
        for (i, (c, e)) in zip(scores, expected.blendshapes).enumerated() {
            XCTAssertEqual(c.index, i, file: file, line: line)
            XCTAssertEqual(c.score, e, accuracy: Self.kFaceBlendshapesErrorTolerance, "index i = \(i)", file: file,
                           line: line)
            XCTAssertEqual(c.categoryName, HolisticLandmarker.blendshapeNames[i], file: file, line: line)
            XCTAssertNil(c.displayName, file: file, line: line)
        }
    }

    // MARK: General tests

    func testDetectWithModelPathSucceeds() throws {
        let landmarker = try HolisticLandmarker(modelPath: try Port.model(Self.kHolisticLandmarkerBundleAssetFile))
        assertResult(try landmarker.detect(image: try Port.image(Self.kHolisticImage)),
                     approximatelyEquals: try MediaPipeHolistic.load(Self.kHolisticImage))
    }

    func testDetectWithOptionsSucceeds() throws {
        let landmarker = try HolisticLandmarker(options: try options())
        let result = try landmarker.detect(image: try Port.image(Self.kHolisticImage))
        assertResult(result, approximatelyEquals: try MediaPipeHolistic.load(Self.kHolisticImage))
        XCTAssertNil(result.poseSegmentationMask, "not asked for")
    }

    func testDetectWithEmptyResultSucceeds() throws {
        let landmarker = try HolisticLandmarker(options: try options())
        let result = try landmarker.detect(image: try Port.image(Self.kCatImage))
        XCTAssertTrue(try MediaPipeHolistic.load(Self.kCatImage).pose.isEmpty, "MediaPipe finds no person either")
        XCTAssertEqual(result.faceLandmarks.count, 0)
        XCTAssertNil(result.faceBlendshapes)
        XCTAssertNil(result.poseSegmentationMask)
        XCTAssertEqual(result.poseLandmarks.count + result.leftHandLandmarks.count + result.rightHandLandmarks.count, 0)
    }

    func testDetectWithFaceBlendshapesSucceeds() throws {
        let o = try options()
        o.outputFaceBlendshapes = true
        let landmarker = try HolisticLandmarker(options: o)
        assertResult(try landmarker.detect(image: try Port.image(Self.kHolisticImage)),
                     approximatelyEquals: try MediaPipeHolistic.load(Self.kHolisticImage), blendshapes: true)
    }

    func testDetectWithSegmentationMasksSucceeds() throws {
        let o = try options()
        o.outputPoseSegmentationMasks = true
        let landmarker = try HolisticLandmarker(options: o)
        let image = try Port.image(Self.kHolisticImage)
        let result = try landmarker.detect(image: image)
        assertResult(result, approximatelyEquals: try MediaPipeHolistic.load(Self.kHolisticImage))
        let mask = try XCTUnwrap(result.poseSegmentationMask)
        XCTAssertEqual(mask.width, image.width)
        XCTAssertEqual(mask.height, image.height)
    }

    /// holistic_landmarker_test.cc's SucceedsWithFaceOnly on portrait.jpg, with Google's expected face of that
    /// photo (from the face landmarker's tests) at the holistic tests' tolerances.
    func testSucceedsWithFaceOnly() throws {
        struct Expected: Decodable {
            struct Category: Decodable { let score: Float; let categoryName: String }
            let landmarks: [[Float]]
            let blendshapes: [Category]
        }
        let expected = try JSONDecoder().decode(Expected.self, from: Data(contentsOf: URL(
            fileURLWithPath: Port.fixtures + "/face_landmarks/google_portrait_expected.json")))
        let o = try options()
        o.outputFaceBlendshapes = true
        let result = try HolisticLandmarker(options: o).detect(image: try Port.image(Self.kPortraitImage))
        XCTAssertFalse(result.faceLandmarks.isEmpty)
        assertLandmarks(result.faceLandmarks, expected.landmarks.map { SIMD2($0[0], $0[1]) }, "portrait face")
        let scores = result.faceBlendshapes?.categories ?? []
        XCTAssertEqual(scores.count, expected.blendshapes.count)
        for (c, e) in zip(scores, expected.blendshapes) {
            XCTAssertEqual(c.categoryName, e.categoryName)
            XCTAssertEqual(c.score, e.score, accuracy: Self.kFaceBlendshapesErrorTolerance, e.categoryName)
        }
    }

    /// holistic_landmarker_test.cc's FailsWithRegionOfInterest, the other way round: the region is taken.
    func testRegionOfInterestIsTaken() throws {
        let landmarker = try HolisticLandmarker(options: try options())
        let image = try Port.image(Self.kHolisticImage)
        let roi = CGRect(x: 0.1, y: 0, width: 0.8, height: 1)
        let result = try landmarker.detect(image: image,
                                           imageProcessingOptions: ImageProcessingOptions(regionOfInterest: roi))
        XCTAssertEqual(result.poseLandmarks.count, 33)
        // Normalized to the whole image: the nose lies where the whole image's result has it, within the tolerance.
        let whole = try landmarker.detect(image: image)
        XCTAssertEqual(result.poseLandmarks[0].x, whole.poseLandmarks[0].x, accuracy: Self.kLandmarksErrorTolerance)
        XCTAssertEqual(result.poseLandmarks[0].y, whole.poseLandmarks[0].y, accuracy: Self.kLandmarksErrorTolerance)
    }

    // MARK: Running mode tests

    func testCreateHolisticLandmarkerFailsWithMissingDelegateInLiveStreamMode() throws {
        let o = try options()
        o.runningMode = .liveStream
        assertEqualErrors(thrownError { _ = try HolisticLandmarker(options: o) },
                          "The vision task is in live stream mode. An "
                            + "object must be set as the delegate of the task "
                            + "in its options to ensure asynchronous delivery "
                            + "of results.")
    }

    func testDetectFailsWithCallingWrongApiInImageMode() throws {
        let landmarker = try HolisticLandmarker(options: try options())
        let image = try Port.image(Self.kHolisticImage)
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
        let landmarker = try HolisticLandmarker(options: o)
        let image = try Port.image(Self.kHolisticImage)
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
        o.holisticLandmarkerLiveStreamDelegate = self
        let landmarker = try HolisticLandmarker(options: o)
        let image = try Port.image(Self.kHolisticImage)
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
        let landmarker = try HolisticLandmarker(options: o)
        let image = try Port.image(Self.kHolisticImage)
        let expected = try MediaPipeHolistic.load(Self.kHolisticImage)
        for i in 0..<3 {
            assertResult(try landmarker.detect(videoFrame: image, timestampInMilliseconds: i),
                         approximatelyEquals: expected)
        }
    }

    func testDetectWithOutOfOrderTimestampsAndLiveStreamModeFails() throws {
        let o = try options()
        o.runningMode = .liveStream
        o.holisticLandmarkerLiveStreamDelegate = self
        let expectation = XCTestExpectation(description: "detectWiththOutOfOrderTimestampsAndLiveStream")
        expectation.expectedFulfillmentCount = 1
        liveStreamExpectation = expectation
        let landmarker = try HolisticLandmarker(options: o)
        let image = try Port.image(Self.kHolisticImage)
        XCTAssertTrue(try landmarker.detectAsync(image: image, timestampInMilliseconds: 1))
        assertEqualErrors(thrownError { try landmarker.detectAsync(image: image, timestampInMilliseconds: 0) },
                          "INVALID_ARGUMENT: Input timestamp must be monotonically increasing.")
        wait(for: [expectation], timeout: 30)
        landmarker.waitForPendingResults()
        lock.lock(); let results = liveStreamResults; lock.unlock()
        XCTAssertEqual(results.count, 1)
        assertResult(results.first?.0, approximatelyEquals: try MediaPipeHolistic.load(Self.kHolisticImage))
    }

    func testDetectWithLiveStreamModeSucceeds() throws {
        let o = try options()
        o.runningMode = .liveStream
        o.holisticLandmarkerLiveStreamDelegate = self
        let iterationCount = 100
        let expectation = XCTestExpectation(description: "detectWithLiveStream")
        expectation.expectedFulfillmentCount = iterationCount + 1
        expectation.isInverted = true
        liveStreamExpectation = expectation
        let landmarker = try HolisticLandmarker(options: o)
        let image = try Port.image(Self.kHolisticImage)
        for i in 0..<iterationCount {
            XCTAssertNoThrow(try landmarker.detectAsync(image: image, timestampInMilliseconds: i))
        }
        landmarker.waitForPendingResults()
        wait(for: [expectation], timeout: 0.5)
        lock.lock(); let results = liveStreamResults; lock.unlock()
        XCTAssertGreaterThan(results.count, 0)
        let expected = try MediaPipeHolistic.load(Self.kHolisticImage)
        for (r, _) in results { assertResult(r, approximatelyEquals: expected) }
    }

    /// holistic_landmarker_test.cc's LiveStreamModeTest.Succeeds: the callback's timestamp is the frame's.
    func testLiveStreamResultCarriesItsTimestamp() throws {
        let o = try options()
        o.runningMode = .liveStream
        let done = XCTestExpectation(description: "live result")
        var received: [Int] = []
        o.resultCallback = { result, timestamp in
            if case .failure(let error) = result { XCTFail("\(error)") }
            received.append(timestamp)
            done.fulfill()
        }
        let landmarker = try HolisticLandmarker(options: o)
        XCTAssertTrue(try landmarker.detectAsync(image: try Port.image(Self.kHolisticImage),
                                                 timestampInMilliseconds: 1337))
        wait(for: [done], timeout: 30)
        landmarker.waitForPendingResults()
        XCTAssertEqual(received, [1337])
    }

    func holisticLandmarker(_ holisticLandmarker: HolisticLandmarker,
                            didFinishDetection result: HolisticLandmarkerResult?, timestampInMilliseconds: Int,
                            error: Error?) {
        XCTAssertNil(error)
        lock.lock()
        if let result { liveStreamResults.append((result, timestampInMilliseconds)) }
        let expectation = liveStreamExpectation
        lock.unlock()
        expectation?.fulfill()
    }
}
