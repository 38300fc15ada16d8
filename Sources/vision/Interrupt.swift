import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ctrl-C (SIGINT) and SIGTERM. In a task run (`cooperative`), the first one ends the run cleanly: the decoders are
/// stopped, the frame in hand finishes, pending results and the summary are written, an overlay video is closed
/// as a playable file, and the exit status is 130; if that takes longer than `grace`, or at a second signal, the
/// run stops at once (`stopNow`). Other commands (training, model fetching) stop at once: they have nothing
/// partial worth keeping. Stopping at once still kills the ffmpeg children, which run in process groups of their
/// own and so never see the terminal's Ctrl-C, and removes the partial files.
enum Interrupt {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var flag = false
    nonisolated(unsafe) private static var handlers: [Int: () -> Void] = [:]
    nonisolated(unsafe) private static var nextToken = 0
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []
    nonisolated(unsafe) private static var isCooperative = false
    /// The longest a clean end may take after the first signal.
    static let grace: Double = 1.5

    /// Whether SIGINT or SIGTERM was received.
    static var requested: Bool { lock.lock(); defer { lock.unlock() }; return flag }

    /// Catches SIGINT and SIGTERM from now on (called once, first thing).
    static func install() {
        lock.lock(); defer { lock.unlock() }
        guard sources.isEmpty else { return }
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler { received() }
            s.resume()
            sources.append(s)
        }
    }

    /// The run stops cleanly on its own after a signal (a task run checks `requested` between frames).
    static func cooperate() { lock.lock(); isCooperative = true; lock.unlock() }

    private static func received() {
        lock.lock()
        let again = flag
        flag = true
        let all = Array(handlers.values)
        let cooperative = isCooperative
        lock.unlock()
        if again || !cooperative { stopNow(status: 130, message: "interrupted") }
        for h in all { h() }
        watch(after: grace, until: .now() + longestGrace)
    }

    /// An overlay video being closed may take longer than `grace` (the encoder's lookahead): up to this long.
    static let longestGrace: Double = 5
    nonisolated(unsafe) private static var closing = 0

    /// Marks an output being closed (an overlay video's trailer written) for the duration of `body`.
    static func closingOutput<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock(); closing += 1; lock.unlock()
        defer { lock.lock(); closing -= 1; lock.unlock() }
        return try body()
    }

    /// Stops the run at once `delay` s from now, or later while an output is being closed (until `last`).
    private static func watch(after delay: Double, until last: DispatchTime) {
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
            lock.lock(); let busy = closing > 0; lock.unlock()
            if busy && DispatchTime.now() < last {
                watch(after: 0.25, until: last)
            } else {
                stopNow(status: 130, message: "interrupted (stopped at once: the clean end took too long)")
            }
        }
    }

    /// Adds what the first signal does (stop a decoder); returns the token `remove` takes.
    static func add(_ body: @escaping () -> Void) -> Int {
        lock.lock(); defer { lock.unlock() }
        nextToken += 1
        handlers[nextToken] = body
        return nextToken
    }

    /// Removes the handler `add` returned `token` for.
    static func remove(_ token: Int) {
        lock.lock(); handlers[token] = nil; lock.unlock()
    }

    nonisolated(unsafe) private static var lastWords: [Int: () -> Void] = [:]
    nonisolated(unsafe) private static var exiting = false

    /// Adds what stopping at once still does before the exit (write the results already made: `OrderedOutput`);
    /// returns the token `removeBeforeExit` takes.
    static func beforeExit(_ body: @escaping () -> Void) -> Int {
        lock.lock(); defer { lock.unlock() }
        nextToken += 1
        lastWords[nextToken] = body
        return nextToken
    }

    static func removeBeforeExit(_ token: Int) {
        lock.lock(); lastWords[token] = nil; lock.unlock()
    }

    /// Ends the process now: kills the ffmpeg children, writes the results already made (unless standard output
    /// itself failed: `flush` false), removes the partial files, writes `message` (if any) to standard error as
    /// "vision: message", and exits with `status`.
    static func stopNow(status: Int32, message: String?, flush: Bool = true) -> Never {
        lock.lock()
        let first = !exiting
        exiting = true
        let words = flush && first ? lastWords.sorted { $0.key < $1.key }.map(\.value) : []
        lock.unlock()
        ChildProcess.killAll()
        for body in words { body() }
        OutputFile.removePartials()
        NativePath.removeAliases()
        if let message {
            let line = Array("vision: \(message)\n".utf8)
            _ = line.withUnsafeBytes { systemWrite(2, $0) }
        }
        _exit(status)
    }

    /// After the run: exit 130 with a last line on standard error if a signal ended it.
    static func exitIfRequested() {
        guard requested else { return }
        let line = Array("vision: interrupted\n".utf8)
        _ = line.withUnsafeBytes { systemWrite(2, $0) }
        exit(130)
    }
}

/// Standard input's lines for worker mode, read so that a signal is noticed while waiting for the next line
/// (a blocking `readLine` would wait for ever on an idle pipe or terminal).
enum StandardInputLines {
    nonisolated(unsafe) private static var buffer: [UInt8] = []
    nonisolated(unsafe) private static var ended = false

    /// The next line without its newline; nil at the end of input or once a signal was received.
    static func next() -> String? {
        while true {
            if let nl = buffer.firstIndex(of: 10) {
                let line = NativePath.decode(buffer[..<nl])
                buffer.removeSubrange(...nl)
                return line
            }
            if ended {
                guard !buffer.isEmpty else { return nil }
                defer { buffer = [] }
                return NativePath.decode(buffer)
            }
            if Interrupt.requested { return nil }
            var p = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, 100)
            if ready < 0 && errno != EINTR { ended = true; continue }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { systemRead(0, $0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { ended = true; continue }
            buffer += chunk[0..<n]
        }
    }
}
