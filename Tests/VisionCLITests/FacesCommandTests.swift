import Foundation
import XCTest

final class FacesCommandTests: XCTestCase {
    let images = CLI.images

    func testJSONLinesMatchTheResultEncoding() throws {
        let r = try CLI.run(["faces", "--json", images + "/face_frontal_1.png", images + "/negative_coffee_1.png"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
        XCTAssertEqual(first?["width"] as? Int, 820)
        XCTAssertEqual(first?["height"] as? Int, 1024)
        XCTAssertNil(first?["timestampMs"])
        let detections = (first?["result"] as? [String: Any])?["detections"] as? [[String: Any]]
        XCTAssertEqual(detections?.count, 1)
        let box = detections?.first?["boundingBox"] as? [String: Double]
        XCTAssertEqual(box?["originX"], 283)
        XCTAssertEqual(box?["width"], 234)
        let category = (detections?.first?["categories"] as? [[String: Any]])?.first
        XCTAssertEqual(category?["index"] as? Int, 0)
        XCTAssertEqual(category?["score"] as? Double ?? 0, 0.92188, accuracy: 1e-4)
        XCTAssertTrue(category?.keys.contains("categoryName") ?? false)
        XCTAssertEqual((detections?.first?["keypoints"] as? [[String: Any]])?.count, 6)
        let second = try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any]
        XCTAssertEqual(((second?["result"] as? [String: Any])?["detections"] as? [Any])?.count, 0)
    }

    func testFolderVideoModeAndOverlay() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let r = try CLI.run(["faces", "--json", "--video", CLI.sequences + "/hand_asl_1", "--fps", "25",
                             "--overlay", dir])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 40)
        let last = try JSONSerialization.jsonObject(with: Data(lines[39].utf8)) as? [String: Any]
        XCTAssertEqual(last?["timestampMs"] as? Int, 39 * 40)
        let overlays = try FileManager.default.contentsOfDirectory(atPath: dir)
        XCTAssertEqual(overlays.count, 40)
        let png = try Data(contentsOf: URL(fileURLWithPath: dir + "/0000.png"))
        XCTAssertEqual(Array(png.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
    }

    func testOrientationOptionGivesDisplayedCoordinates() throws {
        let r = try CLI.run(["faces", "--json", "--orientation", "right", images + "/face_frontal_1.png"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let obj = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(obj?["width"] as? Int, 1024, "the displayed image is turned")
        XCTAssertEqual(obj?["height"] as? Int, 820)
    }

    /// As MediaPipe's `Image.create_from_file`, a JPEG's EXIF orientation turns the pixels on
    /// loading (the card is stored 16x12 with orientation 6: displayed 12x16); --ignore-exif keeps them.
    func testExifOrientationIsAppliedUnlessIgnored() throws {
        let card = CLI.root + "/Tests/Fixtures/imageio/sample_exif6.jpg"
        for (args, size) in [([String](), (12, 16)), (["--ignore-exif"], (16, 12))] {
            let r = try CLI.run(["faces", "--json"] + args + [card])
            XCTAssertEqual(r.status, 0, r.stderr)
            let obj = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
            XCTAssertEqual(obj?["width"] as? Int, size.0, "\(args)")
            XCTAssertEqual(obj?["height"] as? Int, size.1, "\(args)")
        }
    }

    func testHumanSummary() throws {
        let r = try CLI.run(["faces", images + "/faces_two_1.png"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("2 faces"), r.stdout)
    }

    func testErrorsAreOneLineWithStatus1() throws {
        for (args, needle) in [
            (["faces"], "usage"),
            (["faces", "/nonexistent.png"], "/nonexistent.png"),
            (["faces", "--min-detection-confidence", "abc", images + "/face_frontal_1.png"],
             "--min-detection-confidence"),
            (["faces", "--min-detection-confidence", "2", images + "/face_frontal_1.png"],
             "--min-detection-confidence 2"),
            (["faces", "--orientation", "sideways", images + "/face_frontal_1.png"], "sideways"),
            (["faces", "--model", "/nonexistent.tflite", images + "/face_frontal_1.png"], "/nonexistent.tflite"),
            (["faces", "--bogus", images + "/face_frontal_1.png"], "--bogus"),
            (["faces", CLI.models + "/MANIFEST.sha256"], "MANIFEST.sha256"),
        ] {
            let r = try CLI.run(args)
            XCTAssertEqual(r.status, 1, "\(args)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(needle), "\(args): \(r.stderr)")
        }
    }
}
