import Dispatch
import Foundation
import TasksVision
import TasksVisionImageIO
import vision

/// Long-session check: one task runs over many frames (a ../shared/testdata sequence, looped)
/// in video or live-stream mode, and the process's resident memory is sampled every
/// `every` frames. After warm-up (the first 1,000 frames) it must stay within 2 %.
enum Soak {
    struct Sample: Codable { var frame: Int; var residentBytes: Int }

    /// Current resident set size (VmRSS), in bytes; 0 where /proc is missing.
    static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
        }
        return 0
    }

    static func frames(sequence: String) throws -> [MPImage] {
        let dir = TaskBenchmark.repositoryRoot + "/../shared/testdata/sequences/" + sequence
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".png") }.sorted()
        guard !names.isEmpty else { fail("no frames in \(dir)") }
        return try names.map { name in
            let d = try ImageFile.read(dir + "/" + name)
            return try MPImage(pixels: d.pixels, width: d.width, height: d.height,
                               pixelFormat: d.channels == 3 ? .rgb8 : (d.channels == 4 ? .rgba8 : .gray8))
        }
    }

    /// The task runs of the registry that have a sequence to soak over.
    static var tasks: [BenchmarkTask] { BenchmarkTask.all.filter { $0.entry.sequence != nil } }

    /// Runs `task` in `mode` ("video" or "live") over `count` frames; returns the samples.
    static func run(task name: String, mode: String, count: Int, every: Int, threads: Int) throws -> [Sample] {
        let live = mode == "live"
        guard live || mode == "video" else { fail("--mode takes video or live") }
        guard let task = tasks.first(where: { $0.entry.name == name }), let sequence = task.entry.sequence else {
            fail("unknown soak task '\(name)' (\(tasks.map(\.entry.name).joined(separator: ", ")))")
        }
        let images = try frames(sequence: sequence)
        // A live frame is waited for before the next, so every frame is processed.
        let run = try task.make(mode: live ? .liveStream : .video, threads: threads)
        let step = { (image: MPImage, timestamp: Int) in try run.run(image, timestamp: timestamp) }
        var samples: [Sample] = []
        for i in 0..<count {
            // Loop the sequence back and forth so that tracking sees continuous motion.
            let period = 2 * images.count - 2
            let k = i % max(period, 1)
            try step(images[k < images.count ? k : period - k], 33 * (i + 1))
            if (i + 1) % every == 0 { samples.append(Sample(frame: i + 1, residentBytes: residentBytes())) }
        }
        return samples
    }

    /// Growth of resident memory after warm-up, as a fraction of the first sample after it.
    static func growth(_ samples: [Sample], warmup: Int = 1000) -> Double {
        let after = samples.filter { $0.frame >= warmup }
        guard let first = after.first, first.residentBytes > 0 else { return 0 }
        let peak = after.map(\.residentBytes).max() ?? first.residentBytes
        return Double(peak - first.residentBytes) / Double(first.residentBytes)
    }

    static func main(task: String, mode: String, options: Options, frames count: Int, every: Int) {
        let tasks = task == "all" ? Self.tasks.map(\.entry.name) : [task]
        let modes = mode == "both" ? ["video", "live"] : [mode]
        var flat = true
        for t in tasks {
            for m in modes {
                let start = DispatchTime.now().uptimeNanoseconds
                let samples: [Sample]
                do {
                    samples = try run(task: t, mode: m, count: count, every: every, threads: options.threads.first ?? 1)
                } catch { fail("\(error)") }
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                let g = growth(samples)
                flat = flat && g <= 0.02
                if options.json {
                    let object: [String: Any] = ["task": t, "mode": m, "frames": count, "seconds": seconds, "growth": g,
                                                 "rssMB": samples.map { Double($0.residentBytes) / 1e6 }]
                    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
                    print(String(decoding: data, as: UTF8.self))
                } else {
                    let curve = samples.map {
                        String(format: "%.1f", Double($0.residentBytes) / 1e6)
                    }.joined(separator: " ")
                    print(String(format: "soak %@ %@: %d frames in %.0f s, RSS MB every %d frames: %@; growth after "
                                         + "1000 frames %.2f%% %@",
                                 t, m, count, seconds, every, curve, g * 100, g <= 0.02 ? "flat" : "GROWING"))
                }
            }
        }
        exit(flat ? 0 : 2)
    }
}
