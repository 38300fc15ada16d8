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
/// standard error as "vision: FILE: reason". For a worker input (`--stdin`, `--jobs`): each line is a record
/// of that input, `{"input":PATH,"id":ID,...}` with the per-process line's fields after these (so removing
/// them gives that line byte for byte), a failure an `{"input":...,"error":...}` record, and the input ends
/// with `{"input":...,"done":true,"frames":N}`; lines can be kept until the input is done (`--jobs`).
final class ReportOutput {
    /// The start of each record of a worker input: `{"input":"a.png","id":"7",` (nil outside worker mode).
    let recordPrefix: String?
    /// Lines held back until `take` (nil: written at once).
    private var kept: String?
    private let lock = NSLock()
    private var results = 0

    /// Outside worker mode: lines to standard output (held back with `keep`) and errors to standard error.
    init(keep: Bool = false) {
        recordPrefix = nil
        kept = keep ? "" : nil
    }

    /// The output of worker input `path` (with its `id`, if one was given); `keep` holds the lines back.
    init(input path: String, id: String?, keep: Bool) {
        var prefix = "{\"input\":" + Self.quoted(path)
        if let id { prefix += ",\"id\":" + Self.quoted(id) }
        recordPrefix = prefix + ","
        kept = keep ? "" : nil
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

    /// The record of a worker input a signal stopped part way (its frames so far were written).
    func interrupted() {
        guard let prefix = recordPrefix else { return }
        emit(prefix + "\"interrupted\":true,\"frames\":\(frames)}")
    }

    /// The lines held back, and no more held (nil when lines were written at once).
    func take() -> String? {
        lock.lock(); defer { lock.unlock() }
        let text = kept
        kept = nil
        return text
    }

    private func emit(_ line: String) {
        lock.lock()
        if kept != nil {
            kept? += line + "\n"
            lock.unlock()
            return
        }
        lock.unlock()
        StandardOutput.write(line + "\n")
    }

    /// A JSON string literal, escaped as the JSON lines' own strings are.
    static func quoted(_ text: String) -> String {
        guard let data = try? TaskCommandSupport.encoder.encode(text) else { return "\"\"" }
        return NativePath.escapingJSON(String(decoding: data, as: UTF8.self))
    }
}
