import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing a file whole or not at all: the bytes go to a hidden temporary file beside it, which is
/// renamed over the target when complete, so a run stopped or retried part way never leaves half a file
/// under the real name. The command line's overlays, masks and videos and the training's CSVs and bundles
/// are all written this way.
public enum AtomicFile {
    /// A rename of the finished temporary file that failed: the target and the system's reason.
    public struct RenameError: Error {
        public let path: String
        public let reason: String
    }

    nonisolated(unsafe) private static var counter = 0
    private static let lock = NSLock()

    /// What marks a temporary file: ".NAME.vision-partial-PID-N".
    public static let marker = ".vision-partial-"

    /// A hidden name in `path`'s folder, unique to this process and call: "dir/.out.mp4.vision-partial-4242-1".
    /// It ends in a number, never in an image or video extension, so no folder scan takes it for a result (the
    /// command line gives ffmpeg the container of a video by name).
    public static func temporaryName(for path: String) -> String {
        lock.lock()
        counter += 1
        let n = counter
        lock.unlock()
        // Split at the last slash by hand: Foundation's deletingLastPathComponent traps on a one-letter path.
        let slash = path.lastIndex(of: "/")
        let dir = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return dir + ".\(name)\(marker)\(getpid())-\(n)"
    }

    /// Calls `body` with a temporary path and renames that file to `path` when `body` returns; removes it if
    /// `body` or the rename throws.
    public static func write(_ path: String, _ body: (String) throws -> Void) throws {
        let temp = temporaryName(for: path)
        do {
            try body(temp)
            try commit(temp, to: path)
        } catch {
            try? FileManager.default.removeItem(atPath: temp)
            throw error
        }
    }

    /// Renames a finished temporary file to its place, replacing what is there.
    public static func commit(_ temp: String, to path: String) throws {
        guard rename(temp, path) == 0 else {
            throw RenameError(path: path, reason: String(cString: strerror(errno)))
        }
    }
}
