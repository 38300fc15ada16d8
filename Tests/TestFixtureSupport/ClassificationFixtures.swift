import Foundation

/// MediaPipe 1.2.3's ImageClassifier and ImageEmbedder on our photos (tools/reference_classification.py,
/// Tests/Fixtures/classification), decoded: classification.json holds the labels and the other sections,
/// classify_int8.json and classify_float.json the classify section of each model.
public struct ClassificationFixtures: Decodable {
    public struct Classify: Decodable {
        public let model: String
        public let file: String
        public let rotation: Int
        public let roi: [Double]?
        public let turned: Bool?
        public let sequence: String?
        public let timestampMs: Int?
        public let head: String?
        public let count: Int
        public let order: String
        public let scores: String?
        public let scoresQ8: String?

        /// MediaPipe's order of the categories' indices.
        public var indices: [Int] { Base64Array.uint16(order).map(Int.init) }
        /// Every category's score by index.
        public var values: [Float] {
            if let q = scoresQ8 { return Base64Array.bytes(q).map { Float($0) / 256 } }
            return Base64Array.float32(scores ?? "")
        }
        public var what: String {
            "\(model) \(sequence.map { $0 + "/" } ?? "")\(file) rotation \(rotation)"
                + (roi.map { " roi \($0)" } ?? "") + (turned == true ? " turned" : "")
        }
    }

    public struct OptionCase: Decodable {
        public struct Options: Decodable {
            public let max_results: Int?
            public let score_threshold: Float?
            public let category_allowlist: [String]?
            public let category_denylist: [String]?
        }
        public let model: String
        public let file: String
        public let options: Options
        public let categories: [[Double]]
    }

    public struct Embed: Decodable {
        public let model: String
        public let file: String
        public let rotation: Int
        public let roi: [Double]?
        public let sequence: String?
        public let timestampMs: Int?
        public let l2: Bool
        public let quantize: Bool
        public let float: String?
        public let quantized: String?

        public var what: String {
            "\(model) \(sequence.map { $0 + "/" } ?? "")\(file) rotation \(rotation)" + (roi.map { " roi \($0)" } ?? "")
                + " l2 \(l2) quantize \(quantize)"
        }
    }

    public struct Cosine: Decodable {
        public let model: String
        public let l2: Bool
        public let quantize: Bool
        public let burgerCrop: Double
        public let roiCrop: Double
        public let turnedBurger: Double
        public let turnedRoiCrop: Double
    }

    public struct Calibrated: Decodable {
        public let model: String
        public let sha256: String
        public let file: String
        public let categories: [[Double]]
    }

    public struct FixtureError: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    public let mediapipe: String
    public let labels: [String]
    /// Both models' entries, from their own files.
    public private(set) var classify: [Classify] = []
    public let options: [OptionCase]
    public let embed: [Embed]
    public let cosine: [Cosine]
    public let calibrated: [Calibrated]?

    enum CodingKeys: String, CodingKey { case mediapipe, labels, options, embed, cosine, calibrated }

    /// This checkout's Tests/Fixtures/classification, found from this file's place in it.
    public static let directory: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path + "/Tests/Fixtures/classification"
    }()
    static let classifyFiles = ["classify_int8.json", "classify_float.json"]

    /// The fixtures, decoded once per test process (the three files are about 1.2 MB of JSON, and most tests of
    /// the classifier and embedder read them).
    public static func load() throws -> ClassificationFixtures { try decoded.get() }

    private static let decoded = Result { try decode() }

    private static func decode() throws -> ClassificationFixtures {
        struct ClassifyFile: Decodable { let classify: [Classify] }
        func decode<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
            try JSONDecoder().decode(type, from: Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)))
        }
        var fixtures = try decode(ClassificationFixtures.self, "classification.json")
        fixtures.classify = try classifyFiles.flatMap { try decode(ClassifyFile.self, $0).classify }
        return fixtures
    }

    /// MediaPipe's categories of `file` with default options, upright unless `rotation`, the whole image unless
    /// `roi`, `turned` for the pixels turned clockwise: the indices in its order and every score by index.
    public func scores(model: String, file: String, rotation: Int = 0, roi: [Double]? = nil, turned: Bool = false)
        throws -> (order: [Int], scores: [Float]) {
        guard let e = classify.first(where: {
            $0.model == model && $0.file == file && $0.rotation == rotation && $0.roi == roi
                && ($0.turned ?? false) == turned && $0.sequence == nil
        }) else {
            throw FixtureError(description: "\(Self.directory): no classify entry for \(model) \(file) rotation "
                               + "\(rotation) roi \(roi.map { "\($0)" } ?? "none") turned \(turned)")
        }
        let order = e.indices, scores = e.values
        // A damaged fixture fails here, named, instead of as an index out of range in a test.
        guard order.count == scores.count, order.allSatisfy({ $0 < scores.count }) else {
            throw FixtureError(description: "\(Self.directory): \(model) \(file): \(order.count) indices, "
                               + "\(scores.count) scores")
        }
        return (order, scores)
    }
}
