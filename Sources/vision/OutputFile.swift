import Foundation
import TasksVisionFormat

/// Files the command line writes (overlays, masks, CSVs, bundles, models) appear whole or not at all: each is
/// written under a temporary name beside its place and renamed there when complete, so a run stopped or retried
/// part way never leaves a half-written file under the real name.
enum OutputFile {
    private static let lock = NSLock()
    /// Temporary files being written now, removed by `removePartials` when the run is stopped at once.
    nonisolated(unsafe) private static var partials: Set<String> = []
    /// Files written in this run, with the input each came from: a second input writing the same name is refused.
    nonisolated(unsafe) private static var claims: [String: String] = [:]

    /// What marks this program's temporary files (`AtomicFile`'s, shared with the training's writers).
    static let marker = AtomicFile.marker

    /// A hidden name in `path`'s folder, unique to this process: "dir/.out.mp4.vision-partial-4242-1".
    static func temporaryName(for path: String) -> String { AtomicFile.temporaryName(for: path) }

    /// Calls `body` with a temporary path and renames it to `path` when `body` returns; removes it if `body` throws.
    /// `source` (the input) claims `path` for this run: another input writing the same name fails.
    static func write(_ path: String, source: String? = nil, _ body: (String) throws -> Void) throws {
        if let source { try claim(path, by: source) }
        let temp = temporaryName(for: path)
        track(temp)
        defer { untrack(temp) }
        do {
            try body(temp)
            try commit(temp, to: path)
        } catch {
            _ = NativePath.withCString(temp) { unlink($0) }
            throw error
        }
    }

    /// Writes `bytes` to `path` through a temporary file (write errors such as ENOSPC named).
    static func write(_ bytes: [UInt8], to path: String, source: String? = nil) throws {
        try write(path, source: source) { try writeAll(bytes, to: $0, name: path) }
    }

    /// Creates `path` and writes all of `bytes` with POSIX calls, so that a full disk or an I/O error is named.
    static func writeAll(_ bytes: [UInt8], to path: String, name: String) throws {
        let fd = NativePath.withCString(path) { open($0, O_WRONLY | O_CREAT | O_TRUNC, 0o666) }
        guard fd >= 0 else { throw OutputError.cannotWrite(name, reason: String(cString: strerror(errno))) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { systemWrite(fd, UnsafeRawBufferPointer(rebasing: $0[written...])) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let reason = String(cString: strerror(n < 0 ? errno : EIO))
                close(fd)
                throw OutputError.cannotWrite(name, reason: reason)
            }
            written += n
        }
        // A full disk can show only at close (network file systems) or fsync.
        guard fsync(fd) == 0 || errno == EINVAL, close(fd) == 0 else {
            throw OutputError.cannotWrite(name, reason: String(cString: strerror(errno)))
        }
    }

    /// Claims `path` for input `source`: a second input of the run that would write the same file (by its
    /// canonical path: `d/a.png` and `./d/a.png` are one) is refused (the overlays of c1/a.png and c2/a.png),
    /// rather than one result silently replacing the other.
    static func claim(_ path: String, by source: String) throws {
        let key = OutputPath.canonicalEntry(path)
        lock.lock(); defer { lock.unlock() }
        if let first = claims[key], first != source {
            throw OutputError.collision(path: path, first: first, second: source)
        }
        claims[key] = source
    }

    /// The input that claimed the file at canonical path `key`, if any.
    static func claimant(_ key: String) -> String? {
        lock.lock(); defer { lock.unlock() }
        return claims[key]
    }

    /// The files claimed in the canonical `folder`: their names and inputs.
    static func claims(in folder: String) -> [(name: String, source: String)] {
        lock.lock(); defer { lock.unlock() }
        return claims.filter { PathText.parent($0.key) == folder }.map { (PathText.lastComponent($0.key), $0.value) }
    }

    static func track(_ temp: String) { lock.lock(); partials.insert(temp); lock.unlock() }
    static func untrack(_ temp: String) { lock.lock(); partials.remove(temp); lock.unlock() }

    /// Removes every temporary file being written (a run stopped at once: a second Ctrl-C, a closed output).
    static func removePartials() {
        lock.lock(); let all = partials; lock.unlock()
        for p in all { _ = NativePath.withCString(p) { unlink($0) } }
    }

    /// Removes this program's temporary files in `folder` left by runs that have ended (killed, or the machine
    /// stopped): their process id no longer runs. Files of a run still going are left alone.
    static func removeStale(in folder: String) {
        let folder = folder.isEmpty ? "." : folder
        guard let names = NativePath.contentsOfDirectory(folder) else { return }
        for name in names where name.hasPrefix(".") {
            guard let r = name.range(of: marker, options: .backwards) else { continue }
            let digits = name[r.upperBound...].split(separator: "-")
            guard digits.count == 2, let pid = Int32(digits[0]), Int(digits[1]) != nil, pid > 0 else { continue }
            if pid == getpid() || kill(pid, 0) == 0 || errno == EPERM { continue }
            _ = NativePath.withCString(PathText.join(folder, name)) { unlink($0) }
        }
    }

    /// Renames a finished temporary file to its place, replacing what is there, unless that is an input of the
    /// run (`OutputRule`: an output never replaces an input, whatever the checks before the work missed).
    static func commit(_ temp: String, to path: String) throws {
        if let input = OutputRule.input(at: path) {
            throw OutputError.replacesInput(option: nil, value: path, path: path, input: input)
        }
        guard NativePath.withCString(temp, { t in NativePath.withCString(path) { rename(t, $0) } }) == 0 else {
            let reason = String(cString: strerror(errno))
            throw OutputError.cannotWrite(path, reason: reason)
        }
    }
}

/// An output path that cannot be written, named once before the first frame.
enum OutputError: Error, CustomStringConvertible {
    case cannotWrite(String, reason: String)
    /// The output policy (`OutputPath`) refuses `path`: "--out victim: is a folder, not a file".
    case refused(option: String?, path: String, reason: String)
    /// Two inputs would write the same output file.
    case collision(path: String, first: String, second: String)
    /// Writing `path` (for option `option` given `value`) would replace the input `input` (`OutputRule`).
    case replacesInput(option: String?, value: String, path: String, input: String)

    var description: String {
        switch self {
        case let .cannotWrite(path, reason): return "cannot write \(path): \(reason)"
        case let .refused(option, path, reason):
            return (option.map { $0 + " " } ?? "") + "\(path): \(reason)"
        case let .collision(path, first, second):
            return "\(second): its output \(path) was written from \(first) in this run; "
                + "give inputs of distinct names (or run them into separate folders)"
        case let .replacesInput(option, value, path, input):
            let written = path == value || path == input ? "" : " \(path)"
            return (option.map { $0 + " " } ?? "") + "\(value):\(written) would replace the input \(input); "
                + "an output never replaces an input"
        }
    }
}
