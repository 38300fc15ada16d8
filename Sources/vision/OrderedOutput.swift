import Foundation

/// The lines of a worker run's inputs (`--stdin`, `--jobs N`), written in input order as they are made: the
/// earliest unfinished input writes its lines straight to standard output, the inputs after it hold theirs until
/// it finishes, so nothing waits for a whole video and the output equals that of `--jobs 1`. When the run is
/// stopped at once (a second signal, or a clean end taking too long), `stop` writes every line already made, in
/// order, and an `interrupted` record for each input not finished: no result made is lost.
final class OrderedOutput {
    private final class Input {
        var held: [String] = []
        var finished = false
        /// The record written for it if the run stops before it finishes (`--stdin`).
        let interrupted: () -> String?
        init(interrupted: @escaping () -> String?) { self.interrupted = interrupted }
    }

    private let lock = NSLock()
    /// The input whose lines go straight out.
    private var head = 0
    private var inputs: [Int: Input] = [:]
    /// Set by `stop`: later lines are dropped, the process is ending.
    private var stopped = false
    private var token: Int?

    init() {
        token = Interrupt.beforeExit { [weak self] in self?.stop() }
    }

    deinit {
        if let token { Interrupt.removeBeforeExit(token) }
    }

    /// Input `index` starts; `interrupted` gives its record if the run is stopped before it finishes.
    func start(_ index: Int, interrupted: @escaping () -> String?) {
        lock.lock(); defer { lock.unlock() }
        inputs[index] = Input(interrupted: interrupted)
    }

    /// A line of input `index`.
    func emit(_ index: Int, _ line: String) {
        lock.lock(); defer { lock.unlock() }
        guard !stopped else { return }
        if index == head {
            StandardOutput.write(line + "\n")
        } else {
            inputs[index, default: Input(interrupted: { nil })].held.append(line)
        }
    }

    /// Input `index` has written its last line; the inputs after it that were waiting are written.
    func finish(_ index: Int) {
        lock.lock(); defer { lock.unlock() }
        guard !stopped else { return }
        inputs[index, default: Input(interrupted: { nil })].finished = true
        while let input = inputs[head], input.finished {
            inputs[head] = nil
            head += 1
            if let next = inputs[head], !next.held.isEmpty {
                StandardOutput.write(next.held.map { $0 + "\n" }.joined())
                next.held = []
            }
        }
    }

    /// Writes everything held, in order, each unfinished input ending with its `interrupted` record; waits at most
    /// half a second for a line being written.
    func stop() {
        guard lock.lock(before: Date().addingTimeInterval(0.5)) else { return }
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        var text = ""
        for index in inputs.keys.sorted() where index >= head {
            guard let input = inputs[index] else { continue }
            text += input.held.map { $0 + "\n" }.joined()
            if !input.finished, let record = input.interrupted() { text += record + "\n" }
        }
        StandardOutputWriter.writeAtExit(text)
    }
}
