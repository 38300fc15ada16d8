import Foundation
import TasksVisionFormat
import XCTest

final class ModelKindTests: XCTestCase {
    /// A model of another kind is named for what it is, with what the command needed.
    func testWrongKindOfModelSaysWhatWasExpected() throws {
        let image = CLI.images + "/hands_two_1.png"
        for (command, model, message) in [
            ("faces", "hand_landmarker.task",
             "faces needs a face detector .tflite; hand_landmarker.task is a hand landmarker bundle"),
            ("faces", "hand_detector.tflite", "hand_detector.tflite is a palm (hand) detector .tflite"),
            ("faces", "pose_detector.tflite", "pose_detector.tflite is a pose detector .tflite"),
            ("hands", "gesture_recognizer.task", "hands needs a hand landmarker bundle"),
            ("hands", "blaze_face_short_range.tflite", "blaze_face_short_range.tflite is a face detector .tflite"),
            ("gestures", "hand_landmarker.task", "gestures needs a gesture recognizer bundle"),
            ("gestures", "canned_gesture_classifier.tflite", "is a gesture classifier .tflite"),
            ("pose", "hand_landmarker.task", "pose needs a pose landmarker bundle (.task with pose_detector.tflite"),
            ("pose", "pose_landmarks_detector.tflite", "pose_landmarks_detector.tflite is a pose landmarks .tflite"),
            ("pose", "gesture_recognizer.task:hand_gesture_recognizer.task", "is a hand gesture classifier bundle"),
        ] {
            let r = try CLI.run([command, "--model", CLI.models + "/" + model, image])
            XCTAssertEqual(r.status, 1, "\(command) \(model)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains(message), "\(command) \(model): \(r.stderr)")
        }
        // A folder of the gesture recognizer's four models serves hands and gestures, not pose.
        let folder = try CLI.temporaryDirectory(removedAfter: self)
        let recognizer = try TaskBundle(path: CLI.models + "/gesture_recognizer.task")
        for nested in ["hand_landmarker.task", "hand_gesture_recognizer.task"] {
            let bundle = try recognizer.bundle(nested)
            for member in bundle.memberNames {
                try Data(try bundle.member(member)).write(to: URL(fileURLWithPath: folder + "/" + member))
            }
        }
        XCTAssertEqual(try CLI.run(["gestures", "--model", folder, image]).status, 0)
        XCTAssertEqual(try CLI.run(["hands", "--model", folder, image]).status, 0)
        XCTAssertTrue(try CLI.run(["pose", "--model", folder, image]).stderr.contains("pose needs a pose landmarker"))
        // The right kinds pass, including the full-range face detector and a member path.
        for (command, model) in [("faces", "face_detection_full_range_sparse.tflite"),
                                 ("hands", "gesture_recognizer.task:hand_landmarker.task")] {
            let r = try CLI.run([command, "--model", CLI.models + "/" + model, image])
            XCTAssertEqual(r.status, 0, "\(command) \(model): \(r.stderr)")
        }
    }
}
