import Foundation
import TasksVision

/// The frames of a video file or a V4L2 camera, decoded by an ffmpeg child into raw RGB over a
/// pipe. ffmpeg's `showinfo` filter reports each frame's size and timestamp on standard error, in
/// the order the frames come out, so every frame gets its own stream timestamp.
final class VideoInput {
    let path: String
    let ffmpeg: FFmpeg
    let camera: Bool
    /// Read a file at its own pace (`-re`), as a live source would deliver it.
    let realTime: Bool
    let autorotate: Bool
    let maxFrames: Int?
    let orientation: ImageOrientation

    private let infos = FrameInfoQueue()

    init(path: String, ffmpeg: FFmpeg, camera: Bool, realTime: Bool, autorotate: Bool, maxFrames: Int?,
         orientation: ImageOrientation) {
        self.path = path
        self.ffmpeg = ffmpeg
        self.camera = camera
        self.realTime = realTime
        self.autorotate = autorotate
        self.maxFrames = maxFrames
        self.orientation = orientation
    }

    /// The stream's frame rate, once ffmpeg has reported it.
    var frameRate: Double? { infos.frameRate }

    var arguments: [String] {
        // Levels on every line tell a decoding error from information (a damaged file often exits 0).
        var args = ["-hide_banner", "-nostdin", "-nostats", "-loglevel", "level+info"]
        if camera { args += ["-f", "v4l2"] } else if realTime { args += ["-re"] }
        if !autorotate { args += ["-noautorotate"] }
        args += ["-i", path, "-map", "0:v:0", "-vf", "showinfo"] + ffmpeg.passthroughArguments
        if let n = maxFrames { args += ["-frames:v", String(n)] }
        return args + ["-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"]
    }

    /// Decodes frame after frame and calls `body` with each, until the end of the stream,
    /// --max-frames or Ctrl-C. A video ffmpeg cannot decode to its end throws after its frames were given.
    func forEach(_ body: (Frame) throws -> Void) throws {
        let child = try ChildProcess(ffmpeg.path, arguments, input: false)
        let infos = self.infos
        let log = LineReader(descriptor: child.errorDescriptor, onLine: { infos.parse($0) }, onEnd: { infos.end() })
        let token = Interrupt.add { child.terminate() }
        var stopped = false
        defer {
            if !stopped { child.terminate() }
            _ = child.wait()
            log.finish()
            Interrupt.remove(token)
        }
        var index = 0
        var clock = FrameClock(startAtZero: camera)
        while let info = infos.next() {
            guard let pixels = child.read(exactly: info.width * info.height * 3) else { break }
            let timestamp = clock.milliseconds(info)
            let image = Result {
                try MPImage(pixels: pixels, width: info.width, height: info.height, pixelFormat: .rgb8,
                            orientation: orientation)
            }
            try body(Frame(file: path, index: index, timestamp: timestamp, image: image))
            index += 1
            if Interrupt.requested { break }
        }
        stopped = true
        let status = child.wait()
        log.finish()
        // A stream cut short by Ctrl-C is a normal end; otherwise ffmpeg's failure is the file's.
        if Interrupt.requested { return }
        if status != 0 && index == 0 {
            throw FFmpegError.failed(file: path, message: infos.errors.last ?? log.lastError)
        }
        if status != 0 || !infos.errors.isEmpty {
            throw FFmpegError.incomplete(file: path, frames: index, message: infos.errors.first ?? log.lastError)
        }
    }
}

/// One decoded frame as `showinfo` describes it.
struct FrameInfo {
    let width: Int
    let height: Int
    /// The presentation time in milliseconds (the pts in the stream's time base); nil when the frame has none.
    let milliseconds: Double?
}

/// Turns frame times into strictly increasing milliseconds, as video and live-stream modes need.
struct FrameClock {
    /// A camera's timestamps count from boot; start them at 0.
    let startAtZero: Bool
    private var first: Int?
    private var last: Int?

    init(startAtZero: Bool) { self.startAtZero = startAtZero }

    mutating func milliseconds(_ info: FrameInfo) -> Int {
        var t: Int
        if let ms = info.milliseconds {
            t = Int(ms.rounded())
            if startAtZero {
                if first == nil { first = t }
                t -= first ?? 0
            }
        } else {
            // No timestamp: one default frame after the last.
            t = last.map { $0 + Int(TaskCommandOptions.defaultFrameMilliseconds) } ?? 0
        }
        // Equal or backward timestamps (rounding, missing pts) would be refused by the task.
        if let l = last, t <= l { t = l + 1 }
        last = t
        return t
    }
}

/// The `showinfo` lines of the decoder, parsed on the log thread and taken in order by the reading loop.
final class FrameInfoQueue {
    private let condition = NSCondition()
    private var queue: [FrameInfo] = []
    private var ended = false
    private var timeBase: (num: Int64, den: Int64)?
    private var rate: Double?
    private var errorLines: [String] = []

    var frameRate: Double? { condition.lock(); defer { condition.unlock() }; return rate }

    /// The errors ffmpeg logged (the first few), as "h264: error while decoding MB 35 25, bytestream -11".
    var errors: [String] { condition.lock(); defer { condition.unlock() }; return errorLines }

    /// Parses one line of ffmpeg's log: an error, a filter configuration (time base, frame rate) or a frame.
    func parse(_ line: String) {
        let entry = FFmpegLogLine(line)
        if entry.isError {
            condition.lock(); defer { condition.unlock() }
            if errorLines.count < 10 { errorLines.append(entry.message) }
            return
        }
        guard entry.source?.hasPrefix("Parsed_showinfo") == true else { return }
        let text = entry.text.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("config in") {
            condition.lock(); defer { condition.unlock() }
            if let tb = Self.fraction(Self.field("time_base:", in: text)), tb.den != 0 { timeBase = tb }
            if let fr = Self.fraction(Self.field("frame_rate:", in: text)), fr.den != 0, fr.num > 0 {
                rate = Double(fr.num) / Double(fr.den)
            }
            return
        }
        guard text.hasPrefix("n:"), let size = Self.field(" s:", in: text) else { return }
        let wh = size.split(separator: "x").compactMap { Int($0) }
        guard wh.count == 2, wh[0] > 0, wh[1] > 0 else { return }
        condition.lock()
        let pts = Self.field(" pts:", in: text).flatMap { Int64($0) }
        // pts times the time base is exact; pts_time is printed with 6 digits only (10 ms after 1000 s).
        let time: Double? = pts.flatMap { p in timeBase.map { Double(p) * Double($0.num) * 1000 / Double($0.den) } }
            ?? Self.field(" pts_time:", in: text).flatMap(Double.init).map { $0 * 1000 }
        queue.append(FrameInfo(width: wh[0], height: wh[1], milliseconds: time))
        condition.signal()
        condition.unlock()
    }

    func end() {
        condition.lock(); ended = true; condition.signal(); condition.unlock()
    }

    /// The next frame's info, waiting for it; nil once the log has ended and every frame was taken.
    func next() -> FrameInfo? {
        condition.lock(); defer { condition.unlock() }
        while queue.isEmpty && !ended { condition.wait() }
        return queue.isEmpty ? nil : queue.removeFirst()
    }

    /// The word after `key`: "pts:     33 pts_time:0.033" with key " pts:" gives "33".
    static func field(_ key: String, in text: String) -> String? {
        guard let r = text.range(of: key) else { return nil }
        let rest = text[r.upperBound...].drop { $0 == " " }
        let word = rest.prefix { $0 != " " && $0 != "," }
        return word.isEmpty ? nil : String(word)
    }

    /// "1/1000" -> (1, 1000).
    static func fraction(_ s: String?) -> (num: Int64, den: Int64)? {
        guard let parts = s?.split(separator: "/"), parts.count == 2, let n = Int64(parts[0]), let d = Int64(parts[1])
        else { return nil }
        return (n, d)
    }
}
