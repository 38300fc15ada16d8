import Foundation
import TasksVision

/// One frame's result as the command line shows it: the encodable result, a summary line and
/// the drawing for the overlay.
struct FrameReport {
    let result: any Encodable
    let summary: String
    let draw: (inout Overlay) -> Void
    /// Masks to write with `--masks` (pose's people, a segmenter's categories).
    var masks: [FrameMask] = []
}

/// Some inputs (or a video's frames) could not be processed (each was reported as it failed); the exit status is 1.
public struct InputFailures: Error, CustomStringConvertible {
    let failed: Int
    public let total: Int
    /// What was counted: "input" (photos, worker inputs) or "frame" (a video's).
    var noun = "input"
    public var description: String { "\(failed) of \(total) \(noun)\(total == 1 ? "" : "s") failed" }
}

/// Prints each frame's result (a JSON line or a summary line) to its `ReportOutput`, draws its
/// overlay, and reports a frame that failed without stopping the run. Live-stream results arrive on
/// the task's queue, so everything here is behind one lock.
final class FrameReporter {
    let json: Bool
    let overlay: OverlayTarget?
    let output: ReportOutput
    private let options: ParsedOptions
    private let lock = NSLock()
    private var failed = 0
    private var total = 0
    /// Live-stream frames sent to the task and not yet answered, by timestamp.
    private var held: [Int: (Frame, MPImage)] = [:]
    /// An output that cannot be written (a full disk, ffmpeg gone): the run stops with it at the next frame
    /// (`TaskRun`), since every later frame would fail alike.
    private var stopError: Error?
    private let isVideo: Bool

    /// Whether `error`, writing an output, ends the run rather than one frame: the output cannot be written.
    static func stopsTheRun(_ error: Error) -> Bool {
        switch error {
        case OutputError.cannotWrite, FFmpegError.failed: return true
        default: return false
        }
    }

    /// The output failure that stops the run, if one happened.
    var stopped: Error? { lock.lock(); defer { lock.unlock() }; return stopError }

    init(_ o: ParsedOptions, input: FrameInput, output: ReportOutput = ReportOutput()) throws {
        json = o.flag("--json")
        options = o
        overlay = try OverlayTarget(o, input: input)
        isVideo = input.isVideo
        self.output = output
    }

    /// Prints and draws one frame's result.
    func report(_ frame: Frame, _ image: MPImage, _ report: FrameReport) {
        lock.lock(); defer { lock.unlock() }
        guard stopError == nil else { return }
        total += 1
        do {
            if json {
                output.result(try TaskCommandSupport.jsonLine(file: frame.file, frame: frame.index, image: image,
                                                              timestamp: frame.timestamp, result: report.result))
            } else {
                output.result("\(frame.name): \(report.summary)")
            }
            try FrameImageWriter.writeMasks(report.masks, of: frame, image, options: options)
            // A video overlay that failed once has been reported; the run ends with its error.
            if let overlay, overlay.failure == nil {
                var drawing = Overlay(image)
                report.draw(&drawing)
                try overlay.write(drawing, for: frame)
            }
        } catch where Self.stopsTheRun(error) {
            // Said once, when the run ends with it; not a frame that failed.
            total -= 1
            stopError = error
        } catch {
            failLocked(frame, error)
        }
    }

    /// Reports a frame that could not be read or processed: "vision: FILE: reason".
    func fail(_ frame: Frame, _ error: Error) {
        lock.lock(); defer { lock.unlock() }
        total += 1
        failLocked(frame, error)
    }

    private func failLocked(_ frame: Frame, _ error: Error) {
        failed += 1
        let reason = ErrorText.describe(error)
        // Image and model errors already start with the file's name.
        output.error(reason.hasPrefix(frame.file) ? reason : "\(frame.name): \(reason)")
    }

    /// Keeps a live-stream frame until its result arrives.
    func hold(_ frame: Frame, _ image: MPImage) {
        guard let t = frame.timestamp else { return }
        lock.lock(); held[t] = (frame, image); lock.unlock()
    }

    /// Forgets a live-stream frame the task dropped.
    func release(timestamp: Int?) {
        guard let t = timestamp else { return }
        lock.lock(); held[t] = nil; lock.unlock()
    }

    /// A live-stream result, on the task's queue.
    func deliver(_ result: Result<FrameReport, Error>, timestamp: Int) {
        lock.lock()
        let entry = held.removeValue(forKey: timestamp)
        lock.unlock()
        guard let (frame, image) = entry else { return }
        switch result {
        case .success(let r): report(frame, image, r)
        case .failure(let e): fail(frame, e)
        }
    }

    /// Prints the task's closing line (if any) and finishes the overlay video; throws `stream` (the input's own
    /// failure, e.g. a video ffmpeg could not decode to its end), else the overlay video's failure, else
    /// `InputFailures` if any frame failed.
    func finish(after stream: Error? = nil, closing: () throws -> String? = { nil }) throws {
        if let stop = stopped {
            overlay?.discard()
            throw stop
        }
        if let line = try closing() { output.closing(line) }
        do {
            try overlay?.finish()
        } catch {
            throw stream ?? error
        }
        if let stream { throw stream }
        lock.lock(); defer { lock.unlock() }
        if failed > 0 { throw InputFailures(failed: failed, total: total, noun: isVideo ? "frame" : "input") }
    }
}
