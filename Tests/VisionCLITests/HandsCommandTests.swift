import Foundation
import XCTest

final class HandsCommandTests: XCTestCase {
    let images = CLI.images

    func testGesturesJSON() throws {
        let r = try CLI.run(["gestures", "--json", "--num-hands", "2", images + "/hands_two_1.png"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let obj = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let result = obj?["result"] as? [String: Any]
        let landmarks = result?["landmarks"] as? [[[String: Double]]]
        XCTAssertEqual(landmarks?.count, 2)
        XCTAssertEqual(landmarks?.first?.count, 21)
        XCTAssertEqual(Set(landmarks?.first?.first?.keys.map { $0 } ?? []), ["x", "y", "z"])
        XCTAssertEqual((result?["worldLandmarks"] as? [[Any]])?.first?.count, 21)
        let gestures = result?["gestures"] as? [[[String: Any]]]
        XCTAssertEqual(gestures?.first?.first?["index"] as? Int, -1)
        XCTAssertEqual(gestures?.first?.first?["categoryName"] as? String, "Open_Palm")
        let handedness = result?["handedness"] as? [[[String: Any]]]
        XCTAssertEqual(Set(handedness?.compactMap { $0.first?["categoryName"] as? String } ?? []), ["Left", "Right"])
    }

    func testHandsVideoAndDenylist() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let r = try CLI.run(["hands", "--json", "--video", CLI.sequences + "/hand_asl_1", "--overlay", dir])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout.split(separator: "\n").count, 40)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).count, 40)
        let g = try CLI.run(["gestures", "--canned-denylist", "Open_Palm", "--num-hands", "2",
                             images + "/hands_two_1.png"])
        XCTAssertEqual(g.status, 0, g.stderr)
        XCTAssertFalse(g.stdout.contains("Open_Palm"), g.stdout)
        // Both lists are accepted and the allowlist wins, as in MediaPipe.
        let both = try CLI.run(["gestures", "--canned-allowlist", "Open_Palm", "--canned-denylist", "Open_Palm",
                                "--num-hands", "2", images + "/hands_two_1.png"])
        XCTAssertEqual(both.status, 0, both.stderr)
        XCTAssertTrue(both.stdout.contains("Open_Palm"), both.stdout)
    }

    func testErrors() throws {
        for (args, needle) in [
            (["hands", "--num-hands", "0", images + "/hands_two_1.png"], "--num-hands 0"),
            (["hands", "--canned-allowlist", "A", images + "/hands_two_1.png"], "gestures"),
            (["gestures", "--min-tracking-confidence", "-1", images + "/hands_two_1.png"],
             "--min-tracking-confidence -1"),
            (["hands", "--model", CLI.models + "/blaze_face_short_range.tflite", images + "/hands_two_1.png"],
             "blaze_face_short_range.tflite"),
            (["gestures", "--model", CLI.models + "/hand_landmarker.task", images + "/hands_two_1.png"],
             "gesture recognizer bundle"),
        ] {
            let r = try CLI.run(args)
            XCTAssertEqual(r.status, 1, "\(args)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(needle), "\(args): \(r.stderr)")
        }
    }
}
