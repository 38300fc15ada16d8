import Foundation
import TasksVisionImageIO
import XCTest

/// `vision segment`: the masks against MediaPipe's (Tests/Fixtures/segmentation: numpy's round(255 p) and the
/// category mask), the backgrounds on a photo and a video, and the mistakes reported before any frame.
final class SegmentCommandTests: XCTestCase {
    static let fixtures = CLI.root + "/Tests/Fixtures/segmentation"

    func testMasksEqualMediaPipes() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let photos = ["pose_standing_1", "faces_two_1", "hand_thumb_down_1"]
        let r = try CLI.run(["segment", "--masks", dir, "--category-mask"] + photos.map { CLI.images + "/\($0).png" })
        XCTAssertEqual(r.status, 0, r.stderr)
        for name in photos {
            let ours = try ImageFile.read(dir + "/\(name).png"), ref = try ImageFile.read(
                Self.fixtures + "/selfie_segmenter_\(name).png")
            XCTAssertEqual([ours.width, ours.height], [ref.width, ref.height])
            // round(255 p) half up here, ties to even in numpy: within one level.
            XCTAssertLessThanOrEqual(zip(ours.pixels, ref.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 9, 1, name)
            XCTAssertEqual(try ImageFile.read(dir + "/\(name)_category.png").pixels,
                           try ImageFile.read(Self.fixtures + "/selfie_segmenter_\(name)_category.png").pixels, name)
        }
    }

    func testBackgroundsOnAPhotoAndAVideo() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let photo = CLI.images + "/pose_yoga_2.png"
        let specs = ["blur", "blur=3", "#00ff00", "10,20,30", CLI.images + "/negative_outdoor_1.png"]
        for (i, spec) in specs.enumerated() {
            let r = try CLI.run(["segment", photo, "--background", spec, "--overlay", dir + "/\(i)"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let out = try ImageFile.read(dir + "/\(i)/pose_yoga_2.png")
            XCTAssertEqual([out.width, out.height], [400, 300])
        }
        // A colour background: the corner (background) is the colour.
        let green = try ImageFile.read(dir + "/2/pose_yoga_2.png")
        XCTAssertEqual(Array(green.pixels[0..<3]), [0, 255, 0])
        let ffmpeg = try CLI.requireFFmpeg()
        _ = ffmpeg
        let video = dir + "/in.mp4"
        try CLI.ffmpeg(["-framerate", "25", "-i", CLI.sequences + "/pose_dance_1/%04d.png",
                        "-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-frames:v", "10", "-pix_fmt", "yuv420p",
                        video])
        let r = try CLI.run(["segment", "--video", video, "--background", "blur", "--overlay", dir + "/out.mp4"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout.split(separator: "\n").count, 10)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/out.mp4"))
    }

    func testMistakesAreReportedBeforeAnyFrame() throws {
        let photo = CLI.images + "/pose_yoga_2.png"
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let cases: [([String], String)] = [
            (["--background", "blur"], "--background needs --overlay"),
            (["--background", "#12345", "--overlay", dir], "neither blur[=R], a colour"),
            (["--background", CLI.images + "/MANIFEST.tsv", "--overlay", dir], "the image cannot be read"),
            (["--background", "blur=-1", "--overlay", dir], "blur radius"),
            (["--category-mask"], "--masks"),
            (["--model", CLI.models + "/blaze_face_short_range.tflite"], "an image segmentation .tflite"),
        ]
        for (args, message) in cases {
            let r = try CLI.run(["segment", photo] + args)
            XCTAssertEqual(r.status, 1, "\(args)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
            XCTAssertEqual(r.stdout, "", "\(args): no frame is processed")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(args): one error")
        }
    }
}
