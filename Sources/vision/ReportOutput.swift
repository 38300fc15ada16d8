import Foundation

/// Standard output shared by every input of a run: whole blocks of lines, never interleaved.
enum StandardOutput {
    private static let lock = NSLock()

    static func write(_ text: String) {
        guard !text.isEmpty else { return }
        lock.lock(); defer { lock.unlock() }
        StandardOutputWriter.write(text)
    }
}

/// Where one run's lines go. Outside worker mode: results to standard output as they come, failures to
/// standard error as "vision: FILE: reason". For a worker input (`--stdin`, `--jobs`): each line goes to the
/// run's `OrderedOutput` (which writes the inputs' lines in input order as they are made); with `--stdin` each line
/// is a record of that input, `{"input":PATH,"id":ID,...}` with the per-process line's fields after these (so
/// removing them gives that line byte for byte), a failure an `{"input":...,"error":...}` record, and the input
/// ends with `{"input":...,"done":true,"frames":N}` (or `"interrupted":true` when a signal stopped it).
final class ReportOutput {
    /// The start of each record of a worker input: `{"input":"a.png","id":"7",` (nil outside `--stdin`).
    let recordPrefix: String?
    /// Where lines go instead of standard output (a worker input's place in the run's order).
    private let sink: ((String) -> Void)?
    private let lock = NSLock()
    private var results = 0

    /// Outside worker mode: lines to standard output, errors to standard error; `sink` takes the lines instead.
    init(sink: ((String) -> Void)? = nil) {
        recordPrefix = nil
        self.sink = sink
    }

    /// The output of `--stdin` input `path` (with its `id`, if one was given), its records given to `sink`.
    init(input path: String, id: String?, sink: @escaping (String) -> Void) {
        var prefix = "{\"input\":" + Self.quoted(path)
        if let id { prefix += ",\"id\":" + Self.quoted(id) }
        recordPrefix = prefix + ","
        self.sink = sink
    }

    /// Result lines written so far (the frames of the input that have a result).
    var frames: Int { lock.lock(); defer { lock.unlock() }; return results }

    /// A frame's line: a per-process JSON object or a summary line.
    func result(_ line: String) {
        lock.lock(); results += 1; lock.unlock()
        if let prefix = recordPrefix, line.hasPrefix("{") {
            emit(prefix + line.dropFirst())
        } else {
            emit(line)
        }
    }

    /// A line after the input's frames (not a frame's result): a record of the input too.
    func closing(_ line: String) {
        if let prefix = recordPrefix, line.hasPrefix("{") {
            emit(prefix + line.dropFirst())
        } else {
            emit(line)
        }
    }

    /// A failure, as "FILE: reason".
    func error(_ message: String) {
        guard let prefix = recordPrefix else {
            FileHandle.standardError.write(Data("vision: \(message)\n".utf8))
            return
        }
        emit(prefix + "\"error\":" + Self.quoted(message) + "}")
    }

    /// The worker input's last record.
    func done() {
        guard let prefix = recordPrefix else { return }
        emit(prefix + "\"done\":true,\"frames\":\(frames)}")
    }

    /// The record of a worker input a signal stopped part way (its frames so far were written); nil outside
    /// `--stdin`.
    var interruptedRecord: String? {
        recordPrefix.map { $0 + "\"interrupted\":true,\"frames\":\(frames)}" }
    }

    /// Ends a worker input a signal stopped part way.
    func interrupted() {
        if let record = interruptedRecord { emit(record) }
    }

    private func emit(_ line: String) {
        if let sink { sink(line) } else { StandardOutput.write(line + "\n") }
    }

    /// A JSON string literal, escaped as the JSON lines' own strings are.
    static func quoted(_ text: String) -> String {
        guard let data = try? TaskCommandSupport.encoder.encode(text) else { return "\"\"" }
        return NativePath.escapingJSON(String(decoding: data, as: UTF8.self))
    }
}
