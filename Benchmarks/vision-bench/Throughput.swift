import Foundation

/// Throughput of the `vision` command over many files: the testdata photos and two video files (made
/// from testdata/sequences with ffmpeg) run as one `vision` process per input, and as one worker
/// (`--stdin --json`) with `--jobs 1` and `--jobs 2`. Reports inputs per second over the photos and
/// frames per second over the videos, each timed apart (wall clock).
enum Throughput {
    struct Row: Encodable {
        let way: String
        let inputs: Int
        let frames: Int
        let seconds: Double
        var perSecond: Double { Double(inputs) / seconds }
        var framesPerSecond: Double { Double(frames) / seconds }

        enum CodingKeys: String, CodingKey { case way, inputs, frames, seconds, perSecond, framesPerSecond }
        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(way, forKey: .way)
            try c.encode(inputs, forKey: .inputs)
            try c.encode(frames, forKey: .frames)
            try c.encode(seconds, forKey: .seconds)
            try c.encode(perSecond, forKey: .perSecond)
            try c.encode(framesPerSecond, forKey: .framesPerSecond)
        }
    }

    /// The `vision` executable built beside this one.
    static var vision: String {
        let exe = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        return exe.deletingLastPathComponent().appendingPathComponent("vision").path
    }

    /// Runs `args` (stdin from `input`), returns its standard output; fails the benchmark if it fails.
    static func run(_ executable: String, _ args: [String], input: String? = nil) -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        let out = Pipe(), stdin = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        if input != nil { p.standardInput = stdin }
        do { try p.run() } catch { fail("cannot run \(executable): \(error)") }
        if let input {
            let w = stdin.fileHandleForWriting
            DispatchQueue.global().async { w.write(Data(input.utf8)); try? w.close() }
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { fail("\(executable) \(args.joined(separator: " ")) failed") }
        return String(decoding: data, as: UTF8.self)
    }

    static func frames(_ output: String) -> Int {
        output.split(separator: "\n").filter { $0.contains("\"result\":") }.count
    }

    static func time(_ body: () -> String) -> (Double, String) {
        let start = DispatchTime.now().uptimeNanoseconds
        let out = body()
        return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, out)
    }

    static func main(task: String, json: Bool) {
        let shared = TaskBenchmark.repositoryRoot + "/../shared/testdata"
        let images = shared + "/images"
        let photos = ((try? FileManager.default.contentsOfDirectory(atPath: images)) ?? [])
            .filter { $0.hasSuffix(".png") || $0.hasSuffix(".jpg") }.sorted().map { images + "/" + $0 }
        guard !photos.isEmpty else { fail("no photos in \(images)") }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vision-bench-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        guard let ffmpeg = dirs.map({ $0 + "/ffmpeg" }).first(where: FileManager.default.isExecutableFile) else {
            fail("--throughput makes its videos with ffmpeg, which is not on PATH")
        }
        var videos: [String] = []
        for (sequence, rate) in [("pose_dance_1", 30), ("hand_asl_1", 25)] {
            let clip = dir + "/\(sequence).mkv"
            _ = run(ffmpeg, ["-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-framerate", String(rate),
                             "-i", shared + "/sequences/\(sequence)/%04d.png", "-c:v", "ffv1", clip])
            videos.append(clip)
        }
        var rows: [Row] = []
        for (kind, inputs) in [("photos", photos), ("videos", videos)] {
            let perProcess = time {
                inputs.map { p in
                    run(vision, [task, "--json"] + (kind == "videos" ? ["--video", p] : [p]))
                }.joined()
            }
            rows.append(Row(way: "\(kind): a process per input", inputs: inputs.count,
                            frames: frames(perProcess.1), seconds: perProcess.0))
            for jobs in [1, 2] {
                let t = time { run(vision, [task, "--stdin", "--json", "--jobs", String(jobs)],
                                   input: inputs.map { $0 + "\n" }.joined()) }
                rows.append(Row(way: "\(kind): --stdin --jobs \(jobs)", inputs: inputs.count,
                                frames: frames(t.1), seconds: t.0))
            }
        }
        if json {
            let e = JSONEncoder()
            e.outputFormatting = [.sortedKeys]
            for r in rows { print(String(decoding: (try? e.encode(r)) ?? Data(), as: UTF8.self)) }
            return
        }
        print("vision \(task): \(photos.count) photos, \(videos.count) videos "
              + "(\(ProcessInfo.processInfo.activeProcessorCount) cores)")
        for r in rows {
            let way = r.way.padding(toLength: 30, withPad: " ", startingAt: 0)
            print("  " + way + String(format: "%3d inputs %5d frames %7.2f s  %6.1f inputs/s %6.1f frames/s",
                                      r.inputs, r.frames, r.seconds, r.perSecond, r.framesPerSecond))
        }
    }
}
