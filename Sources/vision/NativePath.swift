import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File names that are not UTF-8 (a Latin-1 "café" from an old camera). A path is bytes; a Swift string is Unicode.
/// Each byte that is not part of valid UTF-8 is kept in the string as one private-use character, U+F700 + byte
/// (Python's "surrogateescape" idea; Swift strings cannot hold the lone surrogates Python uses), and turned back
/// into that byte wherever the path meets the system: file calls, ffmpeg's arguments (through a link with a UTF-8
/// name), and standard output, which so prints the name as `ls` does. JSON records write such a byte as the escape
/// `\udcXX`, which JSON allows and Python reads back with `os.fsencode` to the same bytes.
enum NativePath {
    static let base: UInt32 = 0xF700

    /// Bytes of a path, argument or input line as text, an invalid byte kept as U+F700 + byte.
    static func decode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let array = Array(bytes)
        if let valid = String(validating: array, as: UTF8.self) { return valid }
        var scalars = String.UnicodeScalarView()
        var i = 0
        while i < array.count {
            let length = sequenceLength(array, at: i)
            if length > 0, let s = String(validating: array[i..<i + length], as: UTF8.self) {
                scalars.append(contentsOf: s.unicodeScalars)
                i += length
            } else {
                scalars.append(Unicode.Scalar(base + UInt32(array[i])) ?? "?")
                i += 1
            }
        }
        return String(scalars)
    }

    /// The length of the valid UTF-8 sequence starting at `i`, or 0.
    private static func sequenceLength(_ b: [UInt8], at i: Int) -> Int {
        let lead = b[i]
        let n = lead < 0x80 ? 1 : lead >= 0xC2 && lead <= 0xDF ? 2 : lead >= 0xE0 && lead <= 0xEF ? 3
            : lead >= 0xF0 && lead <= 0xF4 ? 4 : 0
        guard n > 0, i + n <= b.count else { return 0 }
        for k in 1..<n where b[i + k] & 0xC0 != 0x80 { return 0 }
        return n
    }

    static func isEscape(_ s: Unicode.Scalar) -> Bool { s.value >= base + 0x80 && s.value <= base + 0xFF }

    /// Whether `text` holds a kept byte.
    static func hasEscapes(_ text: String) -> Bool { text.unicodeScalars.contains(where: isEscape) }

    /// The bytes `text` stands for (its kept bytes as themselves).
    static func bytes(_ text: String) -> [UInt8] {
        guard hasEscapes(text) else { return Array(text.utf8) }
        var out: [UInt8] = []
        for s in text.unicodeScalars {
            if isEscape(s) { out.append(UInt8(s.value - base)) } else { out += Array(String(s).utf8) }
        }
        return out
    }

    /// A JSON text with each kept byte as `\udcXX` (the JSON encoder wrote it as the private-use character).
    static func escapingJSON(_ json: String) -> String {
        guard hasEscapes(json) else { return json }
        var out = ""
        for s in json.unicodeScalars {
            if isEscape(s) { out += String(format: "\\udc%02x", s.value - base) } else { out.unicodeScalars.append(s) }
        }
        return out
    }

    /// The command line's arguments, from the raw bytes (`CommandLine.arguments` replaces invalid bytes).
    static var arguments: [String] {
        (0..<Int(CommandLine.argc)).compactMap { i in
            CommandLine.unsafeArgv[i].map { p in decode(UnsafeBufferPointer(start: p, count: strlen(p))
                .map { UInt8(bitPattern: $0) }) }
        }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var aliases: [String: String] = [:]
    nonisolated(unsafe) private static var aliasFolder: String?

    /// A path the system's UTF-8 calls reach: `path` itself, or for a path with kept bytes a link with a UTF-8
    /// name (in a private temporary folder, removed at exit) to the real bytes.
    static func native(_ path: String) -> String {
        guard hasEscapes(path) else { return path }
        lock.lock(); defer { lock.unlock() }
        if let known = aliases[path] { return known }
        if aliasFolder == nil {
            var template = Array((NSTemporaryDirectory() + "/vision-names-XXXXXX").utf8CString)
            if let made = template.withUnsafeMutableBufferPointer({ b in b.baseAddress.flatMap { mkdtemp($0) } }) {
                let folder = String(cString: made)
                aliasFolder = folder
                atexit { NativePath.removeAliases() }
            }
        }
        guard let folder = aliasFolder else { return path }
        var target = bytes(path)
        if target.first != UInt8(ascii: "/") {
            target = Array(FileManager.default.currentDirectoryPath.utf8) + [UInt8(ascii: "/")] + target
        }
        let ext = PathText.fileExtension(path)
        let link = folder + "/\(aliases.count)" + (ext.isEmpty || hasEscapes(ext) ? "" : "." + ext)
        let made = withCString(decode(target)) { symlink($0, link) }
        guard made == 0 else { return path }
        aliases[path] = link
        return link
    }

    static func removeAliases() {
        lock.lock(); defer { lock.unlock() }
        guard let folder = aliasFolder else { return }
        for link in aliases.values { unlink(link) }
        rmdir(folder)
    }

    /// The names in a folder, from their bytes (`FileManager` replaces invalid bytes); nil if it cannot be read.
    static func contentsOfDirectory(_ path: String) -> [String]? {
        guard let dir = opendir(native(path)) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        // The name is read through a pointer, up to its NUL: an entry is only as long as its name (d_reclen), so
        // copying the whole 256-byte d_name field would read past it (FuzzOutputPath found it under ASan).
        guard let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else { return nil }
        while let entry = readdir(dir) {
            let start = UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: CChar.self)
            let name = UnsafeBufferPointer(start: start, count: strlen(start)).map { UInt8(bitPattern: $0) }
            if name == [46] || name == [46, 46] { continue }
            names.append(decode(name))
        }
        return names
    }
}

extension NativePath {
    /// Calls `body` with `path`'s bytes as a C string.
    static func withCString<T>(_ path: String, _ body: (UnsafePointer<CChar>) -> T) -> T {
        guard hasEscapes(path) else { return path.withCString(body) }
        let c = (bytes(path) + [0]).map { CChar(bitPattern: $0) }
        return c.withUnsafeBufferPointer { b in b.baseAddress.map(body) ?? "".withCString(body) }
    }

    /// Runs a reader of a file on `path` through its alias, naming `path` (not the alias) in an error.
    static func reading<T>(_ path: String, _ body: (String) throws -> T) throws -> T {
        let alias = native(path)
        do {
            return try body(alias)
        } catch where alias != path {
            throw Renamed(description: "\(error)".replacingOccurrences(of: alias, with: path))
        }
    }

    /// An error whose message names the path as given.
    struct Renamed: Error, CustomStringConvertible { let description: String }
}
