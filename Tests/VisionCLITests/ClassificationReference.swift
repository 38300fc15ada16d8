import Foundation

/// MediaPipe 1.2.3's ImageClassifier and ImageEmbedder results on our inputs (tools/reference_classification.py,
/// Tests/Fixtures/classification): classification.json holds the labels and the options, embed, cosine and
/// calibrated sections; classify_int8.json and classify_float.json the classify section of each model.
enum ClassificationReference {
    static let directory = CLI.root + "/Tests/Fixtures" + "/classification"
    static let classifyFiles = ["classify_int8.json", "classify_float.json"]

    struct FixtureError: Error, CustomStringConvertible { let description: String }

    /// A section of classification.json ("labels", "options", "embed", "cosine", "calibrated").
    static func section<T>(_ key: String) throws -> T { try value(key, in: "classification.json") }

    /// The classify entries of both models.
    static func classify() throws -> [[String: Any]] {
        try classifyFiles.flatMap { try value("classify", in: $0) as [[String: Any]] }
    }

    /// MediaPipe's categories of `file` with default options, upright unless `rotation`, the whole image unless
    /// `roi`, `turned` for the pixels turned clockwise: the indices in its order and every score by index.
    static func scores(model: String, file: String, rotation: Int = 0, roi: [Double]? = nil, turned: Bool = false)
        throws -> (order: [Int], scores: [Float]) {
        guard let e = try classify().first(where: {
            $0["model"] as? String == model && $0["file"] as? String == file && $0["rotation"] as? Int == rotation
                && ($0["roi"] as? [Double]) == roi && ($0["turned"] as? Bool ?? false) == turned
                && $0["sequence"] == nil
        }) else {
            throw FixtureError(description: "\(directory): no classify entry for \(model) \(file) rotation "
                               + "\(rotation) roi \(roi.map { "\($0)" } ?? "none") turned \(turned)")
        }
        let order = uint16(e["order"] as? String ?? "").map(Int.init)
        let scores = (e["scoresQ8"] as? String).map { bytes($0).map { Float($0) / 256 } }
            ?? float32(e["scores"] as? String ?? "")
        guard order.count == scores.count, order.allSatisfy({ $0 < scores.count }) else {
            throw FixtureError(description: "\(directory): \(model) \(file): \(order.count) indices, "
                               + "\(scores.count) scores")
        }
        return (order, scores)
    }

    /// Little-endian arrays in base64, as the reference script stores them.
    static func bytes(_ text: String) -> [UInt8] { Data(base64Encoded: text).map(Array.init) ?? [] }

    static func float32(_ text: String) -> [Float] {
        let b = bytes(text)
        return stride(from: 0, to: b.count - 3, by: 4).map { i in
            Float(bitPattern: UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24)
        }
    }

    static func uint16(_ text: String) -> [UInt16] {
        let b = bytes(text)
        return stride(from: 0, to: b.count - 1, by: 2).map { UInt16(b[$0]) | UInt16(b[$0 + 1]) << 8 }
    }

    static func value<T>(_ key: String, in name: String) throws -> T {
        let path = directory + "/" + name
        let doc = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        guard let v = doc?[key] as? T else { throw FixtureError(description: "\(path): no \(key) of type \(T.self)") }
        return v
    }
}
