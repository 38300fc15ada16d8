import Foundation
import TasksVisionFormat

/// Files the command line writes (overlays, masks) appear whole or not at all (`AtomicFile`), with the
/// command line's errors; the folders they go to are made and checked here.
enum OutputFile {
    static func temporaryName(for path: String) -> String { AtomicFile.temporaryName(for: path) }

    /// Calls `body` with a temporary path and renames it to `path` when `body` returns; removes it if `body` throws.
    static func write(_ path: String, _ body: (String) throws -> Void) throws {
        do {
            try AtomicFile.write(path, body)
        } catch let error as AtomicFile.RenameError {
            throw OutputError.cannotWrite(error.path, reason: error.reason)
        }
    }

    /// Renames a finished temporary file to its place, replacing what is there.
    static func commit(_ temp: String, to path: String) throws {
        do {
            try AtomicFile.commit(temp, to: path)
        } catch let error as AtomicFile.RenameError {
            throw OutputError.cannotWrite(error.path, reason: error.reason)
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
