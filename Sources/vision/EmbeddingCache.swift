import Foundation
import TasksVision
import TasksVisionFormat

/// Embeddings `vision embed --similar` keeps between runs: one file per image, named by the SHA-256 of the
/// image's bytes, in a folder named by the SHA-256 of the model file and of everything else that changes the
/// embedding (the options, the region, the orientation): `$XDG_CACHE_HOME/tasksvision/embeddings/<key>/<sha>`.
/// Files are written whole or not at all (`OutputFile`), so a run stopped part way leaves none half written.
/// A cache that cannot be written is no error: the embeddings are then computed each time.
struct EmbeddingCache {
    let folder: String
    /// What the file holds: "f" floats, "q" bytes.
    private static let magic: [UInt8] = Array("TVEMB1".utf8)

    /// The cache of `model` with the settings `settings` (each a line of the key).
    init(root: String, model: String, settings: [String]) throws {
        let modelHash = try SHA256.hexDigest(ofFile: model)
        let key = SHA256.hexDigest(of: Array(([modelHash] + settings).joined(separator: "\n").utf8))
        folder = root + "/embeddings/" + String(key.prefix(32))
    }

    /// The cached embedding of an image of these bytes' hash, if any (a damaged file reads as none).
    func embedding(_ hash: String) -> Embedding? {
        guard let data = FileManager.default.contents(atPath: folder + "/" + hash) else { return nil }
        let bytes = Array(data)
        guard bytes.count > Self.magic.count + 1, Array(bytes.prefix(Self.magic.count)) == Self.magic else {
            return nil
        }
        let body = bytes[(Self.magic.count + 1)...]
        switch bytes[Self.magic.count] {
        case UInt8(ascii: "f") where body.count % 4 == 0:
            let floats = stride(from: body.startIndex, to: body.endIndex, by: 4).map { i in
                Float(bitPattern: UInt32(body[i]) | UInt32(body[i + 1]) << 8 | UInt32(body[i + 2]) << 16
                      | UInt32(body[i + 3]) << 24)
            }
            return Embedding(floatEmbedding: floats, quantizedEmbedding: nil, headIndex: 0, headName: nil)
        case UInt8(ascii: "q"):
            return Embedding(floatEmbedding: nil, quantizedEmbedding: body.map { Int8(bitPattern: $0) }, headIndex: 0,
                             headName: nil)
        default:
            return nil
        }
    }

    /// Stores an embedding; false when the cache cannot be written.
    @discardableResult
    func store(_ e: Embedding, _ hash: String) -> Bool {
        var bytes = Self.magic
        if let floats = e.floatEmbedding {
            bytes.append(UInt8(ascii: "f"))
            for f in floats {
                let b = f.bitPattern
                bytes += [UInt8(b & 0xff), UInt8((b >> 8) & 0xff), UInt8((b >> 16) & 0xff), UInt8(b >> 24)]
            }
        } else {
            bytes.append(UInt8(ascii: "q"))
            bytes += (e.quantizedEmbedding ?? []).map { UInt8(bitPattern: $0) }
        }
        do {
            try OutputPath.makeFolder(folder)
            try OutputFile.write(bytes, to: PathText.join(folder, hash))
            return true
        } catch {
            return false
        }
    }
}
