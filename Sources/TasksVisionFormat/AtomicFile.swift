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

    /// A hidden name in `path`'s folder, unique to this process and call, keeping the extension (ffmpeg
    /// picks a container by it): "dir/.out.mp4.part-4242-1.mp4".
    public static func temporaryName(for path: String) -> String {
        lock.lock()
        counter += 1
        let n = counter
        lock.unlock()
        let dir = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let ext = (name as NSString).pathExtension
        let temp = ".\(name).part-\(getpid())-\(n)" + (ext.isEmpty ? "" : "." + ext)
        return dir.isEmpty ? temp : dir + "/" + temp
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
