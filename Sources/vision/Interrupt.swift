import Dispatch
import Foundation

/// Ctrl-C during a video run: the first one ends the streams cleanly (each decoder is stopped, pending
/// results are printed and an overlay video is finished); a second one exits at once. Several videos
/// may run at once (`--jobs`), so each registers its own handler.
enum Interrupt {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var flag = false
    nonisolated(unsafe) private static var handlers: [Int: () -> Void] = [:]
    nonisolated(unsafe) private static var nextToken = 0
    nonisolated(unsafe) private static var source: DispatchSourceSignal?

    /// Whether Ctrl-C was pressed.
    static var requested: Bool { lock.lock(); defer { lock.unlock() }; return flag }

    /// Adds what the first Ctrl-C does, catching SIGINT from now on; returns the token `remove` takes.
    static func add(_ body: @escaping () -> Void) -> Int {
        lock.lock(); defer { lock.unlock() }
        nextToken += 1
        handlers[nextToken] = body
        if source == nil {
            // The children run in process groups of their own, so the terminal's SIGINT reaches only us.
            signal(SIGINT, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
            s.setEventHandler {
                lock.lock()
                let again = flag
                flag = true
                let all = Array(handlers.values)
                lock.unlock()
                if again { exit(130) }
                for h in all { h() }
            }
            s.resume()
            source = s
        }
        return nextToken
    }

    /// Removes the handler `add` returned `token` for.
    static func remove(_ token: Int) {
        lock.lock(); handlers[token] = nil; lock.unlock()
    }
}
