import Foundation
import XCTest

/// Video files in and out through ffmpeg. Each test makes a short lossless clip (FFV1 in Matroska)
/// from the first frames of a sequence, at the sequence's frame rate.
final class VideoTests: XCTestCase {
    static let frames = 30

    /// The sequence's frame rate from testdata/sequences/MANIFEST.tsv.
    func frameRate(_ sequence: String) throws -> Int {
        let manifest = try String(contentsOfFile: CLI.sequences + "/MANIFEST.tsv", encoding: .utf8)
        let rows = manifest.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        guard let header = rows.first, let column = header.firstIndex(of: "fps"),
              let row = rows.first(where: { $0.first.map(String.init) == sequence }), let fps = Int(row[column]) else {
            throw XCTSkip("\(sequence) has no frame rate in MANIFEST.tsv")
        }
        return fps
    }

    /// `dir/clip.mkv`: the first `frames` frames of `sequence`, lossless.
    func makeClip(_ sequence: String, in dir: String) throws -> (clip: String, fps: Int) {
        let fps = try frameRate(sequence)
        let clip = dir + "/clip.mkv"
        try CLI.ffmpeg(["-framerate", String(fps), "-i", CLI.sequences + "/\(sequence)/%04d.png",
                        "-frames:v", String(Self.frames), "-c:v", "ffv1", clip])
        return (clip, fps)
    }

    /// `vision pose --video clip.mkv --json` gives, frame for frame, the results and timestamps of the
    /// folder of frames the clip was made from (the folder run at the clip's frame rate).
    func testVideoFileMatchesTheFrameFolder() throws {
        _ = try CLI.requireFFmpeg()
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let (clip, fps) = try makeClip("pose_dance_1", in: dir)
        let video = try CLI.run(["pose", "--json", "--video", clip])
        XCTAssertEqual(video.status, 0, video.stderr)
        let folder = try CLI.run(["pose", "--json", "--video", CLI.sequences + "/pose_dance_1",
                                  "--fps", String(fps), "--max-frames", String(Self.frames)])
        XCTAssertEqual(folder.status, 0, folder.stderr)
        let v = try CLI.jsonLines(video.stdout), f = try CLI.jsonLines(folder.stdout)
        XCTAssertEqual(v.count, Self.frames)
        XCTAssertEqual(f.count, Self.frames)
        for (i, (a, b)) in zip(v, f).enumerated() {
            XCTAssertEqual(a["frame"] as? Int, i)
            XCTAssertEqual(a["file"] as? String, clip)
            XCTAssertEqual(a["timestampMs"] as? Int, b["timestampMs"] as? Int, "frame \(i)")
            XCTAssertEqual(a["width"] as? Int, b["width"] as? Int)
            // The landmark JSON must be identical: the same pixels through the same stream-mode tracking.
            let ra = try JSONSerialization.data(withJSONObject: a["result"] ?? [:], options: .sortedKeys)
            let rb = try JSONSerialization.data(withJSONObject: b["result"] ?? [:], options: .sortedKeys)
            XCTAssertEqual(ra, rb, "frame \(i)")
        }
        XCTAssertEqual((((v.first?["result"] as? [String: Any])?["poses"] as? [Any]))?.count, 1)
    }

    /// `--overlay out.mp4` writes the annotated video: a frame extracted from it shows the skeleton
    /// (red landmark dots) where the input frame has none.
    func testOverlayVideoShowsTheSkeleton() throws {
        _ = try CLI.requireFFmpeg()
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let (clip, _) = try makeClip("pose_dance_1", in: dir)
        let out = dir + "/out.mp4"
        let r = try CLI.run(["pose", "--json", "--video", clip, "--overlay", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        let n = 10
        // Both frames as raw RGB: the overlay's frame n and the clip's.
        let frameN = ["-vf", "select=eq(n\\,\(n))", "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24"]
        try CLI.ffmpeg(["-i", out] + frameN + [dir + "/drawn.rgb"])
        try CLI.ffmpeg(["-i", clip] + frameN + [dir + "/plain.rgb"])
        let drawn = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/drawn.rgb")))
        let plain = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/plain.rgb")))
        let frame = try CLI.jsonLines(r.stdout)[n]
        guard let width = frame["width"] as? Int, let height = frame["height"] as? Int,
              let pose = ((frame["result"] as? [String: Any])?["poses"] as? [[String: Any]])?.first,
              let landmarks = pose["landmarks"] as? [[String: Any]] else { return XCTFail("no pose in frame \(n)") }
        XCTAssertEqual(drawn.count, width * height * 3)
        XCTAssertEqual(plain.count, width * height * 3)
        // At each visible landmark the drawing is red (lossy H.264, so "mostly red") and the input is not.
        var red = 0, visible = 0
        for lm in landmarks where (lm["inFrameLikelihood"] as? Double ?? 0) > 0.5 {
            guard let p = lm["position"] as? [String: Double], let px = p["x"], let py = p["y"] else { continue }
            let x = Int(px), y = Int(py)
            guard x >= 0, y >= 0, x < width, y < height else { continue }
            visible += 1
            let o = (y * width + x) * 3
            let d = (Int(drawn[o]), Int(drawn[o + 1]), Int(drawn[o + 2]))
            let q = (Int(plain[o]), Int(plain[o + 1]), Int(plain[o + 2]))
            let changed = abs(d.0 - q.0) + abs(d.1 - q.1) + abs(d.2 - q.2) > 60
            if d.0 > 150 && d.1 < 110 && d.2 < 110 && changed { red += 1 }
        }
        XCTAssertGreaterThan(visible, 10)
        XCTAssertGreaterThanOrEqual(red * 10, visible * 8, "\(red) of \(visible) landmarks drawn red")
        // Away from the person the frame is the input's (within the codec's error).
        let corner = (5 * width + 5) * 3
        XCTAssertLessThan(abs(Int(drawn[corner]) - Int(plain[corner])), 40)
    }

    /// --live runs a video file as a live stream (detectAsync; frames dropped while busy): every
    /// result is for a frame of the clip, in order, with increasing timestamps.
    func testLiveStreamFromAVideoFile() throws {
        _ = try CLI.requireFFmpeg()
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let (clip, _) = try makeClip("hand_asl_1", in: dir)
        for command in ["hands", "pose"] {
            let r = try CLI.run([command, "--json", "--live", "--video", clip, "--max-frames", "12"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let lines = try CLI.jsonLines(r.stdout)
            XCTAssertGreaterThan(lines.count, 0, command)
            XCTAssertLessThanOrEqual(lines.count, 12, command)
            let frames = lines.compactMap { $0["frame"] as? Int }
            let times = lines.compactMap { $0["timestampMs"] as? Int }
            XCTAssertEqual(frames, frames.sorted(), command)
            XCTAssertEqual(Set(times).count, times.count, command)
            XCTAssertEqual(times, times.sorted(), command)
        }
    }

    /// Without ffmpeg on PATH, a video file or an overlay video is refused in one line saying how to get it.
    func testMissingFFmpegIsOneLine() throws {
        let empty = try CLI.temporaryDirectory(removedAfter: self)
        let clip = empty + "/clip.mkv"
        try Data([0]).write(to: URL(fileURLWithPath: clip))
        let r = try CLI.run(["pose", "--video", clip], environment: ["PATH": empty])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "vision: --video needs ffmpeg on PATH (install it with: apt-get install ffmpeg)\n")
        let o = try CLI.run(["pose", "--video", CLI.sequences + "/pose_dance_1", "--overlay", empty + "/o.mp4"],
                            environment: ["PATH": empty])
        XCTAssertEqual(o.status, 1)
        XCTAssertEqual(o.stderr,
                       "vision: --overlay o.mp4 needs ffmpeg on PATH (install it with: apt-get install ffmpeg)\n")
    }

    /// A file ffmpeg cannot read is one line naming the file and ffmpeg's reason.
    func testUndecodableVideoNamesTheFile() throws {
        _ = try CLI.requireFFmpeg()
        let clip = try CLI.temporaryDirectory(removedAfter: self) + "/broken.mp4"
        try Data("not a video".utf8).write(to: URL(fileURLWithPath: clip))
        let r = try CLI.run(["faces", "--video", clip])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("broken.mp4: ffmpeg failed"), r.stderr)
    }
}
