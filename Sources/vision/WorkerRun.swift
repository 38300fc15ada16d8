import Foundation
import TasksVision

/// Worker mode: `vision <task> --stdin --json` reads one input a line (a path, or `ID<TAB>PATH`) and
/// `--jobs N` runs N inputs at once (from --stdin or PATH...). The task is made once and kept for
/// images; each video (and each input of a task whose images keep state) gets a new task, so every
/// input's results are those of a run of its own. An input that fails is reported and the run goes on.
/// With `--jobs N` each input runs on a task instance of its own with one thread, its lines kept
/// together and written in input order, so the output equals that of `--jobs 1`.
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
    /// Taking inputs (which may wait on standard input) and writing outputs have locks of their own, so
    /// a finished input is written while another thread waits for the next line.
    private let inputLock = NSLock(), outputLock = NSLock()
    private var positional: [String]
    private var nextIndex = 0
    private var failed = 0
    private var pending: [Int: String] = [:]
    private var nextToWrite = 0

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
        if let overlay = o.string("--overlay"), VideoOutput.isVideoPath(overlay) {
            throw UsageError("with \(mode), --overlay takes a folder (a PNG per frame), not a video file")
        }
    }

    func run() throws {
        TaskCommandSupport.showsProgress = jobs == 1 && !fromStdin
        let slots = (0..<jobs).map { _ in Slot() }
        // The task is loaded before the first input: a bad model is one error, not one per input.
        slots[0].imageTask = try shell.make(FrameTaskSetup(mode: .image, threads: threads, reporter: nil))
        if jobs == 1 {
            while let input = next() { _ = process(input, on: slots[0]) }
        } else {
            let group = DispatchGroup()
            for slot in slots {
                group.enter()
                let thread = Thread { [self] in
                    while let input = next() {
                        let text = process(input, on: slot)
                        write(text, index: input.index)
                    }
                    group.leave()
                }
                // As much stack as the main thread has, for the inference.
                thread.stackSize = 8 << 20
                thread.start()
            }
            group.wait()
        }
        inputLock.lock(); defer { inputLock.unlock() }
        outputLock.lock(); defer { outputLock.unlock() }
        if failed > 0 { throw InputFailures(failed: failed, total: nextIndex) }
    }

    /// The next input (read under the lock, so each is taken once); nil at the end or after Ctrl-C.
    private func next() -> Input? {
        inputLock.lock(); defer { inputLock.unlock() }
        if Interrupt.requested { return nil }
        while true {
            let line: String
            if fromStdin {
                guard let l = readLine(strippingNewline: true) else { return nil }
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

    /// Runs one input on `slot`; returns its lines when they are kept (`--jobs` above 1).
    private func process(_ input: Input, on slot: Slot) -> String {
        let keep = jobs > 1
        let output = fromStdin ? ReportOutput(input: input.path, id: input.id, keep: keep) : ReportOutput(keep: keep)
        var ok = true
        do {
            let frames = try FrameInput(worker: input.path, shell.options)
            let reporter = try FrameReporter(shell.options, input: frames, output: output)
            let task: FrameTask
            if frames.runningMode == .image && !shell.imagesKeepState, let kept = slot.imageTask {
                task = kept
            } else {
                task = try shell.make(FrameTaskSetup(mode: frames.runningMode, threads: threads, reporter: reporter))
                if frames.runningMode == .image && !shell.imagesKeepState { slot.imageTask = task }
            }
            try TaskRun.run(frames, task, reporter)
        } catch is InputFailures {
            // Each failed frame has been reported.
            ok = false
        } catch {
            ok = false
            let message = (error as? UsageError)?.message ?? "\(error)"
            output.error(message.hasPrefix(input.path) ? message : "\(input.path): \(message)")
        }
        output.done()
        if !ok { outputLock.lock(); failed += 1; outputLock.unlock() }
        return output.take() ?? ""
    }

    /// Writes an input's kept lines once every input before it has been written.
    private func write(_ text: String, index: Int) {
        outputLock.lock(); defer { outputLock.unlock() }
        pending[index] = text
        while let t = pending.removeValue(forKey: nextToWrite) {
            StandardOutput.write(t)
            nextToWrite += 1
        }
    }
}
