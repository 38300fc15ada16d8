import Foundation
@testable import TasksVision
import TasksVisionFormat
import XCTest

/// MediaPipe 1.2.3's ObjectDetector results (tools/reference_objects.py, Tests/Fixtures/objects).
enum ObjectFixtures {
    static let directory = Paths.fixtures + "/objects"
    static let model = "efficientdet_lite0.tflite"

    /// One detection: [originX, originY, width, height, score, categoryName, displayName, index], in pixels of
    /// the stored image.
    struct MPDetection: Decodable, Equatable, CustomStringConvertible {
        var box: PixelBox
        var score: Float
        var categoryName: String?
        var displayName: String?
        var index: Int?

        init(from decoder: Decoder) throws {
            var c = try decoder.unkeyedContainer()
            box = PixelBox(x: try c.decode(Int.self), y: try c.decode(Int.self), width: try c.decode(Int.self),
                           height: try c.decode(Int.self))
            score = try c.decode(Float.self)
            categoryName = try c.decodeIfPresent(String.self)
            displayName = try c.decodeIfPresent(String.self)
            index = try c.decodeIfPresent(Int.self)
        }

        var description: String {
            "[\(box.x),\(box.y) \(box.width)x\(box.height)] \(score) \(categoryName ?? "-")/\(displayName ?? "-")"
        }
    }

    struct Options: Decodable, Hashable, CustomStringConvertible {
        var max_results: Int?
        var score_threshold: Float?
        var category_allowlist: [String]?
        var category_denylist: [String]?
        var display_names_locale: String?

        var description: String {
            [max_results.map { "max_results \($0)" }, score_threshold.map { "score_threshold \($0)" },
             category_allowlist.map { "allowlist \($0)" }, category_denylist.map { "denylist \($0)" },
             display_names_locale.map { "locale '\($0)'" }].compactMap { $0 }.joined(separator: ", ")
        }

        var detector: ObjectDetectorOptions {
            let o = ObjectDetectorOptions()
            if let v = max_results { o.maxResults = v }
            if let v = score_threshold { o.scoreThreshold = v }
            if let v = category_allowlist { o.categoryAllowlist = v }
            if let v = category_denylist { o.categoryDenylist = v }
            if let v = display_names_locale { o.displayNamesLocale = v }
            return o
        }
    }

    struct ImageEntry: Decodable {
        let file: String; let width: Int; let height: Int; let rotation: Int; let options: Options
        let detections: [MPDetection]
    }

    struct Frame: Decodable {
        let file: String; let width: Int; let height: Int; let timestampMs: Int; let detections: [MPDetection]
    }

    struct Video: Decodable { let sequence: String; let options: Options; let frames: [Frame] }

    struct Document: Decodable {
        let model: String
        let images: [ImageEntry]
        let videos: [Video]
    }

    /// A model output as the fixture packs it: distinct values and a zlib-compressed byte index into them.
    struct Packed: Decodable {
        let shape: [Int]
        let values: [UInt32]
        let index: String

        func floats() throws -> [Float] {
            guard let data = Data(base64Encoded: index) else { throw CocoaError(.fileReadCorruptFile) }
            let count = shape.reduce(1, *)
            let bytes = try Inflate.zlib([UInt8](data), limit: count)
            guard bytes.count == count else { throw CocoaError(.fileReadCorruptFile) }
            let palette = values.map { Float(bitPattern: $0) }
            return try bytes.map { b in
                guard Int(b) < palette.count else { throw CocoaError(.fileReadCorruptFile) }
                return palette[Int(b)]
            }
        }
    }

    struct Raw: Decodable {
        let file: String; let width: Int; let height: Int
        let outputs: [Packed]
        let detections: [MPDetection]
    }

    static func document() throws -> Document {
        try JSONDecoder().decode(Document.self, from: Data(contentsOf: URL(fileURLWithPath:
            directory + "/objects.json")))
    }

    static func raw(_ stem: String) throws -> Raw {
        try JSONDecoder().decode(Raw.self, from: Data(contentsOf: URL(fileURLWithPath:
            directory + "/raw_\(stem).json")))
    }

    /// The photo's path: our test photos, or Google's burger photos.
    static func path(_ file: String) -> String {
        (file.hasPrefix("burger") ? Paths.shared + "/testdata/google/" : Paths.images + "/") + file
    }

    /// The orientation whose `rotationDegrees` is MediaPipe's `rotation_degrees`.
    static func orientation(_ rotation: Int) -> ImageOrientation {
        switch rotation {
        case 90: return .right
        case 180: return .down
        case 270: return .left
        default: return .up
        }
    }

    /// The public result of an upright image (boxes in the displayed image, which is the stored one) as the
    /// graph's output.
    static func found(_ result: ObjectDetectorResult) -> [ObjectDetectorPipeline.Found] {
        result.detections.map { d in
            let c = d.categories
            let labels = DetectionLabels(scores: c.map(\.score), labelIds: c.map(\.index).filter { $0 >= 0 },
                                         labels: c.compactMap(\.categoryName), displayNames: c.compactMap(\.displayName))
            let b = d.boundingBox
            return ObjectDetectorPipeline.Found(labels: labels, box: PixelBox(
                x: Int(b.minX), y: Int(b.minY), width: Int(b.width), height: Int(b.height)))
        }
    }

    /// Ours (the graph's output) against MediaPipe's: the same detections in the same order, boxes and labels
    /// equal, scores within `tolerance`. Returns how many matched before the first difference.
    @discardableResult
    static func compare(_ ours: [ObjectDetectorPipeline.Found], _ theirs: [MPDetection], tolerance: Float = 1e-6,
                        _ what: String, file: StaticString = #filePath, line: UInt = #line) -> Int {
        XCTAssertEqual(ours.count, theirs.count, "\(what): detection count", file: file, line: line)
        for (i, (o, t)) in zip(ours, theirs).enumerated() {
            let c = o.labels.categories
            guard c.count == 1, let category = c.first, o.box == t.box,
                  abs(category.score - t.score) <= tolerance, category.categoryName == t.categoryName,
                  category.displayName == t.displayName, category.index == (t.index ?? -1) else {
                XCTFail("\(what): detection \(i) is \(o.box) \(c), MediaPipe's \(t)", file: file, line: line)
                return i
            }
        }
        return min(ours.count, theirs.count)
    }
}
