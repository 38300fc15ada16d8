import Foundation
import TasksVisionFormat

extension SHA256 {
    /// A file could not be read for hashing.
    struct UnreadableFile: Error, CustomStringConvertible {
        let path: String
        var description: String { "\(path): cannot be read" }
    }

    /// The hexadecimal SHA-256 of a file's contents, read in 1 MiB pieces.
    static func hexDigest(ofFile path: String) throws -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
              let handle = FileHandle(forReadingAtPath: path) else { throw UnreadableFile(path: path) }
        defer { try? handle.close() }
        var hash = SHA256()
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hash.update([UInt8](chunk)) }
        } catch {
            throw UnreadableFile(path: path)
        }
        return hash.hexDigest()
    }
}
