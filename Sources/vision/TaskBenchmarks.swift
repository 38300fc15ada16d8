import Foundation
import TasksVision

/// One way vision-bench runs a task command's task (`--task NAME`, `--soak NAME`), declared by the command
/// (`TaskCommand.benchmarks`) and listed by `vision --help --json`.
public struct BenchmarkEntry {
    /// As `--task` names it: "hands-video".
    public let name: String
    /// Options of the command the run adds ("--num-hands", "2").
    public let arguments: [String]
    /// `.image`: the photo as one still image each time; `.video`: as video frames 33 ms apart.
    public let mode: RunningMode
    /// The photo in ../shared/testdata/images.
    public let photo: String
    /// The frame sequence in ../shared/testdata/sequences `--soak` runs it over (video and live stream); nil
    /// when it is not soaked.
    public let sequence: String?
    /// Other entries timed on the same frames, for comparison (palms: hands).
    public let alsoTimes: [String]
    /// The MediaPipe Tasks (Python) run it is compared with, if there is one.
    public let reference: Reference?

    /// A MediaPipe Tasks task as tools/bench_tasks.py and bench_memory.py run it: `vision.<task>` made
    /// with `model` from Models/ and `options`, called as `call` (`<call>_for_video` in video mode).
    public struct Reference: Encodable {
        public let task: String
        public let model: String
        public let call: String
        public let video: Bool
        public let options: [String: Int]

        init(_ task: String, model: String, call: String = "detect", video: Bool = false,
             options: [String: Int] = [:]) {
            self.task = task
            self.model = model
            self.call = call
            self.video = video
            self.options = options
        }
    }

    init(name: String, arguments: [String] = [], mode: RunningMode = .image, photo: String, sequence: String? = nil,
         alsoTimes: [String] = [], reference: Reference? = nil) {
        self.name = name
        self.arguments = arguments
        self.mode = mode
        self.photo = photo
        self.sequence = sequence
        self.alsoTimes = alsoTimes
        self.reference = reference
    }
}

/// A benchmark entry with the command it runs.
public struct BenchmarkTask {
    public let entry: BenchmarkEntry
    let command: any TaskCommand.Type

    /// The command's words: "hands".
    public var commandName: String { command.table.command }

    /// Every task run of the registry's task commands, in the registry's order.
    public static var all: [BenchmarkTask] {
        Commands.tasks.flatMap { command in command.benchmarks.map { BenchmarkTask(entry: $0, command: command) } }
    }

    public static func named(_ name: String) -> BenchmarkTask? { all.first { $0.entry.name == name } }

    /// Makes the task as `vision <command> <arguments>` would, in `mode` (the entry's by default), with
    /// `model` instead of the default one if given. Live-stream results are dropped.
    public func make(mode: RunningMode? = nil, threads: Int, model: String? = nil) throws -> BenchmarkRun {
        let arguments = entry.arguments + (model.map { ["--model", $0] } ?? []) + ["--threads", String(threads)]
        let options = try command.table.parse(arguments)
        let mode = mode ?? entry.mode
        let task = try command.maker(options).make(FrameTaskSetup(mode: mode, threads: threads, reporter: nil))
        return BenchmarkRun(task: task, mode: mode)
    }
}

/// A task made for the benchmark, called in its running mode.
public final class BenchmarkRun {
    let task: FrameTask
    public let mode: RunningMode

    init(task: FrameTask, mode: RunningMode) {
        self.task = task
        self.mode = mode
    }

    /// One frame: an image (the timestamp unused), a video frame, or a live-stream frame waited for.
    public func run(_ image: MPImage, timestamp: Int) throws {
        switch mode {
        case .image: _ = try task.image(image)
        case .video: _ = try task.video(image, timestamp: timestamp)
        case .liveStream:
            _ = try task.submit(image, timestamp: timestamp)
            task.drain()
        }
    }
}
