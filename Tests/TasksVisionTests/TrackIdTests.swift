import Foundation
@testable import TasksVision
import XCTest

/// Track IDs on real sequences: stable while a hand or person is tracked, new after they leave
/// and come back, nil in image mode.
final class TrackIdTests: XCTestCase {
    func frames(_ sequence: String, _ range: Range<Int>) throws -> [MPImage] {
        try range.map { try TestImages.load(Paths.sequences + "/\(sequence)/" + String(format: "%04d.png", $0)) }
    }

    /// hand_asl_1 frames 0-19, three frames without hands, frames 20-39.
    func leaveAndReturn(_ sequence: String) throws -> [MPImage] {
        let empty = try TestImages.load(Paths.images + "/negative_coffee_1.png")
        return try frames(sequence, 0..<20) + [empty, empty, empty] + frames(sequence, 20..<40)
    }

    func testHandIdsStayWhileTrackedAndChangeWhenTheHandReturns() throws {
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = try Paths.model("hand_landmarker.task")
        options.runningMode = .video
        let landmarker = try HandLandmarker(options: options)
        var ids: [[Int]] = []
        for (i, frame) in try leaveAndReturn("hand_asl_1").enumerated() {
            let r = try landmarker.detect(videoFrame: frame, timestampInMilliseconds: i * 40)
            XCTAssertEqual(r.trackingIds?.count, r.landmarks.count)
            ids.append(r.trackingIds ?? [])
        }
        XCTAssertEqual(Set(ids[0..<20].joined()), [1], "\(ids)")
        XCTAssertEqual(ids[0..<20].map(\.count), Array(repeating: 1, count: 20))
        XCTAssertEqual(ids[20..<23].map(\.count), [0, 0, 0])
        XCTAssertEqual(Set(ids[23...].joined()), [2], "\(ids)")
        // The image mode has none.
        let still = try HandLandmarker(modelPath: try Paths.model("hand_landmarker.task"))
        XCTAssertNil(try still.detect(image: try frames("hand_asl_1", 0..<1)[0]).trackingIds)
    }

    func testTwoHandsKeepTwoIds() throws {
        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = try Paths.model("gesture_recognizer.task")
        options.runningMode = .video
        options.numHands = 2
        let recognizer = try GestureRecognizer(options: options)
        let two = try TestImages.load(Paths.images + "/hands_two_1.png")
        let empty = try TestImages.load(Paths.images + "/negative_coffee_1.png")
        var seen: [[Int]] = []
        for (i, frame) in [two, two, two, empty, two, two].enumerated() {
            seen.append(try recognizer.recognize(videoFrame: frame, timestampInMilliseconds: i * 33).trackingIds ?? [])
        }
        XCTAssertEqual(seen, [[1, 2], [1, 2], [1, 2], [], [3, 4], [3, 4]])
    }

    func testPoseIdsInBothShapes() throws {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = try Paths.model("pose_landmarker_lite.task")
        options.runningMode = .video
        let landmarker = try PoseLandmarker(options: options)
        let mlkit = PoseDetector.poseDetector(options: {
            let o = PoseDetectorOptions()
            o.modelAssetPath = (try? Paths.model("pose_landmarker_lite.task")) ?? ""
            return o
        }())
        var ids: [[Int]] = [], mlkitIds: [Int?] = []
        for (i, frame) in try leaveAndReturn("pose_dance_1").enumerated() {
            ids.append(try landmarker.detect(videoFrame: frame, timestampInMilliseconds: i * 33).trackingIds ?? [])
            mlkitIds.append(try mlkit.results(in: VisionImage(image: frame), timestampInMilliseconds: i * 33)
                .first?.trackingID)
        }
        XCTAssertEqual(Set(ids[0..<20].joined()), [1], "\(ids)")
        XCTAssertEqual(ids[20..<23].map(\.count), [0, 0, 0])
        XCTAssertEqual(Set(ids[23...].joined()), [2], "\(ids)")
        XCTAssertEqual(Set(mlkitIds[0..<20]), [1])
        XCTAssertEqual(Set(mlkitIds[23...]), [2])
        let single = AccuratePoseDetectorOptions()
        single.detectorMode = .singleImage
        single.modelAssetPath = try Paths.model("pose_landmarker_full.task")
        XCTAssertNil(try PoseDetector.poseDetector(options: single)
            .results(in: VisionImage(image: try frames("pose_dance_1", 0..<1)[0]))
            .first?.trackingID)
    }
}
