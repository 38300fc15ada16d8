import Foundation
import TasksVision

/// A command that runs a vision task over images, folders, videos and cameras (faces, palms, hands,
/// gestures, pose). It says how to make its task from its options (`maker`); `run` is the shell's, and
/// the benchmark makes the same task from `benchmarks`.
protocol TaskCommand: VisionCommand {
    /// Reads the options once per run (files to read once, checks to make before any input) and returns
    /// how to make the task for a running mode.
    static func maker(_ options: ParsedOptions) throws -> TaskMaker
    /// The task's runs in vision-bench (`--task`, `--soak`), and in `vision --help --json`.
    static var benchmarks: [BenchmarkEntry] { get }
}

extension TaskCommand {
    static func run(_ options: ParsedOptions) throws {
        // Output folders are checked before any file is read.
        try FrameImageWriter.check(options)
        try TaskShell(options, try maker(options)).run()
    }

    static var benchmarks: [BenchmarkEntry] { [] }
}

/// How a task command makes its task for a running mode.
struct TaskMaker {
    /// Whether an image-mode task carries state from one image to the next (pose's `--mode stream`):
    /// then each worker input gets a task of its own, as when run alone.
    var imagesKeepState = false
    let make: (FrameTaskSetup) throws -> FrameTask

    init(imagesKeepState: Bool = false, make: @escaping (FrameTaskSetup) throws -> FrameTask) {
        self.imagesKeepState = imagesKeepState
        self.make = make
    }
}

/// The one run loop of every task command: runs the input of the command line through the task, or in
/// worker mode (`--stdin`, `--jobs N`) keeps the task and runs input after input (`WorkerRun`).
struct TaskShell {
    let options: ParsedOptions
    let maker: TaskMaker

    init(_ options: ParsedOptions, _ maker: TaskMaker) {
        self.options = options
        self.maker = maker
    }

    var imagesKeepState: Bool { maker.imagesKeepState }

    func make(_ setup: FrameTaskSetup) throws -> FrameTask { try maker.make(setup) }

    func run() throws {
        if options.flag("--stdin") || options.isSet("--jobs") {
            try WorkerRun(self).run()
            return
        }
        let input = try FrameInput(options)
        let reporter = try FrameReporter(options, input: input)
        let task = try make(FrameTaskSetup(mode: input.runningMode, threads: try options.int("--threads"),
                                           reporter: reporter))
        try TaskRun.run(input, task, reporter)
    }
}
