import Foundation
import XCTest

final class PoseCommandTests: XCTestCase {
    func testJSONShape() throws {
        let r = try CLI.run(["pose", "--json", CLI.images + "/pose_standing_1.png"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let obj = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let poses = (obj?["result"] as? [String: Any])?["poses"] as? [[String: Any]]
        let landmarks = poses?.first?["landmarks"] as? [[String: Any]]
        XCTAssertEqual(landmarks?.count, 33)
        XCTAssertEqual(landmarks?.first?["type"] as? String, "nose")
        XCTAssertEqual(landmarks?.last?["type"] as? String, "rightToe")
        XCTAssertNotNil((landmarks?.first?["position"] as? [String: Double])?["z"])
        XCTAssertNotNil(landmarks?.first?["inFrameLikelihood"] as? Double)
    }

    func testVideoStreamAndErrors() throws {
        let r = try CLI.run(["pose", "--accurate", "--json", "--video", CLI.sequences + "/pose_dance_1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout.split(separator: "\n").count, 40)
        let bad = try CLI.run(["pose", "--mode", "sometimes", CLI.images + "/pose_standing_1.png"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("sometimes"), bad.stderr)
        let model = try CLI.run(["pose", "--model", CLI.models + "/hand_landmarker.task",
                                 CLI.images + "/pose_standing_1.png"])
        XCTAssertEqual(model.status, 1)
        XCTAssertTrue(model.stderr.contains("pose_detector.tflite"), model.stderr)
    }
}
