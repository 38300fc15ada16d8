import Foundation
import XCTest

/// Outputs that cannot be written and videos that cannot be read to their end: one message, exit 1.
final class OutputFailureTests: XCTestCase {
    /// An overlay video in a folder that does not exist, or masks under a file, fail before the first frame
    /// with one line and no results.
    func testUnwritableOutputFailsBeforeTheFirstFrame() throws {
        _ = try CLI.requireFFmpeg()
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let clip = dir + "/clip.mkv"
        try CLI.ffmpeg(["-framerate", "25", "-i", CLI.sequences + "/hand_asl_1/%04d.png", "-frames:v", "15",
                        "-c:v", "ffv1", clip])
        let out = dir + "/missing/dir/out.mp4"
        let r = try CLI.run(["hands", "--json", "--video", clip, "--overlay", out])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(r.stderr, "vision: --overlay \(out): no such folder \(dir)/missing/dir\n")

        let file = dir + "/a_file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let m = try CLI.run(["pose", "--json", "--masks", file + "/masks", CLI.images + "/pose_yoga_1.png"])
        XCTAssertEqual(m.status, 1)
        XCTAssertEqual(m.stdout, "")
        XCTAssertEqual(m.stderr, "vision: --masks \(file)/masks: \(file) is a file, not a folder\n")

        // A video overlay that can be written appears only when finished: no temporary file is left beside it.
        let good = dir + "/out.mp4"
        let g = try CLI.run(["hands", "--video", clip, "--max-frames", "3", "--overlay", good])
        XCTAssertEqual(g.status, 0, g.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: good))
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        XCTAssertEqual(names, ["a_file", "clip.mkv", "out.mp4"])
    }

    /// A transport stream cut in half: the frames ffmpeg decodes are printed, then one line names the file,
    /// how many frames were read and ffmpeg's error, and the status is 1; in worker mode that is the
    /// input's error record, before its done record.
    func testTruncatedVideoNamesTheFramesRead() throws {
        _ = try CLI.requireFFmpeg()
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let whole = dir + "/whole.ts", half = dir + "/half.ts"
        try CLI.ffmpeg(["-framerate", "30", "-i", CLI.sequences + "/pose_dance_1/%04d.png", "-frames:v", "15",
                        "-c:v", "libx264", "-bf", "0", "-g", "5", "-pix_fmt", "yuv420p", whole])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: half))
        let r = try CLI.run(["faces", "--json", "--video", half])
        XCTAssertEqual(r.status, 1)
        let frames = try CLI.jsonLines(r.stdout).count
        XCTAssertGreaterThan(frames, 0)
        XCTAssertLessThan(frames, 15)
        let errors = r.stderr.split(separator: "\n")
        XCTAssertEqual(errors.count, 1, r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix("vision: \(half): ffmpeg could not decode the whole video "
                                         + "(\(frames) frame\(frames == 1 ? "" : "s") read): "), r.stderr)
        XCTAssertTrue(r.stderr.contains("h264: "), r.stderr)
        // The whole file reads to its end.
        let w = try CLI.run(["faces", "--json", "--video", whole])
        XCTAssertEqual(w.status, 0, w.stderr)
        XCTAssertEqual(try CLI.jsonLines(w.stdout).count, 15)

        let worker = try CLI.run(["faces", "--json", "--stdin"], input: half + "\n" + whole + "\n")
        XCTAssertEqual(worker.status, 1)
        let records = try CLI.jsonLines(worker.stdout)
        XCTAssertEqual(records.count, frames + 2 + 15 + 1)
        let error = records[frames]["error"] as? String
        XCTAssertEqual(error.map { "vision: " + $0 + "\n" }, r.stderr)
        XCTAssertEqual(records[frames + 1]["done"] as? Bool, true)
        XCTAssertEqual(records[frames + 1]["frames"] as? Int, frames)
        XCTAssertEqual(records.last?["frames"] as? Int, 15)
    }
}
