import Dispatch
import Foundation
import TasksVisionEngine
import TasksVisionKernels
import TasksVisionFormat
import vision

// vision-bench: latency of each model on the engine (and, later, of each vision task).
//
//   vision-bench                                   every model in Models/, 1 and 2 threads, with op breakdown
//   vision-bench --model PATH --threads N --runs N --json
//   vision-bench --soak all --frames 10000         memory over long video and live-stream sessions
//                                                  one model, one JSON object on stdout

setvbuf(stdout, nil, _IOLBF, 0)
BLASConfiguration.relaunchWithBetterBLASKernelsIfNeeded()

struct Options {
    var models: [String] = []
    var threads: [Int] = [1, 2]
    var runs = 100
    var warmup = 10
    var json = false
    var profile = true
    var layers = false
    var apart = false
    /// Runs and layers timed by the calling thread's CPU time (a loaded machine's preemptions left out; one thread).
    var cpuTime = false
    var task: String? = nil
    var image: String? = nil
    var sizes: [(Int, Int)] = []
    var soak: String? = nil
    var soakMode = "both"
    var soakFrames = 10_000
    var soakEvery = 500
    var kernels: KernelSet? = nil
    var peak = false
    /// Inverted-residual blocks interleaved or layer after layer (nil: the kernel set's default).
    var interleave: Bool?
    /// `MxKxN` products to time the kernel set's GEMM on.
    var gemmShapes: [String] = []
    var quantizedGEMMShapes: [String] = []
    var quantizedDepthwiseShapes: [String] = []
    /// `HxWxC:k[:s]` maps to time the kernel set's depthwise convolution on.
    var depthwiseShapes: [String] = []
    /// `SRCWxSRCH:DSTWxDSTH` image-to-tensor warps (MediaPipe's CPU crop) to time.
    var warpShapes: [String] = []
    var explicitModels = false
    /// A task to time the `vision` command's throughput on (`Throughput`).
    var throughput: String?
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("vision-bench: \(message)\n".utf8))
    exit(1)
}

func parse() -> Options {
    var o = Options()
    var args = Array(CommandLine.arguments.dropFirst())
    var explicitThreads: [Int] = []
    while !args.isEmpty {
        let a = args.removeFirst()
        func value() -> String {
            guard !args.isEmpty else { fail("\(a) needs a value") }
            return args.removeFirst()
        }
        switch a {
        case "--model": o.models.append(value()); o.explicitModels = true
        case "--threads":
            guard let t = Int(value()), t >= 1 else { fail("--threads takes a positive number") };
            explicitThreads.append(t)
        case "--runs": guard let r = Int(value()), r >= 1 else { fail("--runs takes a positive number") }; o.runs = r
        case "--warmup": guard let w = Int(value()), w >= 0 else { fail("--warmup takes a number") }; o.warmup = w
        case "--json": o.json = true
        case "--no-profile": o.profile = false
        case "--layers": o.layers = true
        case "--apart": o.layers = true; o.apart = true
        case "--cpu-time": o.cpuTime = true
        case "--kernels":
            do { o.kernels = try KernelSet.named(value()) } catch { fail("\(error)") }
        case "--peak": o.peak = true
        case "--interleave":
            switch value() { case "on": o.interleave = true; case "off": o.interleave = false
            default: fail("--interleave takes on or off") }
        case "--gemm": o.gemmShapes += value().split(separator: ",").map(String.init)
        case "--qgemm": o.quantizedGEMMShapes += value().split(separator: ",").map(String.init)
        case "--qdwconv": o.quantizedDepthwiseShapes += value().split(separator: ",").map(String.init)
        case "--warp": o.warpShapes += value().split(separator: ",").map(String.init)
        case "--dwconv": o.depthwiseShapes += value().split(separator: ",").map(String.init)
        case "--task": o.task = value()
        case "--soak": o.soak = value()
        case "--throughput": o.throughput = value()
        case "--mode": o.soakMode = value()
        case "--frames":
            guard let f = Int(value()), f >= 1 else { fail("--frames takes a positive number") }; o.soakFrames = f
        case "--every":
            guard let e = Int(value()), e >= 1 else { fail("--every takes a positive number") }; o.soakEvery = e
        case "--image": o.image = value()
        case "--size":
            let v = value().split(separator: "x").compactMap { Int($0) }
            guard v.count == 2, v[0] > 0, v[1] > 0 else { fail("--size takes WxH") }
            o.sizes.append((v[0], v[1]))
        case "-h", "--help":
            print("usage: vision-bench [--model PATH]... [--threads N]... [--runs N] [--warmup N] [--json]"
                + " [--no-profile]"
                + " [--layers] [--apart] [--kernels SET] [--peak] [--gemm MxKxN[+r],...] [--qgemm MxKxN,...]"
                + " [--qdwconv HxWxC:k[:s],...]"
                + " [--dwconv HxWxC:k[:s],...] [--warp SWxSH:DWxDH,...]"
                + " [--interleave on|off] [--cpu-time]")
            // The task names come from vision's command registry (BenchmarkTask).
            let runs = BenchmarkTask.all.map(\.entry.name)
            let commands = BenchmarkTask.all.map(\.commandName).reduce(into: [String]()) {
                if !$0.contains($1) { $0.append($1) }
            }
            print("       vision-bench --task \(runs.joined(separator: "|"))\n"
                + "                    [--image PATH] [--size WxH]... [--runs N] [--json]")
            print("       vision-bench --task pose-classify [--image SAMPLES.csv] [--runs N] [--json]")
            print("       vision-bench --soak \((Soak.tasks.map(\.entry.name) + ["all"]).joined(separator: "|")) "
                + "[--mode video|live|both] [--frames N] [--every N] [--json]")
            print("       vision-bench --throughput \(commands.joined(separator: "|")) [--json]"
                + "   (inputs/s of the vision command: a process per input, --jobs 1, --jobs 2)")
            exit(0)
        default: fail("unknown argument '\(a)'")
        }
    }
    if !explicitThreads.isEmpty { o.threads = explicitThreads }
    if o.models.isEmpty {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path + "/Models"
        o.models = defaultModels.map { "\(dir)/\($0)" }
    }
    return o
}

let defaultModels = [
    "palm_detection_full.tflite", "palm_detection_lite.tflite", "hand_landmark_full.tflite",
    "hand_landmark_lite.tflite",
    "face_detection_short_range.tflite", "face_detection_full_range_sparse.tflite", "face_detection_full_range.tflite",
    "pose_detection.tflite", "pose_landmark_full.tflite", "pose_landmarks_detector.tflite",
    "gesture_embedder.tflite", "canned_gesture_classifier.tflite",
]

/// Peak resident memory of this process, in bytes.
func peakResidentBytes() -> Int {
    if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kb = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
            return kb * 1024
        }
    }
    var usage = rusage()
    #if os(Linux)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    #if os(Linux)
    return Int(usage.ru_maxrss) * 1024
    #else
    return Int(usage.ru_maxrss)
    #endif
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
/// The calling thread's CPU time, in nanoseconds.
func threadCPUTime() -> UInt64 { Interpreter.threadCPUNanoseconds() }

let options = parse()
/// Peak resident bytes before any model is loaded: the process's own baseline.
let baselineBytes = peakResidentBytes()
/// The kernel set the microbenchmarks (`--peak`, `--dwconv`, `--gemm`) run on.
let microbenchmarkSet = options.kernels ?? (try? KernelSet.fromEnvironment()) ?? .portable
if options.peak {
    let cpu = CPUFeatures.current.modelName
    if let gflops = microbenchmarkSet.measuredFMAPeak(seconds: 1) {
        print(String(format: "FMA peak, one core, %@ vectors: %.1f GFLOP/s (%@)", microbenchmarkSet.rawValue, gflops,
                     cpu))
    } else {
        print("kernel set \(microbenchmarkSet) has no FMA kernels (\(cpu))")
    }
}
for shape in options.depthwiseShapes {
    // HxWxC:k or HxWxC:k:s (stride 1 by default).
    let parts = shape.split(separator: ":")
    let d = parts.first.map { $0.split(separator: "x").compactMap { Int($0) } } ?? []
    let k = parts.count > 1 ? Int(parts[1]) : nil, s = parts.count > 2 ? Int(parts[2]) : 1
    guard d.count == 3, parts.count <= 3, let k, let s,
          let gflops = microbenchmarkSet.measuredDepthwise(height: d[0], width: d[1], channels: d[2], kernel: k,
                                                           stride: s) else {
        fail("--dwconv takes HxWxC:k or HxWxC:k:s with positive sizes (e.g. 56x56x144:3:2), not \(shape)")
    }
    print(String(format: "DWCONV %@ %dx%dx%d k%dx%d s%d: %.1f GFLOP/s", microbenchmarkSet.rawValue, d[0], d[1], d[2],
                 k, k, s, gflops))
}
for shape in options.gemmShapes {
    // MxKxN, or MxKxN+r with a residual ADD in the epilogue.
    let set = microbenchmarkSet
    let residual = shape.hasSuffix("+r")
    let d = shape.dropLast(residual ? 2 : 0).split(separator: "x").compactMap { Int($0) }
    guard d.count == 3, let gflops = set.measuredGEMM(m: d[0], k: d[1], n: d[2], residual: residual),
          let cold = set.measuredGEMM(m: d[0], k: d[1], n: d[2], residual: residual, runs: 10, cold: true) else {
        fail("--gemm takes MxKxN or MxKxN+r (e.g. 3136x24x144) on an FMA kernel set, not \(shape) on \(set)")
    }
    print(String(format: "GEMM %@ m %d k %d n %d%@: %.1f GFLOP/s, cold caches %.1f", set.rawValue, d[0], d[1], d[2],
                 residual ? " +residual" : "", gflops, cold))
}
for shape in options.quantizedGEMMShapes {
    let d = shape.split(separator: "x").compactMap { Int($0) }
    guard d.count == 3, let gops = microbenchmarkSet.measuredQuantizedGEMM(m: d[0], k: d[1], n: d[2]) else {
        fail("--qgemm takes MxKxN (e.g. 3136x24x144), not \(shape)")
    }
    print(String(format: "QGEMM %@ m %d k %d n %d: %.1f GOP/s", microbenchmarkSet.rawValue, d[0], d[1], d[2], gops))
}
for shape in options.quantizedDepthwiseShapes {
    let parts = shape.split(separator: ":")
    let d = parts.first.map { $0.split(separator: "x").compactMap { Int($0) } } ?? []
    let k = parts.count > 1 ? Int(parts[1]) : nil, s = parts.count > 2 ? Int(parts[2]) : 1
    guard d.count == 3, parts.count <= 3, let k, let s,
          let gops = microbenchmarkSet.measuredQuantizedDepthwise(height: d[0], width: d[1], channels: d[2], kernel: k,
                                                                  stride: s) else {
        fail("--qdwconv takes HxWxC:k or HxWxC:k:s with positive sizes (e.g. 56x56x144:3:2), not \(shape)")
    }
    print(String(format: "QDWCONV %@ %dx%dx%d k%dx%d s%d: %.1f GOP/s", microbenchmarkSet.rawValue, d[0], d[1], d[2],
                 k, k, s, gops))
}
WarpBenchmark.run(options.warpShapes, runs: options.runs)
let microbenchmarksOnly = options.peak || !options.depthwiseShapes.isEmpty || !options.warpShapes.isEmpty
    || !options.gemmShapes.isEmpty
    || !options.quantizedGEMMShapes.isEmpty || !options.quantizedDepthwiseShapes.isEmpty
if microbenchmarksOnly && !options.explicitModels && options.task == nil && options.soak == nil { exit(0) }
if let task = options.throughput {
    Throughput.main(task: task, json: options.json)
    exit(0)
}
if let soak = options.soak {
    Soak.main(task: soak, mode: options.soakMode, options: options, frames: options.soakFrames,
              every: options.soakEvery)
}
if let task = options.task {
    TaskBenchmark.run(task: task, options: options)
    exit(0)
}
for path in options.models {
    for threads in options.threads {
        let interpreter: Interpreter
        do {
            interpreter = try Interpreter(path: path, options: .init(threads: threads, kernels: options.kernels,
                                                                     interleavesBlocks: options.interleave))
        } catch {
            fail("\(error)")
        }
        // A fixed pseudo-random input in [0, 1) (a quantized input: pseudo-random bytes).
        for i in 0..<interpreter.inputs.count {
            var x: UInt32 = 2_463_534_242
            func next() -> UInt32 { x ^= x << 13; x ^= x >> 17; x ^= x << 5; return x }
            if interpreter.inputs[i].type == .float32 {
                interpreter.stageInput(i) { buffer in
                    for j in buffer.indices { buffer[j] = Float(next() >> 8) / Float(1 << 24) }
                }
            } else {
                interpreter.stageInputBytes(i) { buffer in
                    for j in buffer.indices { buffer[j] = UInt8(truncatingIfNeeded: next() >> 24) }
                }
            }
        }
        // The arena reuses an input's memory during a run: every run starts from the same inputs, set untimed
        // (a kernel's speed may depend on its values: the sigmoid's on how far below zero they are).
        // As bytes, whatever the input's type (a uint8 or int8 input has no float view).
        let inputBytes = (0..<interpreter.inputs.count).map { i in interpreter.stageInputBytes(i) { [UInt8]($0) } }
        func resetInputs() {
            for (i, bytes) in inputBytes.enumerated() {
                interpreter.stageInputBytes(i) { buffer in buffer.copyBytes(from: bytes) }
            }
        }
        for _ in 0..<options.warmup { resetInputs(); interpreter.invoke() }
        var times: [Double] = []
        times.reserveCapacity(options.runs)
        let clock = options.cpuTime ? threadCPUTime : now
        for _ in 0..<options.runs {
            resetInputs()
            let t0 = clock()
            interpreter.invoke()
            times.append(Double(clock() - t0) / 1e6)
        }
        times.sort()
        let median = times.count % 2 == 1
            ? times[times.count / 2] : (times[times.count / 2 - 1] + times[times.count / 2]) / 2
        let name = URL(fileURLWithPath: ModelAsset.splitPath(path).file).lastPathComponent
            + (ModelAsset.splitPath(path).members.map { ":" + $0 }.joined())
        if options.json {
            let object: [String: Any] = ["model": name, "threads": threads, "runs": options.runs,
                                         "kernels": interpreter.kernelSet.rawValue,
                                         "minMs": times[0], "medianMs": median, "maxMs": times[times.count - 1],
                                         "gflops": interpreter.flops / (median / 1e3) / 1e9,
                                         "peakBytes": peakResidentBytes(),
                                         "baselineBytes": baselineBytes]
            let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            continue
        }
        print(String(format: "%@  kernels %@  threads %d  runs %d  min %.3f ms  median %.3f ms  max %.3f ms  %.1f "
                             + "GFLOP/s  peak RSS %.1f MB",
                     name, interpreter.kernelSet.rawValue, threads, options.runs, times[0], median,
                     times[times.count - 1],
                     interpreter.flops / (median / 1e3) / 1e9, Double(peakResidentBytes()) / 1e6))
        if options.layers {
            for l in interpreter.layerTimes(runs: 20, apart: options.apart, threadCPUTime: options.cpuTime) {
                print(String(format: "    %-18@ %-40@ %7.3f ms %6.1f GFLOP/s", l.kind as NSString, l.detail as NSString,
                             l.seconds * 1e3, l.flops / max(l.seconds, 1e-12) / 1e9))
            }
        }
        if options.profile {
            var profile: [String: Interpreter.OpProfile] = [:]
            let profileRuns = max(10, options.runs / 5)
            for _ in 0..<profileRuns { resetInputs(); interpreter.invoke(profile: &profile) }
            let total = profile.values.reduce(0) { $0 + $1.seconds }
            for p in profile.values.sorted(by: { $0.seconds > $1.seconds }) {
                print(String(format: "    %-20@ %3d ops  %7.3f ms  %5.1f%%  %6.1f GFLOP/s", p.kind as NSString,
                             p.count / profileRuns,
                             p.seconds / Double(profileRuns) * 1e3, p.seconds / max(total, 1e-12) * 100,
                             p.flops / max(p.seconds, 1e-12) / 1e9))
            }
        }
    }
}
