import Foundation

/// Loads model files: a `.tflite` on disk, or a member of a `.task` bundle named
/// with colons (`gesture_recognizer.task:hand_gesture_recognizer.task:gesture_embedder.tflite`).
public enum ModelAsset {
    /// Upper bound on a model file we are willing to read (guards against runaway allocation).
    public static let maximumFileSize = 1 << 30

    /// Reads a whole file, with a size check before allocating.
    public static func readFile(_ path: String) throws -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw FormatError.unreadable(file: path, reason: "no such file")
        }
        if isDirectory.boolValue { throw FormatError.unreadable(file: path, reason: "is a directory") }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        if let size = attributes?[.size] as? NSNumber, size.intValue > maximumFileSize {
            throw FormatError.unsupported(file: path,
                reason: "file of \(size.intValue) bytes is larger than the \(maximumFileSize)-byte limit")
        }
        // Straight into the array: reading into Data first and copying would hold the file twice.
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        } catch {
            throw FormatError.unreadable(file: path, reason: "permission denied or read error")
        }
        defer { try? handle.close() }
        let fd = handle.fileDescriptor
        let size = Int(lseek(fd, 0, SEEK_END))
        guard size >= 0, size <= maximumFileSize, lseek(fd, 0, SEEK_SET) == 0 else {
            throw FormatError.unreadable(file: path, reason: "cannot seek (size \(size))")
        }
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = 0
            while count < size, let base = buffer.baseAddress {
                let n = read(fd, base + count, size - count)
                if n > 0 { count += n } else if n < 0 && errno == EINTR { continue } else {
                    failure = n < 0 ? errno : -1
                    break
                }
            }
        }
        guard failure == 0, bytes.count == size else {
            throw FormatError.unreadable(file: path, reason: failure > 0 ? String(cString: strerror(failure))
                                                                           : "read \(bytes.count) of \(size) bytes")
        }
        return bytes
    }

    /// Splits `bundle.task:member:member` into the file path and the member chain.
    /// A path that exists as a file is taken whole, colons and all.
    public static func splitPath(_ path: String) -> (file: String, members: [String]) {
        if FileManager.default.fileExists(atPath: path) { return (path, []) }
        let parts = path.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 1 else { return (path, []) }
        return (parts[0], Array(parts[1...]))
    }

    /// The bytes of a model path, following bundle members. Returns the bytes and their display name.
    public static func load(_ path: String) throws -> (bytes: [UInt8], name: String) {
        let (file, members) = splitPath(path)
        var bytes = try readFile(file)
        var name = file
        for member in members {
            let bundle = try TaskBundle(bytes: bytes, name: name)
            bytes = try bundle.member(member)
            name += ":" + member
        }
        return (bytes, name)
    }

    /// Loads and parses a `.tflite` model (possibly inside a bundle).
    public static func loadModel(_ path: String) throws -> TFLiteModel {
        let (bytes, name) = try load(path)
        return try TFLiteModel(bytes: bytes, name: name)
    }
}

/// A MediaPipe `.task` bundle: a zip of stored model files, possibly holding nested bundles.
public struct TaskBundle: Sendable {
    public let name: String
    let archive: ZipArchive

    public init(bytes: [UInt8], name: String) throws {
        guard let archive = try ZipArchive(view: ByteView(bytes: bytes, name: name), allowMissing: false) else {
            throw FormatError.malformed(file: name, reason: "not a zip archive")
        }
        self.name = name
        self.archive = archive
    }

    public init(path: String) throws {
        let (bytes, name) = try ModelAsset.load(path)
        try self.init(bytes: bytes, name: name)
    }

    public var memberNames: [String] { archive.entries.map(\.name) }

    public func contains(_ member: String) -> Bool { archive.entry(named: member) != nil }

    /// The bytes of a member; a deflated member is refused.
    public func member(_ member: String) throws -> [UInt8] {
        guard let entry = archive.entry(named: member) else {
            throw FormatError.missingMember(file: name, member: member, available: memberNames)
        }
        return try archive.data(of: entry)
    }

    /// A nested bundle.
    public func bundle(_ member: String) throws -> TaskBundle {
        try TaskBundle(bytes: try self.member(member), name: "\(name):\(member)")
    }

    /// A model member, parsed.
    public func model(_ member: String) throws -> TFLiteModel {
        try TFLiteModel(bytes: try self.member(member), name: "\(name):\(member)")
    }
}
