import Foundation
import TasksVisionImageIO
import XCTest

final class InputFailureTests: XCTestCase {
    /// A folder with a good image and a garbage .png: the good one's result is printed, the bad one is
    /// reported on stderr by name and reason, and the status is 1.
    func testRunContinuesPastAnUndecodableFile() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        try FileManager.default.copyItem(atPath: CLI.images + "/face_frontal_1.png", toPath: dir + "/a_good.png")
        try Data("this is not a PNG".utf8).write(to: URL(fileURLWithPath: dir + "/b_garbage.png"))
        try FileManager.default.copyItem(atPath: CLI.images + "/faces_two_1.png", toPath: dir + "/c_good.png")
        let r = try CLI.run(["faces", "--json", dir])
        XCTAssertEqual(r.status, 1, r.stderr)
        let lines = try CLI.jsonLines(r.stdout)
        let names = lines.map { ($0["file"] as? String).map { ($0 as NSString).lastPathComponent } }
        XCTAssertEqual(names, ["a_good.png", "c_good.png"])
        XCTAssertEqual(((lines.last?["result"] as? [String: Any])?["detections"] as? [Any])?.count, 2)
        let errors = r.stderr.split(separator: "\n")
        XCTAssertEqual(errors.count, 2, r.stderr)
        XCTAssertTrue(errors.first?.contains("b_garbage.png") ?? false, r.stderr)
        XCTAssertTrue(errors.first?.contains("not a PNG or JPEG") ?? false, r.stderr)
        XCTAssertEqual(errors.last, "vision: 1 of 3 inputs failed")

        // A missing file in a list is reported the same way; the others still run.
        let list = try CLI.run(["faces", dir + "/missing.png", dir + "/a_good.png"])
        XCTAssertEqual(list.status, 1)
        XCTAssertTrue(list.stdout.contains("a_good.png: 1 face"), list.stdout)
        XCTAssertTrue(list.stderr.contains("missing.png: no such file"), list.stderr)

        // In video mode over a folder of frames too.
        let video = try CLI.run(["faces", "--json", "--video", dir])
        XCTAssertEqual(video.status, 1)
        XCTAssertEqual(try CLI.jsonLines(video.stdout).compactMap { $0["timestampMs"] as? Int }, [0, 66])
        XCTAssertTrue(video.stderr.contains("b_garbage.png"), video.stderr)
    }

    /// A tall, thin PNG decodes, and is refused for its side (65536 pixels at most), in those terms.
    func testTallThinImageIsRefusedForItsSide() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let path = dir + "/tall.png"
        try ImageFile.writePNG(DecodedImage(width: 3, height: 100_000, channels: 1,
                                            pixels: [UInt8](repeating: 128, count: 300_000)), to: path)
        let r = try CLI.run(["faces", path])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("3x100000: the height 100000 is longer than the supported 65536 pixels a side"),
                      r.stderr)
    }
}
