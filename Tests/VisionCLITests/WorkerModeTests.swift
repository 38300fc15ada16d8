import Foundation
import XCTest

/// `vision <task> --stdin --json` (worker mode) and `--jobs N`: every input's records equal a run of its
/// own, byte for byte, whatever the inputs before it and however many run at once.
final class WorkerModeTests: XCTestCase {
    /// The records' leading fields, `{"input":PATH,"id":ID,` (no id when none was given).
    func prefix(_ path: String, id: String?) -> String {
        "{\"input\":\"\(path)\"" + (id.map { ",\"id\":\"\($0)\"" } ?? "") + ","
    }

    /// `dir/clip.mkv`: the first `frames` frames of `sequence`, lossless, at the sequence's rate.
    func makeClip(_ sequence: String, frames: Int, in dir: String, name: String = "clip.mkv") throws -> String {
        let clip = dir + "/" + name
        try CLI.ffmpeg(["-framerate", "25", "-i", CLI.sequences + "/\(sequence)/%04d.png",
                        "-frames:v", String(frames), "-c:v", "ffv1", clip])
        return clip
    }

    /// Images, a folder, a missing file in the middle and a video: each input's lines are records of it, an
    /// error record and a done record with its frame count close each, ids pass through, and without the
    /// leading input and id fields every line is the per-process run's, byte for byte (a video's hand
    /// tracking ids restart as if run alone).
    func testRecordsEqualARunPerInput() throws {
        _ = try CLI.requireFFmpeg()
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let folder = dir + "/two"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in ["hand_open_palm_1.png", "hands_two_1.png"] {
            try FileManager.default.copyItem(atPath: CLI.images + "/" + name, toPath: folder + "/" + name)
        }
        let clip = try makeClip("hand_asl_1", frames: 6, in: dir)
        let image = CLI.images + "/hand_open_palm_1.png", missing = dir + "/missing.png"
        let inputs: [(id: String?, path: String, args: [String], frames: Int)] = [
            ("a", image, [image], 1), (nil, folder, [folder], 2), ("m", missing, [missing], 0),
            ("v1", clip, ["--video", clip], 6), ("v2", clip, ["--video", clip], 6),
        ]
        let stdin = inputs.map { ($0.id.map { $0 + "\t" } ?? "") + $0.path + "\n" }.joined()
        let r = try CLI.run(["hands", "--stdin", "--json", "--num-hands", "2"], input: stdin)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stderr, "vision: 1 of 5 inputs failed\n")
        var lines = r.stdout.split(separator: "\n").map(String.init)[...]
        for input in inputs {
            let head = prefix(input.path, id: input.id)
            if input.frames == 0 {
                XCTAssertEqual(lines.popFirst(), head + "\"error\":\"\(missing): no such file or folder\"}")
            } else {
                let alone = try CLI.run(["hands", "--json", "--num-hands", "2"] + input.args)
                XCTAssertEqual(alone.status, 0, alone.stderr)
                let expected = alone.stdout.split(separator: "\n").map(String.init)
                XCTAssertEqual(expected.count, input.frames, input.path)
                for line in expected {
                    XCTAssertEqual(lines.popFirst(), head + line.dropFirst(), input.path)
                }
            }
            XCTAssertEqual(lines.popFirst(), head + "\"done\":true,\"frames\":\(input.frames)}")
        }
        XCTAssertTrue(lines.isEmpty, "left over: \(lines)")
        // The video's hand carries tracking id 1 in both runs of the clip: the ids restart with each video.
        let tracked = r.stdout.split(separator: "\n").filter { $0.contains("\"trackingIds\":[1]") }
        XCTAssertEqual(tracked.filter { $0.hasPrefix(prefix(clip, id: "v1")) }.count, 6)
        XCTAssertEqual(tracked.filter { $0.hasPrefix(prefix(clip, id: "v2")) }.count, 6)
    }

    /// `--jobs 2` gives the output of `--jobs 1` (the same records in the same order), from --stdin and
    /// from PATH...; with PATH... and no video, that is the plain run's output.
    func testJobsTwoEqualsJobsOne() throws {
        _ = try CLI.requireFFmpeg()
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let clip = try makeClip("pose_dance_1", frames: 8, in: dir)
        let images = ["pose_yoga_1.png", "face_frontal_1.png", "pose_standing_1.png"].map { CLI.images + "/" + $0 }
        let paths = [images[0], clip, images[1], images[2]]
        let stdin = paths.enumerated().map { "\($0.offset)\t\($0.element)\n" }.joined()
        let one = try CLI.run(["pose", "--stdin", "--json", "--jobs", "1"], input: stdin)
        let two = try CLI.run(["pose", "--stdin", "--json", "--jobs", "2"], input: stdin)
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertEqual(two.status, 0, two.stderr)
        XCTAssertEqual(try CLI.jsonLines(one.stdout).count, 3 + 8 + 4)
        XCTAssertEqual(two.stdout, one.stdout)

        let plain = try CLI.run(["pose", "--json"] + images)
        let jobs = try CLI.run(["pose", "--json", "--jobs", "2"] + images)
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(jobs.status, 0, jobs.stderr)
        XCTAssertEqual(jobs.stdout, plain.stdout)
        XCTAssertEqual(try CLI.jsonLines(jobs.stdout).count, 3)
        // Overlays of inputs running at once go into one new folder, each file whole, nothing else left there.
        let overlays = dir + "/overlays/nested"
        let drawn = try CLI.run(["pose", "--json", "--jobs", "2", "--overlay", overlays] + images)
        XCTAssertEqual(drawn.status, 0, drawn.stderr)
        XCTAssertEqual(drawn.stdout, plain.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: overlays).sorted(),
                       ["face_frontal_1.png", "pose_standing_1.png", "pose_yoga_1.png"])
    }

    /// Worker mode's command line is checked before any input is read.
    func testWorkerModeUsage() throws {
        let r = try CLI.run(["faces", "--stdin"], input: "")
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "vision: --stdin writes JSON records: add --json\n")
        let v = try CLI.run(["faces", "--json", "--stdin", "--video", CLI.sequences + "/pose_dance_1"], input: "")
        XCTAssertEqual(v.stderr, "vision: --video names one input; with --stdin give each video file as an input\n")
        let t = try CLI.run(["faces", "--jobs", "2", "--threads", "2", CLI.images + "/face_frontal_1.png"])
        XCTAssertEqual(t.stderr,
                       "vision: --jobs 2 runs each input on one thread: leave out --threads, or use --jobs 1\n")
        // A bad model is one error before any input, not one per input.
        let m = try CLI.run(["faces", "--json", "--stdin", "--model", "/nonexistent.tflite"],
                            input: CLI.images + "/face_frontal_1.png\n" + CLI.images + "/faces_two_1.png\n")
        XCTAssertEqual(m.status, 1)
        XCTAssertEqual(m.stdout, "")
        XCTAssertEqual(m.stderr.split(separator: "\n").count, 1, m.stderr)
    }
}
