import Foundation

/// A video written by piping RGB frames to an ffmpeg child: H.264 (libx264, yuv420p) when this
/// ffmpeg has it, MPEG-4 part 2 otherwise. Frames are placed by their timestamps on the
/// constant-rate output, a frame repeated to fill a gap (a live stream drops frames).
final class VideoOutput {
    /// File name endings that make `--overlay` a video rather than a folder.
    static let extensions: Set<String> = ["mp4", "m4v", "mov", "mkv", "avi"]

    static func isVideoPath(_ path: String) -> Bool {
        extensions.contains(PathText.fileExtension(path).lowercased())
    }

    /// ffmpeg's container for the file's extension (the temporary name it writes has none).
    static func muxer(for path: String) -> String {
        switch PathText.fileExtension(path).lowercased() {
        case "m4v": return "ipod"
        case "mov": return "mov"
        case "mkv": return "matroska"
        case "avi": return "avi"
        default: return "mp4"
        }
    }

    let path: String
    /// The file as messages name it (`path` may be a temporary name beside it).
    let name: String
    let width: Int
    let height: Int
    let frameRate: Double
    private let child: ChildProcess
    private let log: LineReader
    private var firstTimestamp: Int?
    private var lastSlot = -1
    /// Longest gap filled by repeating a frame (10 s), so one odd timestamp cannot write for ever.
    private var maxRepeats: Int { max(1, Int(frameRate * 10)) }

    /// `soundFrom`: a video file whose sound, if it has any, the output keeps (re-encoded as AAC).
    init(path: String, ffmpeg: FFmpeg, width: Int, height: Int, frameRate: Double, name: String? = nil,
         soundFrom: String? = nil) throws {
        self.path = path
        self.name = name ?? path
        self.width = width
        self.height = height
        self.frameRate = frameRate
        let codec = ffmpeg.hasEncoder("libx264") ? ["-c:v", "libx264", "-preset", "veryfast", "-crf", "18"]
            : ["-c:v", "mpeg4", "-q:v", "3"]
        let args = ["-hide_banner", "-nostats", "-loglevel", "error", "-y",
                    "-f", "rawvideo", "-pix_fmt", "rgb24", "-video_size", "\(width)x\(height)",
                    "-framerate", Self.rate(frameRate), "-i", "pipe:0"]
            + (soundFrom.map { ["-i", $0, "-map", "0:v", "-map", "1:a?", "-c:a", "aac", "-shortest"] } ?? [])
            // yuv420p needs even sizes.
            + ["-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2"] + codec + ["-pix_fmt", "yuv420p"]
            + ["-f", Self.muxer(for: name ?? path), path]
        child = try ChildProcess(ffmpeg.path, args, input: true)
        log = LineReader(descriptor: child.errorDescriptor, onLine: { _ in })
    }

    /// A frame rate as ffmpeg reads it, exact: "30", "29.97", "30000/1001" for NTSC's 29.97002997...
    static func rate(_ fps: Double) -> String {
        for den in [1, 1001, 10, 100, 1000] {
            let num = (fps * Double(den)).rounded()
            if num >= 1, num < 1e9, abs(num / Double(den) - fps) < 1e-9 * max(1, fps) {
                var (a, b) = (Int(num), den)
                while b != 0 { (a, b) = (b, a % b) }
                return den == a ? String(Int(num) / a) : "\(Int(num) / a)/\(den / a)"
            }
        }
        return String(format: "%.6g", fps)
    }

    /// Appends a frame of `width` x `height` RGB pixels shown at `timestamp` ms (nil: the next slot).
    func write(_ pixels: [UInt8], width w: Int, height h: Int, timestamp: Int?) throws {
        guard w == width, h == height else {
            throw InputError.frameSize(width: w, height: h, expected: (width, height))
        }
        var slot = lastSlot + 1
        if let t = timestamp {
            let t0 = firstTimestamp ?? t
            firstTimestamp = t0
            slot = max(slot, Int((Double(t - t0) * frameRate / 1000).rounded()))
        }
        let repeats = min(maxRepeats, slot - lastSlot)
        do {
            for _ in 0..<repeats { try child.write(pixels) }
        } catch {
            // ffmpeg has gone; its last words say why.
            _ = child.wait()
            log.finish()
            throw FFmpegError.failed(file: name, message: FFmpegLogLine(log.lastError).message)
        }
        // At `-loglevel error` any line is an error (a full disk: "No space left on device"): the file cannot be
        // whole, so the run stops now rather than after frames ffmpeg's buffers still take.
        if log.lineCount > 0 {
            child.terminate()
            _ = child.wait()
            log.finish()
            throw FFmpegError.failed(file: name, message: FFmpegLogLine(log.lastError).message)
        }
        lastSlot = slot
    }

    /// Ends the input and waits for ffmpeg to finish the file.
    func finish() throws {
        // After Ctrl-C the run waits for the trailer a little longer than its usual grace (Interrupt).
        let status = Interrupt.closingOutput { child.wait() }
        log.finish()
        guard status == 0 else {
            throw FFmpegError.failed(file: name, message: FFmpegLogLine(log.lastError).message)
        }
    }

    /// Stops ffmpeg without finishing the file (the caller removes it).
    func abandon() {
        child.terminate()
        _ = child.wait()
        log.finish()
    }
}
