import Foundation
import TasksVision

/// Worker mode: `vision <task> --stdin --json` reads one input a line (a path, or `ID<TAB>PATH`) and
/// `--jobs N` runs N inputs at once (from --stdin or PATH...). The task is made once and kept for
/// images; each video (and each input of a task whose images keep state) gets a new task, so every
/// input's results are those of a run of its own. An input that fails is reported and the run goes on.
/// With `--jobs N` each input runs on a task instance of its own with one thread; its lines go out in input
/// order as they are made (`OrderedOutput`), so the output equals that of `--jobs 1`.
final class WorkerRun {
    /// One input: where it came from in order, its id, its path.
    struct Input {
        let index: Int
        let id: String?
        let path: String
    }

    /// A running task instance and the image-mode task it keeps between inputs.
    final class Slot {
        var imageTask: FrameTask?
    }

    let shell: TaskShell
    let jobs: Int
    let threads: Int
    /// `--stdin`: inputs from standard input, written as records (`ReportOutput`).
    let fromStdin: Bool
    /// Taking inputs (which may wait on standard input) and counting failures have locks of their own, so a
    /// finished input is written while another thread waits for the next line.
    private let inputLock = NSLock(), countLock = NSLock()
    private var positional: [String]
    private var nextIndex = 0
    private var failed = 0
    /// An output that cannot be written (a full disk): no further input is taken.
    private var stopError: Error?
    private let output = OrderedOutput()

    init(_ shell: TaskShell) throws {
        let o = shell.options
        self.shell = shell
        fromStdin = o.flag("--stdin")
        jobs = try o.number("--jobs").map { Int($0) } ?? 1
        let threads = try o.int("--threads")
        if jobs > 1 && threads > 1 {
            throw UsageError("--jobs \(jobs) runs each input on one thread: leave out --threads, or use --jobs 1")
        }
        self.threads = jobs > 1 ? 1 : threads
        positional = o.positional
        if fromStdin {
            guard o.flag("--json") else { throw UsageError("--stdin writes JSON records: add --json") }
            guard o.positional.isEmpty else {
                throw UsageError("--stdin reads its inputs from standard input; give no PATH "
                                 + "(got \(o.positional.joined(separator: " ")))")
            }
        } else if o.positional.isEmpty {
            throw UsageError("--jobs needs inputs: PATH... or --stdin")
        }
        let mode = fromStdin ? "--stdin" : "--jobs"
        if o.isSet("--video") {
            throw UsageError("--video names one input; with \(mode) give each video file as an input")
        }
        if let stray = ["--live", "--fps"].first(where: o.isSet) {
            throw UsageError("\(stray) does not apply to \(mode) inputs")
        }
        if let overlay = o.string("--overlay"), try OverlayPath.kind(overlay) != .folder {
            throw UsageError("with \(mode), --overlay takes a folder (a PNG per frame), not a file")
        }
    }

    func run() throws {
        TaskCommandSupport.showsProgress = jobs == 1 && !fromStdin
        let slots = (0..<jobs).map { _ in Slot() }
        // The task is loaded before the first input: a bad model is one error, not one per input.
        slots[0].imageTask = try shell.make(FrameTaskSetup(mode: .image, threads: threads, reporter: nil))
        if jobs == 1 {
            while let input = next() { process(input, on: slots[0]) }
        } else {
            let group = DispatchGroup()
            for slot in slots {
                group.enter()
                let thread = Thread { [self] in
                    while let input = next() { process(input, on: slot) }
                    group.leave()
                }
                // As much stack as the main thread has, for the inference.
                thread.stackSize = 8 << 20
                thread.start()
            }
            group.wait()
        }
        inputLock.lock(); defer { inputLock.unlock() }
        countLock.lock(); defer { countLock.unlock() }
        if failed > 0 { throw InputFailures(failed: failed, total: nextIndex) }
    }

    /// The next input (read under the lock, so each is taken once, and given its place in the output); nil at the
    /// end, after Ctrl-C, or after an output failed.
    private func next() -> Input? {
        inputLock.lock(); defer { inputLock.unlock() }
        if Interrupt.requested { return nil }
        countLock.lock(); let stop = stopError != nil; countLock.unlock()
        if stop { return nil }
        while true {
            let line: String
            if fromStdin {
                guard let l = StandardInputLines.next() else { return nil }
                line = l.hasSuffix("\r") ? String(l.dropLast()) : l
                if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            } else {
                guard !positional.isEmpty else { return nil }
                line = positional.removeFirst()
            }
            defer { nextIndex += 1 }
            if fromStdin, let tab = line.firstIndex(of: "\t") {
                return Input(index: nextIndex, id: String(line[..<tab]), path: String(line[line.index(after: tab)...]))
            }
            return Input(index: nextIndex, id: nil, path: line)
        }
    }

    /// Runs one input on `slot`, its lines going out in the run's order.
    private func process(_ input: Input, on slot: Slot) {
        let index = input.index
        let sink: (String) -> Void = { [output] line in output.emit(index, line) }
        let report = fromStdin ? ReportOutput(input: input.path, id: input.id, sink: sink) : ReportOutput(sink: sink)
        output.start(index) { report.interruptedRecord }
        defer { output.finish(index) }
        var ok = true
        do {
            // The rule between outputs and inputs, for an input that was not on the command line.
            if fromStdin { try OutputRule.checkWorkerInput(input.path, shell.options) }
            let frames = try FrameInput(worker: input.path, shell.options)
            let reporter = try FrameReporter(shell.options, input: frames, output: report)
            let task: FrameTask
            if frames.runningMode == .image && !shell.imagesKeepState, let kept = slot.imageTask {
                task = kept
            } else {
                task = try shell.make(FrameTaskSetup(mode: frames.runningMode, threads: threads, reporter: reporter))
                if frames.runningMode == .image && !shell.imagesKeepState { slot.imageTask = task }
            }
            try TaskRun.run(frames, task, reporter)
        } catch _ where Interrupt.requested {
            // Stopped part way: the input's record says so below.
        } catch is InputFailures {
            // Each failed frame has been reported.
            ok = false
        } catch {
            ok = false
            let message = ErrorText.describe(error)
            report.error(message.hasPrefix(input.path) ? message : "\(input.path): \(message)")
            if FrameReporter.stopsTheRun(error) {
                countLock.lock(); if stopError == nil { stopError = error }; countLock.unlock()
            }
        }
        // An input a signal stopped part way gets an `interrupted` record instead of `done`.
        if Interrupt.requested { report.interrupted() } else { report.done() }
        if !ok { countLock.lock(); failed += 1; countLock.unlock() }
    }
}
