import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Errors of the ffmpeg child processes; each names the file and what went wrong.
enum FFmpegError: Error, CustomStringConvertible {
    /// ffmpeg is not on PATH; `purpose` is the option that needs it.
    case notFound(purpose: String)
    case cannotStart(String, reason: String)
    /// ffmpeg could not read or write `file`; `message` is its last line of error output.
    case failed(file: String, message: String)
    /// ffmpeg decoded `frames` frames of `file`, then failed or reported a decoding error (a damaged
    /// or truncated video); `message` is its first error.
    case incomplete(file: String, frames: Int, message: String)

    var description: String {
        switch self {
        case .notFound(let purpose):
            return "\(purpose) needs ffmpeg on PATH (install it with: apt-get install ffmpeg)"
        case let .cannotStart(path, reason): return "cannot start \(path): \(reason)"
        case let .failed(file, message):
            // ffmpeg names the file itself: "clip.mp4: Invalid data found when processing input".
            let reason = message.hasPrefix(file + ": ") ? String(message.dropFirst(file.count + 2)) : message
            return "\(file): ffmpeg failed: \(reason)"
        case let .incomplete(file, frames, message):
            let reason = message.hasPrefix(file + ": ") ? String(message.dropFirst(file.count + 2)) : message
            return "\(file): ffmpeg could not decode the whole video (\(frames) frame\(frames == 1 ? "" : "s") read): "
                + reason
        }
    }
}

/// One line of ffmpeg's log as `-loglevel level+info` writes it: "[h264 @ 0x55d1] [error] text",
/// "[error] text", or, without levels, "[Parsed_showinfo_0 @ 0x55d1] text".
struct FFmpegLogLine {
    /// The component that wrote it ("h264", "Parsed_showinfo_0"), if named.
    let source: String?
    /// "error", "warning", "info", ... when the log carries levels.
    let level: String?
    let text: String

    static let levels: Set<String> = ["quiet", "panic", "fatal", "error", "warning", "info", "verbose", "debug",
                                      "trace"]

    init(_ line: String) {
        var rest = Substring(line)
        var source: String?
        var level: String?
        while rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            let word = rest[rest.index(after: rest.startIndex)..<close]
            if Self.levels.contains(String(word)) {
                level = String(word)
            } else if let at = word.range(of: " @ ") {
                source = String(word[..<at.lowerBound])
            } else {
                break
            }
            rest = rest[rest.index(after: close)...].drop { $0 == " " }
        }
        self.source = source
        self.level = level
        text = String(rest)
    }

    /// A decoding or reading error (levels error, fatal, panic).
    var isError: Bool { level == "error" || level == "fatal" || level == "panic" }

    /// As messages show it: "h264: error while decoding MB 35 25, bytestream -11".
    var message: String { source.map { "\($0): \(text)" } ?? text }
}

/// The `ffmpeg` executable found on PATH, and what this build of it offers.
struct FFmpeg {
    let path: String

    /// Finds ffmpeg on PATH; the error names the option (`--video`, `--overlay out.mp4`) that needs it.
    static func locate(for purpose: String) throws -> FFmpeg {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        for dir in dirs where FileManager.default.isExecutableFile(atPath: dir + "/ffmpeg") {
            return FFmpeg(path: dir + "/ffmpeg")
        }
        throw FFmpegError.notFound(purpose: purpose)
    }

    /// Runs ffmpeg to completion and returns its standard output (for -version and -encoders).
    func query(_ args: [String]) -> String {
        guard let child = try? ChildProcess(path, ["-hide_banner"] + args, input: false) else { return "" }
        let out = child.readAll()
        _ = child.wait()
        return String(decoding: out, as: UTF8.self)
    }

    private static let versionLock = NSLock()
    nonisolated(unsafe) private static var versions: [String: Int?] = [:]

    /// The major version ("ffmpeg version 5.1.9-0+deb12u1" -> 5); nil for a git build ("N-11234-g...").
    /// Asked once per executable: a worker decoding video after video would otherwise start ffmpeg twice each.
    var majorVersion: Int? {
        Self.versionLock.lock()
        if let known = Self.versions[path] { Self.versionLock.unlock(); return known }
        Self.versionLock.unlock()
        let version = askVersion()
        Self.versionLock.lock(); Self.versions[path] = version; Self.versionLock.unlock()
        return version
    }

    private func askVersion() -> Int? {
        let first = query(["-version"]).split(separator: "\n").first ?? ""
        guard let range = first.range(of: "version ") else { return nil }
        let digits = first[range.upperBound...].drop { $0 == "n" }.prefix { $0.isNumber }
        return Int(digits)
    }

    /// Passes every decoded frame through unchanged (no duplication or dropping to a constant rate).
    /// `-fps_mode` replaced `-vsync` in ffmpeg 5.1; older builds know only `-vsync`.
    var passthroughArguments: [String] {
        if let major = majorVersion, major < 5 { return ["-vsync", "passthrough"] }
        return ["-fps_mode", "passthrough"]
    }

    func hasEncoder(_ name: String) -> Bool {
        // Lines read " V....D libx264   libx264 H.264 / AVC ...": flags, then the name.
        let lines = query(["-encoders"]).split(separator: "\n")
        return lines.contains { $0.split(separator: " ").dropFirst().first == Substring(name) }
    }
}

/// read(2) into `buffer`; 0 for an empty buffer.
func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
    #if canImport(Glibc)
    return Glibc.read(fd, base, buffer.count)
    #else
    return Darwin.read(fd, base, buffer.count)
    #endif
}

/// write(2) of `buffer`; 0 for an empty buffer.
func systemWrite(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Int {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
    #if canImport(Glibc)
    return Glibc.write(fd, base, buffer.count)
    #else
    return Darwin.write(fd, base, buffer.count)
    #endif
}

/// A child process with pipes to its standard input (optional), output and error, read and
/// written with plain POSIX calls so that a broken pipe is an error, not a crash.
final class ChildProcess {
    let process = Process()
    let name: String
    private let inputPipe: Pipe?
    private let outputPipe = Pipe()
    private let errorPipe = Pipe()
    private var inputClosed = false

    /// Starts `executable` with `arguments`; standard error is left for `errorDescriptor` to read.
    init(_ executable: String, _ arguments: [String], input: Bool) throws {
        name = PathText.lastComponent(executable)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        inputPipe = input ? Pipe() : nil
        process.standardInput = inputPipe ?? FileHandle.nullDevice
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        do { try process.run() } catch { throw FFmpegError.cannotStart(executable, reason: "\(error)") }
        Self.register(process.processIdentifier)
    }

    private static let liveLock = NSLock()
    nonisolated(unsafe) private static var live: Set<Int32> = []

    private static func register(_ pid: Int32) { liveLock.lock(); live.insert(pid); liveLock.unlock() }
    private static func unregister(_ pid: Int32) { liveLock.lock(); live.remove(pid); liveLock.unlock() }

    /// Kills every child still running (the run is stopped at once).
    static func killAll() {
        liveLock.lock(); let all = live; liveLock.unlock()
        for pid in all { kill(pid, SIGKILL) }
    }

    var errorDescriptor: Int32 { errorPipe.fileHandleForReading.fileDescriptor }

    /// Reads exactly `count` bytes of standard output; nil at end of output (a partial frame counts as the end).
    func read(exactly count: Int) -> [UInt8]? {
        guard count > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: count)
        let fd = outputPipe.fileHandleForReading.fileDescriptor
        var filled = 0
        while filled < count {
            let n = buffer.withUnsafeMutableBytes { all in
                systemRead(fd, UnsafeMutableRawBufferPointer(rebasing: all[filled...]))
            }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            filled += n
        }
        return buffer
    }

    /// All of standard output, until the child closes it.
    func readAll() -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        let fd = outputPipe.fileHandleForReading.fileDescriptor
        while true {
            let n = chunk.withUnsafeMutableBytes { systemRead(fd, $0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return out }
            out += chunk[0..<n]
        }
    }

    /// Writes all of `bytes` to standard input; throws when the child has gone (EPIPE).
    func write(_ bytes: [UInt8]) throws {
        guard let pipe = inputPipe, !inputClosed else { throw FFmpegError.failed(file: name, message: "input closed") }
        let fd = pipe.fileHandleForWriting.fileDescriptor
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { systemWrite(fd, UnsafeRawBufferPointer(rebasing: $0[written...])) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { throw FFmpegError.failed(file: name, message: String(cString: strerror(errno))) }
            written += n
        }
    }

    /// Closes standard input: the child sees the end of its input.
    func closeInput() {
        guard let pipe = inputPipe, !inputClosed else { return }
        inputClosed = true
        try? pipe.fileHandleForWriting.close()
    }

    /// Asks the child to stop (SIGTERM); ffmpeg then closes its output. One that has not ended a second later
    /// (blocked writing into a pipe nobody reads) is killed.
    func terminate() {
        guard process.isRunning else { return }
        process.terminate()
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) { [weak self] in
            if let self, self.process.isRunning { kill(pid, SIGKILL) }
        }
    }

    /// Stops a decoder whose output is no longer read: closes that output (a child blocked writing it gets EPIPE),
    /// terminates it and waits.
    func stop() -> Int32 {
        if process.isRunning {
            try? outputPipe.fileHandleForReading.close()
            terminate()
        }
        return wait()
    }

    /// Waits for the child and returns its exit status.
    func wait() -> Int32 {
        closeInput()
        process.waitUntilExit()
        Self.unregister(process.processIdentifier)
        return process.terminationStatus
    }
}

/// Reads a child's standard error on a thread of its own (so the child never blocks on a full
/// pipe) and hands each line to `onLine`; keeps the last lines for error messages.
final class LineReader {
    private let lock = NSLock()
    private var tail: [String] = []
    private let done = DispatchSemaphore(value: 0)

    /// `onLine` gets each line, `onEnd` the end of the stream, both on the reader's thread.
    init(descriptor: Int32, onLine: @escaping (String) -> Void, onEnd: @escaping () -> Void = {}) {
        let thread = Thread { [self] in
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 16384)
            while true {
                let n = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                pending += chunk[0..<n]
                // ffmpeg ends progress lines with \r and log lines with \n.
                while let end = pending.firstIndex(where: { $0 == 10 || $0 == 13 }) {
                    let line = String(decoding: pending[..<end], as: UTF8.self)
                    pending.removeSubrange(...end)
                    if !line.isEmpty { keep(line); onLine(line) }
                }
            }
            if !pending.isEmpty { let line = String(decoding: pending, as: UTF8.self); keep(line); onLine(line) }
            onEnd()
            done.signal()
        }
        thread.start()
    }

    /// Lines read so far.
    var lineCount: Int { lock.lock(); defer { lock.unlock() }; return lines }
    private var lines = 0

    private func keep(_ line: String) {
        lock.lock(); defer { lock.unlock() }
        lines += 1
        tail.append(line)
        if tail.count > 20 { tail.removeFirst() }
    }

    /// Waits for the end of the stream (at once when it has ended before).
    func finish() {
        done.wait()
        done.signal()
    }

    /// The last line that looks like an error (ffmpeg prints its reason last), or the last line.
    var lastError: String {
        lock.lock(); defer { lock.unlock() }
        let interesting = tail.filter { !$0.contains("Parsed_showinfo") && !$0.hasPrefix(" ") }
        // The system's reason when ffmpeg gives one ("...: No space left on device"), even before its summary line
        // ("Error initializing output stream 0:0 --").
        let system = interesting.last { line in Self.systemErrors.contains { line.contains($0) } }
        return system ?? interesting.last ?? tail.last ?? "no error output"
    }

    /// The system's words for a file that cannot be written or read.
    static let systemErrors: [String] = [ENOSPC, EDQUOT, EROFS, EACCES, EPERM, EIO, EFBIG, ENOENT, ENOTDIR, EISDIR]
        .map { String(cString: strerror($0)) }
}
