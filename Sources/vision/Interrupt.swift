import Dispatch
import Foundation

/// Ctrl-C during a video run: the first one ends the stream cleanly (the decoder is stopped, pending
/// results are printed and an overlay video is finished); a second one exits at once.
enum Interrupt {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var flag = false
    nonisolated(unsafe) private static var handler: (() -> Void)?
    nonisolated(unsafe) private static var source: DispatchSourceSignal?

    /// Whether Ctrl-C was pressed.
    static var requested: Bool { lock.lock(); defer { lock.unlock() }; return flag }

    /// Sets what the first Ctrl-C does (nil: nothing beyond setting `requested`), catching SIGINT from now on.
    static func onInterrupt(_ body: (() -> Void)?) {
        lock.lock(); defer { lock.unlock() }
        handler = body
        guard source == nil else { return }
        // The children run in process groups of their own, so the terminal's SIGINT reaches only us.
        signal(SIGINT, SIG_IGN)
        let s = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        s.setEventHandler {
            lock.lock()
            let again = flag
            flag = true
            let h = handler
            lock.unlock()
            if again { exit(130) }
            h?()
        }
        s.resume()
        source = s
    }
}
