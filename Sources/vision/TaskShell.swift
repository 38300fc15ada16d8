import Foundation
import TasksVision

/// What a task command is given to make its task: the running mode of the input, the threads of one
/// inference, and where live-stream results go.
struct TaskSetup {
    let mode: RunningMode
    let threads: Int
    /// The reporter of the input (nil for a task made before any input; such a task runs no live stream).
    let reporter: FrameReporter?

    /// A live-stream result, on the task's queue.
    func deliver(_ result: Result<FrameReport, Error>, timestamp: Int) {
        reporter?.deliver(result, timestamp: timestamp)
    }
}

/// The one run loop of every task command. The command parses its options and says how to make its
/// task for a running mode (`make`); the shell runs the input of the command line through it, or in
/// worker mode (`--stdin`, `--jobs N`) keeps the task and runs input after input (`WorkerRun`).
struct TaskShell {
    let options: ParsedOptions
    /// Whether an image-mode task carries state from one image to the next (pose's `--mode stream`):
    /// then each worker input gets a task of its own, as when run alone.
    var imagesKeepState = false
    let make: (TaskSetup) throws -> TaskCalls

    init(_ options: ParsedOptions, imagesKeepState: Bool = false, make: @escaping (TaskSetup) throws -> TaskCalls) {
        self.options = options
        self.imagesKeepState = imagesKeepState
        self.make = make
    }

    func run() throws {
        // From here a signal ends the run cleanly (see Interrupt).
        Interrupt.cooperate()
        try OutputNames.checkDistinct(options)
        if options.flag("--stdin") || options.isSet("--jobs") {
            try WorkerRun(self).run()
            return
        }
        let input = try FrameInput(options)
        let reporter = try FrameReporter(options, input: input)
        let calls = try make(TaskSetup(mode: input.runningMode, threads: try options.int("--threads"),
                                       reporter: reporter))
        try TaskRun.run(input, calls, reporter)
    }
}
