import Foundation
@testable import TasksVision
import TasksVisionImageIO
import XCTest

/// MediaPipe 1.2.3's ImageClassifier and ImageEmbedder on our photos (tools/reference_classification.py,
/// Tests/Fixtures/classification), decoded: classification.json holds the labels and the other sections,
/// classify_int8.json and classify_float.json the classify section of each model.
struct ClassificationFixtures: Decodable {
    struct Classify: Decodable {
        let model: String
        let file: String
        let rotation: Int
        let roi: [Double]?
        let turned: Bool?
        let sequence: String?
        let timestampMs: Int?
        let head: String?
        let count: Int
        let order: String
        let scores: String?
        let scoresQ8: String?

        /// MediaPipe's order of the categories' indices.
        var indices: [Int] { Base64Array.uint16(order).map(Int.init) }
        /// Every category's score by index.
        var values: [Float] {
            if let q = scoresQ8 { return Base64Array.bytes(q).map { Float($0) / 256 } }
            return Base64Array.float32(scores ?? "")
        }
        var what: String {
            "\(model) \(sequence.map { $0 + "/" } ?? "")\(file) rotation \(rotation)"
                + (roi.map { " roi \($0)" } ?? "") + (turned == true ? " turned" : "")
        }
    }

    struct OptionCase: Decodable {
        struct Options: Decodable {
            let max_results: Int?
            let score_threshold: Float?
            let category_allowlist: [String]?
            let category_denylist: [String]?
        }
        let model: String
        let file: String
        let options: Options
        let categories: [[Double]]
    }

    struct Embed: Decodable {
        let model: String
        let file: String
        let rotation: Int
        let roi: [Double]?
        let sequence: String?
        let timestampMs: Int?
        let l2: Bool
        let quantize: Bool
        let float: String?
        let quantized: String?

        var what: String {
            "\(model) \(sequence.map { $0 + "/" } ?? "")\(file) rotation \(rotation)" + (roi.map { " roi \($0)" } ?? "")
                + " l2 \(l2) quantize \(quantize)"
        }
    }

    struct Cosine: Decodable {
        let model: String
        let l2: Bool
        let quantize: Bool
        let burgerCrop: Double
        let roiCrop: Double
        let turnedBurger: Double
        let turnedRoiCrop: Double
    }

    struct Calibrated: Decodable {
        let model: String
        let sha256: String
        let file: String
        let categories: [[Double]]
    }

    let mediapipe: String
    let labels: [String]
    /// Both models' entries, from their own files.
    var classify: [Classify] = []
    let options: [OptionCase]
    let embed: [Embed]
    let cosine: [Cosine]
    let calibrated: [Calibrated]?

    enum CodingKeys: String, CodingKey { case mediapipe, labels, options, embed, cosine, calibrated }

    static let directory = Paths.fixtures + "/classification"
    static let classifyFiles = ["classify_int8.json", "classify_float.json"]

    static func load() throws -> ClassificationFixtures {
        struct ClassifyFile: Decodable { let classify: [Classify] }
        func decode<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
            try JSONDecoder().decode(type, from: Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)))
        }
        var fixtures = try decode(ClassificationFixtures.self, "classification.json")
        fixtures.classify = try classifyFiles.flatMap { try decode(ClassifyFile.self, $0).classify }
        return fixtures
    }

    /// The input as the reference script gave it to MediaPipe, with the orientation of its rotation.
    static func image(_ file: String, sequence: String? = nil, rotation: Int = 0, turned: Bool = false) throws
        -> MPImage {
        let path: String
        if let sequence {
            path = Paths.sequences + "/" + sequence + "/" + file
        } else if file.hasPrefix("google/") {
            path = Paths.shared + "/testdata/" + file
        } else {
            path = Paths.images + "/" + file
        }
        // JPEGs decode as MediaPipe's Image.create_from_file decodes them (the reference's loader for them).
        let image = file.hasSuffix(".jpg") ? try MPImage(contentsOfFile: path) : try TestImages.load(path)
        return turned ? try turnedClockwise(image).withOrientation(orientation(forRotation: rotation))
            : image.withOrientation(orientation(forRotation: rotation))
    }

    /// The pixels turned 90 degrees clockwise (np.rot90(k=-1)).
    static func turnedClockwise(_ image: MPImage) throws -> MPImage {
        let w = image.pixelWidth, h = image.pixelHeight, n = image.pixelFormat.bytesPerPixel
        var out = [UInt8](repeating: 0, count: w * h * n)
        image.withBytes { raw in
            guard let src = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            for y in 0..<w {
                for x in 0..<h {
                    let from = (h - 1 - x) * image.bytesPerRow + y * n, to = (y * h + x) * n
                    for c in 0..<n { out[to + c] = src[from + c] }
                }
            }
        }
        return try MPImage(pixels: out, width: h, height: w, pixelFormat: image.pixelFormat)
    }

    /// MediaPipe's region (RectF in the stored pixels: left, top, right, bottom) as ours: normalized to the
    /// image as displayed.
    static func displayedRegion(_ roi: [Double], rotation: Int) -> CGRect {
        let o = orientation(forRotation: rotation)
        let a = o.displayPoint(fromStored: (x: Float(roi[0]), y: Float(roi[1])))
        let b = o.displayPoint(fromStored: (x: Float(roi[2]), y: Float(roi[3])))
        return CGRect(x: Double(min(a.x, b.x)), y: Double(min(a.y, b.y)), width: Double(abs(b.x - a.x)),
                      height: Double(abs(b.y - a.y)))
    }

    static func model(_ name: String) throws -> String { try Paths.model(name) }
}

/// Little-endian arrays in base64, as the reference scripts store them.
enum Base64Array {
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

    static func int8(_ text: String) -> [Int8] { bytes(text).map { Int8(bitPattern: $0) } }
}

/// The largest difference of two score lists and how many are bit-identical.
struct ScoreComparison {
    var compared = 0, identical = 0
    var maxError: Float = 0

    mutating func add(_ ours: [Float], _ theirs: [Float]) {
        for (a, b) in zip(ours, theirs) {
            compared += 1
            if a.bitPattern == b.bitPattern { identical += 1 }
            maxError = max(maxError, abs(a - b))
        }
    }
}
