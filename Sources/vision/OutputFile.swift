import Foundation

/// Files the command line writes (overlays, masks) appear whole or not at all: each is written under a
/// temporary name beside its place and renamed there when complete, so a run stopped or retried part
/// way never leaves a half-written file under the real name.
enum OutputFile {
    nonisolated(unsafe) private static var counter = 0
    private static let lock = NSLock()

    /// A hidden name in `path`'s folder, unique to this process, keeping the extension (ffmpeg picks the
    /// container by it): "dir/.out.mp4.part-4242-1.mp4".
    static func temporaryName(for path: String) -> String {
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

    /// Calls `body` with a temporary path and renames it to `path` when `body` returns; removes it if `body` throws.
    static func write(_ path: String, _ body: (String) throws -> Void) throws {
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
    static func commit(_ temp: String, to path: String) throws {
        guard rename(temp, path) == 0 else {
            let reason = String(cString: strerror(errno))
            throw OutputError.cannotWrite(path, reason: reason)
        }
    }

    /// Makes `path` and the folders above it; a folder made meanwhile by another input (`--jobs`) is no error.
    static func makeFolder(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue
            else { throw error }
        }
    }

    /// Checks before any work that files can be written into `directory` (made if missing, as the writers
    /// do): the nearest existing folder on its path must be a writable folder.
    static func checkWritable(directory: String, option: String) throws {
        var dir = directory.isEmpty ? "." : directory
        var isDirectory: ObjCBool = false
        while !FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory) {
            let parent = (dir as NSString).deletingLastPathComponent
            if parent.isEmpty || parent == dir { dir = "."; break }
            dir = parent
        }
        _ = FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory)
        guard isDirectory.boolValue else {
            throw OutputError.notAFolder(option: option, path: directory, file: dir)
        }
        guard access(dir, W_OK) == 0 else {
            throw OutputError.notWritable(option: option, path: directory, folder: dir)
        }
    }
}

/// An output path that cannot be written, named once before the first frame.
enum OutputError: Error, CustomStringConvertible {
    case cannotWrite(String, reason: String)
    case notAFolder(option: String, path: String, file: String)
    case notWritable(option: String, path: String, folder: String)
    case missingFolder(option: String, path: String, folder: String)

    var description: String {
        switch self {
        case let .cannotWrite(path, reason): return "cannot write \(path): \(reason)"
        case let .notAFolder(option, path, file):
            return "\(option) \(path): \(file) is a file, not a folder"
        case let .notWritable(option, path, folder):
            return "\(option) \(path): cannot write into \(folder) (permission denied)"
        case let .missingFolder(option, path, folder):
            return "\(option) \(path): no such folder \(folder)"
        }
    }
}
