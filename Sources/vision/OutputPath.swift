import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one policy of every output path (`--out`, `--overlay`, `--masks`, `models fetch --out`), checked before any
/// work: a file is written only over a regular file (replaced atomically by `OutputFile`), never over a folder,
/// device, socket or FIFO; a folder to fill is never an existing file; a symbolic link is followed, as the shell's
/// `>` follows it; and the folder written into must exist and be writable. Stale partial files of earlier runs
/// in that folder are removed.
enum OutputPath {
    /// What is at a path, without following a final symbolic link (`lstat`).
    enum Kind: Equatable {
        case missing, regular, folder, symlink, device, socket, fifo, other

        var name: String {
            switch self {
            case .missing: return "missing"
            case .regular: return "a file"
            case .folder: return "a folder"
            case .symlink: return "a symbolic link"
            case .device: return "a device"
            case .socket: return "a socket"
            case .fifo: return "a FIFO"
            case .other: return "not a regular file"
            }
        }
    }

    static func kind(_ path: String, following: Bool = false) -> Kind {
        var s = stat()
        let found = NativePath.withCString(path) { following ? stat($0, &s) : lstat($0, &s) }
        guard found == 0 else { return .missing }
        switch s.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .folder
        case S_IFLNK: return .symlink
        case S_IFCHR, S_IFBLK: return .device
        case S_IFSOCK: return .socket
        case S_IFIFO: return .fifo
        default: return .other
        }
    }

    /// Where writing to `path` lands: the target of its symbolic links (a dangling link's target is created,
    /// as `>` creates it); `path` itself when it is no link.
    static func resolvingLinks(_ path: String) throws -> String {
        var current = path
        for _ in 0..<40 {
            guard kind(current) == .symlink else { return current }
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else {
                return current
            }
            let folder = (current as NSString).deletingLastPathComponent
            current = target.hasPrefix("/") || folder.isEmpty ? target : folder + "/" + target
        }
        throw OutputError.refused(option: nil, path: path, reason: "too many levels of symbolic links")
    }

    /// Checks a file output before any work and returns the path to write (its links followed). Refuses a folder,
    /// device, socket or FIFO, a missing or unwritable folder, a file that cannot be written.
    @discardableResult
    static func file(_ path: String, option: String?) throws -> String {
        guard !path.isEmpty else { throw OutputError.refused(option: option, path: path, reason: "an empty path") }
        let target = try resolvingLinks(path)
        let shown = target == path ? "" : " (the link's target \(target))"
        switch kind(target) {
        case .missing, .regular: break
        case let other:
            throw OutputError.refused(option: option, path: path, reason: "is \(other.name)\(shown), not a file; "
                                      + "give a file path")
        }
        let folder = (target as NSString).deletingLastPathComponent
        let dir = folder.isEmpty ? "." : folder
        guard kind(dir, following: true) == .folder else {
            let what = kind(dir, following: true) == .missing ? "no such folder \(dir)" : "\(dir) is not a folder"
            throw OutputError.refused(option: option, path: path, reason: what)
        }
        guard access(dir, W_OK | X_OK) == 0 else {
            throw OutputError.refused(option: option, path: path, reason: "cannot write into \(dir) ("
                                      + String(cString: strerror(errno)) + ")")
        }
        if kind(target) == .regular && access(target, W_OK) != 0 {
            throw OutputError.refused(option: option, path: path, reason: "\(target) is read-only")
        }
        OutputFile.removeStale(in: dir)
        return target
    }

    /// Checks a folder to fill before any work: an existing file (or device...) is refused; a missing folder will be
    /// made, so the nearest existing folder on its path must be writable.
    static func folder(_ path: String, option: String?) throws {
        guard !path.isEmpty else { throw OutputError.refused(option: option, path: path, reason: "an empty path") }
        var dir = path
        while kind(dir, following: true) == .missing {
            let parent = (dir as NSString).deletingLastPathComponent
            if parent.isEmpty || parent == dir { dir = "."; break }
            dir = parent
        }
        let found = kind(dir, following: true)
        guard found == .folder else {
            let what = dir == path ? "is \(found.name), not a folder" : "\(dir) is \(found.name), not a folder"
            throw OutputError.refused(option: option, path: path, reason: what)
        }
        guard access(dir, W_OK | X_OK) == 0 else {
            throw OutputError.refused(option: option, path: path, reason: "cannot write into \(dir) ("
                                      + String(cString: strerror(errno)) + ")")
        }
        if dir == path { OutputFile.removeStale(in: dir) }
    }
}
