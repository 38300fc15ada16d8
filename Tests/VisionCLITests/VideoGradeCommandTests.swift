import Foundation
import TasksVisionImageIO
import XCTest

/// The command line of issue 16: track IDs in JSON, --smooth, --roi, `vision palms`, `vision pose --masks`.
final class VideoGradeCommandTests: XCTestCase {
    func objects(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            guard let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw NotAJSONObject(line: String(line))
            }
            return o
        }
    }

    func testTrackingIdsInVideoJSONAndNotInImageJSON() throws {
        let video = try CLI.run(["hands", "--json", "--smooth", "--max-frames", "4", "--video",
                                 CLI.sequences + "/hand_asl_1"])
        XCTAssertEqual(video.status, 0, video.stderr)
        let ids = try objects(video.stdout).map { ($0["result"] as? [String: Any])?["trackingIds"] as? [Int] }
        XCTAssertEqual(ids, Array(repeating: [1], count: 4))
        let image = try CLI.run(["hands", "--json", CLI.images + "/hand_open_palm_1.png"])
        XCTAssertEqual(image.status, 0, image.stderr)
        XCTAssertNil((try objects(image.stdout).first?["result"] as? [String: Any])?["trackingIds"])
        let pose = try CLI.run(["pose", "--json", "--max-frames", "2", "--video", CLI.sequences + "/pose_dance_1"])
        let poses = try objects(pose.stdout).map {
            (($0["result"] as? [String: Any])?["poses"] as? [[String: Any]])?.first?["trackingID"] as? Int
        }
        XCTAssertEqual(poses, [1, 1])
    }

    func testRegionIsCheckedAndMapsToTheWholeImage() throws {
        let bad = try CLI.run(["faces", "--roi", "0.5,0,0.6,1", CLI.images + "/faces_two_1.png"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("--roi"), bad.stderr)
        // faces_two_1 (1280 wide) has a face in each half; the right half's face keeps whole-image pixels.
        let right = try CLI.run(["faces", "--json", "--roi", "0.5,0,0.5,1", CLI.images + "/faces_two_1.png"])
        XCTAssertEqual(right.status, 0, right.stderr)
        let boxes = ((try objects(right.stdout).first?["result"] as? [String: Any])?["detections"] as? [[String: Any]])?
            .compactMap { ($0["boundingBox"] as? [String: Double])?["originX"] }
        XCTAssertEqual(boxes?.count, 1)
        XCTAssertGreaterThanOrEqual(boxes?.first ?? 0, 640)
    }

    func testPalms() throws {
        let r = try CLI.run(["palms", "--json", "--num-hands", "2", CLI.images + "/hands_two_1.png"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let result = try objects(r.stdout).first?["result"] as? [String: Any]
        XCTAssertEqual((result?["detections"] as? [Any])?.count, 2)
        XCTAssertEqual((result?["handRectangles"] as? [Any])?.count, 2)
        let wrong = try CLI.run(["palms", "--model", CLI.models + "/pose_landmarker_lite.task",
                                 CLI.images + "/hands_two_1.png"])
        XCTAssertEqual(wrong.status, 1)
        XCTAssertTrue(wrong.stderr.contains("palms needs a palm detection .tflite or a hand landmarker bundle"),
                      wrong.stderr)
    }

    func testPoseMasksArePNGsOfTheImage() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("masks-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try CLI.run(["pose", "--masks", dir, CLI.images + "/pose_yoga_2.png",
                             CLI.images + "/negative_coffee_1.png"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let person = try ImageFile.read(dir + "/pose_yoga_2.png"),
            empty = try ImageFile.read(dir + "/negative_coffee_1.png")
        XCTAssertEqual([person.width, person.height, person.channels], [400, 300, 1])
        let lit = person.pixels.filter { $0 > 127 }.count
        XCTAssertTrue(lit > 1000 && lit < 400 * 300 / 2, "\(lit)")
        XCTAssertEqual([empty.width, empty.height], [960, 960])
        XCTAssertTrue(empty.pixels.allSatisfy { $0 == 0 })
    }
}
