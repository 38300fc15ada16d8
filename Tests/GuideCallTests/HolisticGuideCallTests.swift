import Foundation
import TasksVision
import TasksVisionImageIO
import XCTest

// The calls of MediaPipe's holistic landmark detection guide for iOS, as its example app's service
// (mediapipe-samples examples/holistic_landmarker/ios, HolisticLandmarkerService.swift, which the guide names as
// its key component) makes them: the options, the three running modes, the live-stream delegate and the result's
// parts. Public import only; `UIImage` becomes `MPImage(contentsOfFile:)`, `Bundle.main` `models` (see
// GuideCallTests.swift), and the app's holistic_landmarker.task is found as `ModelLocator` describes (the
// assembled bundle standing in for it).

class HolisticLandmarkerResultProcessor: NSObject, HolisticLandmarkerLiveStreamDelegate {
    let done = XCTestExpectation(description: "holistic result")
    var poseLandmarks = -1

    func holisticLandmarker(
        _ holisticLandmarker: HolisticLandmarker,
        didFinishDetection result: HolisticLandmarkerResult?,
        timestampInMilliseconds: Int,
        error: Error?) {
        // Process the holistic landmarker result or errors here.
        poseLandmarks = result?.poseLandmarks.count ?? -1
        done.fulfill()
    }
}

final class HolisticGuideCallTests: XCTestCase {
    func photo(_ name: String) throws -> MPImage { try MPImage(contentsOfFile: photos + "/" + name) }

    func holisticLandmarker(_ runningMode: RunningMode,
                            delegate: HolisticLandmarkerLiveStreamDelegate? = nil) throws -> HolisticLandmarker {
        let modelPath = models.path(forResource: "holistic_landmarker",
                                    ofType: "task")
        let (minFaceDetectionConfidence, minFacePresenceConfidence): (Float, Float) = (0.5, 0.5)
        let (minPoseDetectionConfidence, minPosePresenceConfidence): (Float, Float) = (0.5, 0.5)
        let minHandLandmarksConfidence: Float = 0.5

        let holisticLandmarkerOptions = HolisticLandmarkerOptions()
        holisticLandmarkerOptions.runningMode = runningMode
        holisticLandmarkerOptions.minFaceDetectionConfidence = minFaceDetectionConfidence
        holisticLandmarkerOptions.minFacePresenceConfidence = minFacePresenceConfidence
        holisticLandmarkerOptions.minPoseDetectionConfidence = minPoseDetectionConfidence
        holisticLandmarkerOptions.minPosePresenceConfidence = minPosePresenceConfidence
        holisticLandmarkerOptions.minHandLandmarksConfidence = minHandLandmarksConfidence
        holisticLandmarkerOptions.baseOptions.modelAssetPath = modelPath
        holisticLandmarkerOptions.baseOptions.delegate = .CPU
        if runningMode == .liveStream {
            holisticLandmarkerOptions.holisticLandmarkerLiveStreamDelegate = delegate
        }
        return try HolisticLandmarker(options: holisticLandmarkerOptions)
    }

    func testImageMode() throws {
        let holisticLandmarker = try holisticLandmarker(.image)
        let mpImage = try photo("pose_standing_1.png")
        let result = try holisticLandmarker.detect(image: mpImage)
        XCTAssertEqual(result.poseLandmarks.count, 33)
        XCTAssertEqual(result.poseWorldLandmarks.count, 33)
        XCTAssertEqual(result.faceLandmarks.count, 478)
        XCTAssertEqual(result.leftHandLandmarks.count, 21)
        XCTAssertEqual(result.rightHandLandmarks.count, 21)
        XCTAssertNil(result.faceBlendshapes, "not asked for")
    }

    func testVideoMode() throws {
        let holisticLandmarker = try holisticLandmarker(.video)
        let inferenceIntervalMs = 100.0
        var results: [HolisticLandmarkerResult?] = []
        for i in 0..<3 {
            let timestampMs = Int(inferenceIntervalMs) * i
            let result = try holisticLandmarker.detect(
                videoFrame: try photo("pose_dance_1.png"),
                timestampInMilliseconds: timestampMs)
            results.append(result)
        }
        XCTAssertEqual(results.compactMap { $0?.poseLandmarks.count }, [33, 33, 33])
    }

    func testLiveStreamMode() throws {
        let processor = HolisticLandmarkerResultProcessor()
        let holisticLandmarker = try holisticLandmarker(.liveStream, delegate: processor)
        let image = try photo("pose_standing_1.png")
        try holisticLandmarker.detectAsync(image: image, timestampInMilliseconds: 0)
        wait(for: [processor.done], timeout: 30)
        XCTAssertEqual(processor.poseLandmarks, 33)
    }
}
