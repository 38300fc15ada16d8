import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The checks of one output path (`--out`, `--overlay`, `--masks`), made before any work: a file is written only
/// over a regular file (replaced atomically by `OutputFile`), never over a folder, device, socket or FIFO; a folder
/// to fill is never an existing file; a symbolic link is followed, as the shell's `>` follows it, but a dangling
/// one is refused; an empty path is refused; the folder written into must exist (a folder to fill is made) and be
/// writable. Stale partial files of earlier runs in that folder are removed. `OutputRule` adds what holds between
/// paths: no output replaces an input, no two outputs share a file. Paths are split by `PathText`, never by
/// Foundation's path functions, and reach the system through `NativePath` (names that are not UTF-8).
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
        guard !path.isEmpty else { return .missing }
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

    /// A file as the system knows it (links followed): two paths with one identity are one file, whatever their
    /// spelling (`./x`, `d/../x`, a link, a hard link).
    struct Identity: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    static func identity(_ path: String) -> Identity? {
        guard !path.isEmpty else { return nil }
        var s = stat()
        guard NativePath.withCString(path, { stat($0, &s) }) == 0 else { return nil }
        return Identity(device: UInt64(s.st_dev), inode: UInt64(s.st_ino))
    }

    /// The working folder, from its bytes.
    static var workingFolder: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "/" }
        return NativePath.decode(buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) })
    }

    /// The real path of an existing path (links, `.` and `..` resolved), nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard !path.isEmpty else { return nil }
        return NativePath.withCString(path) { p -> String? in
            guard let r = realpath(p, nil) else { return nil }
            defer { free(r) }
            return NativePath.decode(UnsafeBufferPointer(start: r, count: strlen(r)).map { UInt8(bitPattern: $0) })
        }
    }

    /// The absolute path `path` names, its existing part resolved (links, `.`, `..`) and the rest spelled out:
    /// two outputs with one canonical path are one file, even before it exists.
    static func canonical(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : PathText.join(workingFolder, path)
        var resolved = "/"
        var existing = true
        for component in PathText.components(absolute) {
            if existing, let real = realPath(PathText.join(resolved, component)) {
                resolved = real
                continue
            }
            existing = false
            resolved = component == ".." ? PathText.parent(resolved) : PathText.join(resolved, component)
            if resolved.isEmpty { resolved = "/" }
        }
        return resolved
    }

    /// The canonical path of the entry `path` names: its folder canonical, its own name kept (a link is not
    /// followed: writing there replaces the link). The key of a file an output claims.
    static func canonicalEntry(_ path: String) -> String {
        let name = PathText.lastComponent(path)
        guard !name.isEmpty, name != ".", name != "..", name != "/" else { return canonical(path) }
        return PathText.join(canonical(PathText.folder(path)), name)
    }

    /// Where writing to `path` lands: the target of its symbolic links; `path` itself when it is no link.
    /// A dangling link (whose target does not exist) is refused: writing through it would make a file somewhere
    /// the command line never named.
    static func resolvingLinks(_ path: String, option: String?) throws -> String {
        var current = path
        for _ in 0..<40 {
            guard kind(current) == .symlink else { return current }
            guard let target = destination(ofLink: current) else { return current }
            let folder = PathText.parent(current)
            current = target.hasPrefix("/") || folder.isEmpty ? target : PathText.join(folder, target)
            if kind(current) == .missing {
                throw OutputError.refused(option: option, path: path, reason: "a dangling symbolic link (to "
                                          + "\(target), which does not exist); remove it or give another path")
            }
        }
        throw OutputError.refused(option: option, path: path, reason: "too many levels of symbolic links")
    }

    /// The target a symbolic link holds, from its bytes.
    static func destination(ofLink path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = NativePath.withCString(path) { readlink($0, &buffer, buffer.count - 1) }
        guard n > 0 else { return nil }
        return NativePath.decode(buffer[0..<n].map { UInt8(bitPattern: $0) })
    }

    /// Why `place` (a folder to write into, or a file to replace) cannot be written, said one way everywhere:
    /// "PLACE is read-only (Permission denied)".
    static func readOnly(_ place: String, code: Int32) -> String {
        "\(place) is read-only (\(String(cString: strerror(code))))"
    }

    /// Checks a file output before any work and returns the path to write (its links followed). Refuses a folder,
    /// device, socket or FIFO, a dangling link, a missing or unwritable folder, a file that cannot be written.
    @discardableResult
    static func file(_ path: String, option: String?) throws -> String {
        guard !path.isEmpty else {
            throw OutputError.refused(option: option, path: "\"\"", reason: "an empty path; give a file path")
        }
        let target = try resolvingLinks(path, option: option)
        let shown = target == path ? "" : " (the link's target \(target))"
        switch kind(target) {
        case .missing, .regular:
            if PathText.namesFolder(path) {
                throw OutputError.refused(option: option, path: path, reason: "names a folder; give a file path")
            }
        case let other:
            throw OutputError.refused(option: option, path: path, reason: "is \(other.name)\(shown), not a file; "
                                      + "give a file path")
        }
        let dir = PathText.folder(target)
        switch kind(dir, following: true) {
        case .folder: break
        case .missing: throw OutputError.refused(option: option, path: path, reason: "no such folder \(dir)")
        default: throw OutputError.refused(option: option, path: path, reason: "\(dir) is not a folder")
        }
        guard NativePath.withCString(dir, { access($0, W_OK | X_OK) }) == 0 else {
            throw OutputError.refused(option: option, path: path, reason: readOnly(dir, code: errno))
        }
        if kind(target) == .regular && NativePath.withCString(target, { access($0, W_OK) }) != 0 {
            throw OutputError.refused(option: option, path: path, reason: readOnly(target, code: errno))
        }
        OutputFile.removeStale(in: dir)
        return target
    }

    /// Checks a folder to fill before any work: an existing file (or device...) on its path is refused, and so is a
    /// dangling link; a missing folder will be made, so the nearest existing folder on its path must be writable.
    static func folder(_ path: String, option: String?) throws {
        guard !path.isEmpty else {
            throw OutputError.refused(option: option, path: "\"\"", reason: "an empty path; give a folder")
        }
        if kind(path) == .symlink { _ = try resolvingLinks(path, option: option) }
        var dir = path
        while kind(dir, following: true) == .missing {
            // A dangling link part way (a/link/b) is refused as the path itself would be.
            if kind(dir) == .symlink { _ = try resolvingLinks(dir, option: option) }
            let parent = PathText.parent(dir)
            if parent.isEmpty || parent == dir { dir = "."; break }
            dir = parent
        }
        let found = kind(dir, following: true)
        guard found == .folder else {
            let what = dir == path ? "is \(found.name), not a folder" : "\(dir) is \(found.name), not a folder"
            throw OutputError.refused(option: option, path: path, reason: what)
        }
        guard NativePath.withCString(dir, { access($0, W_OK | X_OK) }) == 0 else {
            throw OutputError.refused(option: option, path: path, reason: readOnly(dir, code: errno))
        }
        if dir == path { OutputFile.removeStale(in: dir) }
    }

    /// Makes `path` and the folders above it (mkdir, so that names that are not UTF-8 are kept); a folder made
    /// meanwhile by another input (`--jobs`) is no error.
    static func makeFolder(_ path: String) throws {
        guard !path.isEmpty, kind(path, following: true) != .folder else { return }
        let parent = PathText.parent(path)
        if !parent.isEmpty && parent != path { try makeFolder(parent) }
        if NativePath.withCString(path, { mkdir($0, 0o777) }) != 0 && errno != EEXIST {
            throw OutputError.cannotWrite(path, reason: String(cString: strerror(errno)))
        }
        guard kind(path, following: true) == .folder else {
            throw OutputError.refused(option: nil, path: path, reason: "is \(kind(path, following: true).name), "
                                      + "not a folder")
        }
    }
}
