import Dispatch
import Foundation
import TasksVision
import TasksVisionImageIO
import vision

/// Per-frame latency of whole vision tasks (preprocessing, inference, postprocessing).
enum TaskBenchmark {
    static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    /// The photo resized (bilinear) to `width` x `height` RGB.
    static func frame(_ path: String, width: Int, height: Int) throws -> MPImage {
        let d = try ImageFile.read(path)
        let src = try MPImage(pixels: d.pixels, width: d.width, height: d.height,
                              pixelFormat: d.channels == 3 ? .rgb8 : (d.channels == 4 ? .rgba8 : .gray8))
        let rgb = ImageToTensor.warp(src,
                                     roi: RotatedRect(centerX: Float(d.width) / 2, centerY: Float(d.height) / 2,
                                                      width: Float(d.width), height: Float(d.height), rotation: 0),
                                     width: width, height: height, border: .replicate)
        return try MPImage(pixels: rgb, width: width, height: height, pixelFormat: .rgb8)
    }

    static func time(runs: Int, warmup: Int, _ body: () throws -> Void) rethrows -> [Double] {
        for _ in 0..<warmup { try body() }
        var times: [Double] = []
        for _ in 0..<runs {
            let t0 = DispatchTime.now().uptimeNanoseconds
            try body()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
        }
        return times.sorted()
    }

    static func report(_ name: String, _ size: (Int, Int), _ times: [Double], json: Bool, threads: Int) {
        let median = times.count % 2 == 1
            ? times[times.count / 2] : (times[times.count / 2 - 1] + times[times.count / 2]) / 2
        if json {
            let object: [String: Any] = ["task": name, "width": size.0, "height": size.1, "threads": threads,
                                         "runs": times.count,
                                         "minMs": times[0], "medianMs": median, "maxMs": times[times.count - 1]]
            let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(String(format: "%@ %dx%d threads %d: min %.3f ms  median %.3f ms  max %.3f ms", name, size.0, size.1,
                         threads, times[0], median, times[times.count - 1]))
        }
    }

    /// Benchmarks of the bench's own, beside the task commands' runs (`BenchmarkTask.all`).
    static let own: [String: (Options) throws -> Void] = ["pose-classify": PoseClassifyBenchmark.run]

    /// Every name `--task` takes: the registry's task runs, then the bench's own.
    static var names: [String] { BenchmarkTask.all.map(\.entry.name) + own.keys.sorted() }

    /// Times a task run of the registry (as `vision <command>` makes its task) on the photo at each size,
    /// and the runs it is compared with on the same frames.
    static func run(task name: String, options: Options) {
        let sizes = options.sizes.isEmpty ? [(640, 480), (1280, 720)] : options.sizes
        let threads = options.threads.first ?? 1
        do {
            if let benchmark = own[name] { return try benchmark(options) }
            guard let task = BenchmarkTask.named(name) else {
                fail("unknown task '\(name)' (\(names.joined(separator: ", ")))")
            }
            let compared = task.entry.alsoTimes.compactMap(BenchmarkTask.named)
            let photo = options.image ?? (repositoryRoot + "/../shared/testdata/images/" + task.entry.photo)
            let model = options.explicitModels ? options.models.first : nil
            for size in sizes {
                let image = try frame(photo, width: size.0, height: size.1)
                for t in [task] + compared {
                    // A task of its own per size: stream modes start tracking afresh.
                    let run = try t.make(threads: threads, model: t.entry.name == name ? model : nil)
                    var timestamp = 0
                    report(t.entry.name, size, try time(runs: options.runs, warmup: options.warmup) {
                        timestamp += 33
                        try run.run(image, timestamp: timestamp)
                    }, json: options.json, threads: threads)
                }
            }
        } catch {
            fail("\(error)")
        }
    }
}
