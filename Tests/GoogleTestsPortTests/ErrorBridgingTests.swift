import Foundation
import TasksVision
import XCTest

/// `VisionTaskError` as an `NSError`: MediaPipe's domain and `MPPTasksErrorCode` for every case,
/// MediaPipe's text where MediaPipe has one for the mistake, ours (`description`) elsewhere.
final class ErrorBridgingTests: XCTestCase {
    func testEveryCaseBridges() {
        let mediaPipeTexts: [(VisionTaskError, String)] = [
            (.wrongRunningMode(called: "detect(image:)", mode: .liveStream),
             "The vision task is not initialized with image mode. Current Running Mode: Live Stream"),
            (.wrongRunningMode(called: "recognize(videoFrame:timestampInMilliseconds:)", mode: .image),
             "The vision task is not initialized with video mode. Current Running Mode: Image"),
            (.wrongRunningMode(called: "detectAsync(image:timestampInMilliseconds:)", mode: .video),
             "The vision task is not initialized with live stream mode. Current Running Mode: Video"),
            (.nonMonotonicTimestamp(received: 5, previous: 5),
             "INVALID_ARGUMENT: Input timestamp must be monotonically increasing."),
        ]
        for (error, text) in mediaPipeTexts {
            let e = error as NSError
            XCTAssertEqual(e.domain, "com.google.mediapipe.tasks")
            XCTAssertEqual(e.code, 3)
            XCTAssertEqual(e.localizedDescription, text)
            XCTAssertEqual(error.localizedDescription, text)
            XCTAssertNotEqual(error.description, text, "description keeps our wording")
        }
        let ours: [(VisionTaskError, Int)] = [
            (.invalidOption("numHands must be at least 1, got 0"), 3),
            (.invalidImage("width 0"), 3),
            (.invalidModel("x.tflite: not a TFLite flatbuffer"), 3),
            (.modelNotFound("/no/such.task"), 5),
        ]
        for (error, code) in ours {
            let e = error as NSError
            XCTAssertEqual(e.domain, "com.google.mediapipe.tasks")
            XCTAssertEqual(e.code, code, "\(error)")
            XCTAssertEqual(error.tasksErrorCode.rawValue, code)
            XCTAssertEqual(e.localizedDescription, error.description)
        }
    }

    /// A missing model file is `NOT_FOUND` (5) in MediaPipe; our text lists the places looked at.
    func testMissingModelIsNotFound() throws {
        let o = HandLandmarkerOptions()
        o.baseOptions.modelAssetPath = "/no/such/dir/hand_landmarker.task"
        let error = thrownError { _ = try HandLandmarker(options: o) }
        XCTAssertEqual((error as NSError?)?.code, 5)
        XCTAssertEqual((error as? VisionTaskError)?.tasksErrorCode, .notFoundError)
        // MPPCommon.h's numbering, first, middle and last.
        XCTAssertEqual([TasksErrorCode.cancelledError, .invalidArgumentError, .internalError, .unauthenticatedError]
                        .map(\.rawValue), [1, 3, 13, 16])
        XCTAssertTrue((error as NSError?)?.localizedDescription.contains("/no/such/dir/hand_landmarker.task") == true)
    }
}
