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
    /// What follows an input's name in the files `--masks DIR` writes ("" for DIR/a.png; segment's category mask
    /// "_category"), so that `OutputRule` knows every file before any work.
    static func maskSuffixes(_ options: ParsedOptions) -> [String]
}

extension TaskCommand {
    static func run(_ options: ParsedOptions) throws {
        try TaskShell(options, try maker(options)).run()
    }

    static var benchmarks: [BenchmarkEntry] { [] }
    static func maskSuffixes(_ options: ParsedOptions) -> [String] { [""] }

    /// The outputs only a task command has, checked with the others before any work: `--overlay FILE.png`
    /// holds one photo's drawing, `--overlay FILE.mp4` a video's.
    static func checkOutputs(_ o: ParsedOptions, _ outputs: [OutputRule.Output]) throws {
        guard let overlay = o.string("--overlay") else { return }
        let worker = o.flag("--stdin") || o.isSet("--jobs")
        switch try OverlayPath.kind(overlay) {
        case .photo:
            let videos = "(" + VideoOutput.extensions.sorted().map { "." + $0 }.joined(separator: " ") + ")"
            if o.isSet("--video") {
                throw UsageError("--overlay \(overlay): a video's overlay is a folder (a PNG per frame) or a video "
                                 + "file \(videos)")
            }
            let names = worker ? [] : OutputNames.names(of: o)
            guard !worker, names.count == 1 else {
                throw UsageError("--overlay \(overlay): a single file can hold one photo's overlay; give a folder")
            }
        case .video:
            if worker {
                throw UsageError("with \(o.flag("--stdin") ? "--stdin" : "--jobs"), --overlay takes a folder (a PNG "
                                 + "per frame), not a video file")
            }
            if !o.isSet("--video") {
                throw UsageError("--overlay \(PathText.lastComponent(overlay)) writes a video of --video input; "
                                 + "give a folder for the images' overlays")
            }
        case .folder:
            break
        }
    }
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
        // From here a signal ends the run cleanly (see Interrupt).
        Interrupt.cooperate()
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
