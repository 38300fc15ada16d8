import Foundation
import XCTest

/// `vision objects`: MediaPipe 1.2.3's detections of burger.jpg (its ObjectDetector with efficientdet_lite0.tflite)
/// through the command line's JSON and summary, the options, video track IDs, overlays, and the label checks.
final class ObjectsCommandTests: XCTestCase {
    let burger = CLI.shared + "/testdata/google/burger.jpg"

    func testJSONIsTheResultEncoding() throws {
        let r = try CLI.run(["objects", "--json", burger])
        XCTAssertEqual(r.status, 0, r.stderr)
        let line = try XCTUnwrap(try CLI.jsonLines(r.stdout).first)
        XCTAssertEqual(line["width"] as? Int, 480)
        XCTAssertEqual(line["height"] as? Int, 325)
        let result = try XCTUnwrap(line["result"] as? [String: Any])
        XCTAssertNil(result["trackingIds"], "no track IDs in image mode")
        let detections = try XCTUnwrap(result["detections"] as? [[String: Any]])
        // Scoring 0.5 or more (the command's default): MediaPipe's two sandwiches.
        XCTAssertEqual(detections.count, 2)
        XCTAssertEqual(detections[0]["boundingBox"] as? [String: Double],
                       ["originX": 10, "originY": 36, "width": 404, "height": 289])
        let category = try XCTUnwrap((detections[0]["categories"] as? [[String: Any]])?.first)
        XCTAssertEqual(category["index"] as? Int, -1)
        XCTAssertEqual(category["score"] as? Double, 0.71875)
        XCTAssertEqual(category["categoryName"] as? String, "sandwich")
        XCTAssertTrue(category.keys.contains("displayName"))
        XCTAssertNil(detections[0]["keypoints"])
    }

    func testSummaryAndOptions() throws {
        let r = try CLI.run(["objects", burger])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasSuffix("burger.jpg: 2 objects: sandwich 0.72 [10,36 404x289], sandwich 0.50 "
                                         + "[298,2 174x140]\n"), r.stdout)
        let all = try CLI.run(["objects", "--score-threshold", "0", "--max-results", "4", burger])
        XCTAssertTrue(all.stdout.contains("4 objects: sandwich 0.72 [10,36 404x289], sandwich 0.50 [298,2 174x140], "
                                          + "sandwich 0.36 [374,98 101x173], carrot 0.17 [331,2 90x37]"), all.stdout)
        let deny = try CLI.run(["objects", "--score-threshold", "0.1", "--deny", "sandwich, dining table", burger])
        XCTAssertTrue(deny.stdout.contains(": 3 objects: carrot 0.17 [331,2 90x37], bowl 0.13 [10,36 404x289], "
                                           + "hot dog 0.12 [380,130 97x140]"), deny.stdout)
    }

    /// MediaPipe ignores labels a model does not have; the command refuses them, naming the closest ones.
    func testUnknownLabelsAndOptionMistakes() throws {
        for (args, needle) in [
            (["--allow", "sandwhich"], "--allow: 'sandwhich' is not a category of efficientdet_lite0.tflite; did you "
                + "mean 'sandwich'"),
            (["--deny", "people"], "--deny: 'people' is not a category"),
            (["--allow", "cat", "--deny", "dog"], "give --allow or --deny, not both"),
            (["--max-results", "0"], "--max-results takes -1 (all) or a count of at least 1, got 0"),
            (["--score-threshold", "1.5"], "--score-threshold"),
            (["--allow", ","], "--allow takes category labels separated by commas"),
            (["--model", CLI.models + "/efficientnet_lite0.tflite"], "efficientnet_lite0.tflite is"),
            (["--model", CLI.models + "/hand_landmarker.task"],
             "objects needs an object detector .tflite; hand_landmarker.task is a hand landmarker bundle"),
        ] {
            let r = try CLI.run(["objects"] + args + [burger])
            XCTAssertNotEqual(r.status, 0, "\(args)")
            XCTAssertTrue(r.stderr.contains(needle), "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        }
    }

    /// Video mode: the dancer keeps one track ID; the overlay draws a PNG per frame.
    func testVideoTrackIdsAndOverlay() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let r = try CLI.run(["objects", "--json", "--allow", "person", "--video", CLI.sequences + "/pose_dance_1",
                             "--max-frames", "10", "--overlay", dir])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = try CLI.jsonLines(r.stdout)
        XCTAssertEqual(lines.count, 10)
        let ids = lines.map { (($0["result"] as? [String: Any])?["trackingIds"] as? [Int])?.first }
        XCTAssertEqual(Set(ids.compactMap { $0 }), [1], "\(ids)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).count, 10)
        let summary = try CLI.run(["objects", "--allow", "person", "--video", CLI.sequences + "/pose_dance_1",
                                   "--max-frames", "2"])
        XCTAssertTrue(summary.stdout.contains("1 object: #1 person 0.89 ["), summary.stdout)
    }
}
