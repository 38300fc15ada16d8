import Foundation
import XCTest

/// `--jobs N` writes each input's records as its frames are made (in input order), and Ctrl-C keeps every record
/// already made, then an `interrupted` record per unfinished input (issue 48): every time, also under load.
final class WorkerStreamingTests: XCTestCase {
    /// Two clips of 1,240 frames (50 s) of different content.
    func makeClips(in dir: String) throws -> [String] {
        var clips: [String] = []
        for (i, sequence) in ["pose_dance_1", "hand_asl_1"].enumerated() {
            let clip = dir + "/clip\(i).mkv"
            try CLI.ffmpeg(["-stream_loop", "30", "-framerate", "25", "-i", CLI.sequences + "/\(sequence)/%04d.png",
                            "-vf", "scale=320:-2", "-c:v", "mpeg4", "-q:v", "8", clip])
            clips.append(clip)
        }
        return clips
    }

    /// Starts vision with `args`, its standard output into `out`; returns the process.
    func start(_ args: [String], out: String, input: String? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.executable)
        process.arguments = args
        FileManager.default.createFile(atPath: out, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        process.standardError = FileHandle.nullDevice
        if let input {
            let pipe = Pipe()
            process.standardInput = pipe
            try process.run()
            pipe.fileHandleForWriting.write(Data(input.utf8))
            try pipe.fileHandleForWriting.close()
        } else {
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }
        return process
    }

    /// Waits until `out` holds a whole line (at most 60 s).
    func waitForALine(_ out: String, _ process: Process) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && process.isRunning {
            if let text = try? String(contentsOfFile: out, encoding: .utf8), text.contains("\n") { return true }
            usleep(20_000)
        }
        return false
    }

    /// Twenty runs of `segment --stdin --json --jobs 2` over two videos, each stopped by SIGINT a different time
    /// after its first record: exit 130, every line a record, the inputs' records in input order, each input that
    /// has records ending with `interrupted` (or `done`) whose frame count is its result lines.
    func testInterruptKeepsEveryRecordTwentyTimes() throws {
        _ = try CLI.requireFFmpeg()
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let clips = try makeClips(in: dir)
        for run in 0..<20 {
            let out = dir + "/out\(run).jsonl"
            let process = try start(["segment", "--stdin", "--json", "--jobs", "2"], out: out,
                                    input: clips.joined(separator: "\n") + "\n")
            XCTAssertTrue(waitForALine(out, process), "run \(run): a record before the signal")
            usleep(useconds_t(run % 5) * 150_000)
            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 130, "run \(run)")
            let records = try CLI.jsonLines(try String(contentsOfFile: out, encoding: .utf8))
            XCTAssertFalse(records.isEmpty, "run \(run)")
            let order = records.compactMap { $0["input"] as? String }
            XCTAssertEqual(order.count, records.count, "run \(run): every line is a record")
            // Input order: all of clip0's records, then clip1's.
            let firstOfSecond = order.firstIndex(of: clips[1]) ?? order.count
            XCTAssertTrue(order[..<firstOfSecond].allSatisfy { $0 == clips[0] }, "run \(run)")
            XCTAssertTrue(order[firstOfSecond...].allSatisfy { $0 == clips[1] }, "run \(run)")
            for clip in clips {
                let mine = records.filter { $0["input"] as? String == clip }
                guard let last = mine.last else { continue }
                let results = mine.filter { $0["result"] != nil }
                XCTAssertTrue(last["interrupted"] as? Bool == true || last["done"] as? Bool == true,
                              "run \(run) \(clip): ends with \(last)")
                XCTAssertEqual(last["frames"] as? Int, results.count, "run \(run) \(clip)")
                XCTAssertEqual(results.compactMap { $0["frame"] as? Int }, Array(0..<results.count), "run \(run)")
            }
            // The signal came within 0.6 s of the first record, long before the first video's 1,240 frames were
            // done: its records were written as they were made, not when it ended.
            let first = records.filter { $0["input"] as? String == clips[0] }
            XCTAssertEqual(first.last?["interrupted"] as? Bool, true, "run \(run): \(first.last ?? [:])")
        }
    }

    /// Without --stdin too, `--jobs 2` writes the first video's lines while it is in progress, not when it ends.
    func testJobsStreamWhileAVideoRuns() throws {
        _ = try CLI.requireFFmpeg()
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let clips = try makeClips(in: dir)
        let out = dir + "/out.jsonl"
        let process = try start(["hands", "--json", "--jobs", "2"] + clips, out: out)
        XCTAssertTrue(waitForALine(out, process))
        let early = try CLI.jsonLines(String(contentsOfFile: out, encoding: .utf8)
            .split(separator: "\n").dropLast().joined(separator: "\n"))
        // Still running: the video has 1,240 frames, and its first lines are out, not all of them at its end.
        XCTAssertTrue(process.isRunning)
        XCTAssertLessThan(early.count, 1240)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        let all = try CLI.jsonLines(try String(contentsOfFile: out, encoding: .utf8))
        XCTAssertGreaterThanOrEqual(all.count, early.count)
        XCTAssertTrue(all.allSatisfy { $0["file"] as? String != nil })
        let firstOfSecond = all.firstIndex { $0["file"] as? String == clips[1] } ?? all.count
        XCTAssertTrue(all[..<firstOfSecond].allSatisfy { $0["file"] as? String == clips[0] })
    }
}
