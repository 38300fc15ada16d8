import Foundation
@testable import TasksVision
import TasksVisionEngine
import TasksVisionFormat
import TasksVisionImageIO
import XCTest

/// `ImageSegmenter` with the multi-class deeplab_v3.tflite (21 Pascal VOC classes, softmax) against MediaPipe
/// 1.2.3's (tools/reference_deeplab.py, Tests/Fixtures/deeplab): the 21 labels; on every photo (the pose photos also
/// at rotation 90 and 180) and 20 frames of pose_dance_1 in video mode, each class's confidence mask equal to
/// MediaPipe's float for float (SHA-256 of the float32 mask) and the category mask byte for byte.
///
/// Where the engine does not give TFLite-XNNPACK's bits the bounds are the model's: each class's summed
/// confidence within 0.5% of the pixels and the category counts within 1% of the pixels.
final class DeeplabParityTests: XCTestCase {
    struct Index: Decodable {
        struct Entry: Decodable {
            let file: String; let rotation: Int?; let width: Int; let height: Int; let masks: Int
            let conf: [String]; let confSum: [Double]; let cat: String; let catCounts: [Int]; let png: String?
            let sequence: String?; let timestampMs: Int?
        }
        let labels: [String]
        let model: String
        let image: [Entry]
        let video: [Entry]
    }

    static let directory = Paths.fixtures + "/deeplab"

    static func index() throws -> Index {
        try JSONDecoder().decode(Index.self, from: Data(contentsOf: URL(fileURLWithPath: directory + "/deeplab.json")))
    }

    static func segmenter(mode: RunningMode = .image) throws -> ImageSegmenter {
        let o = ImageSegmenterOptions()
        o.baseOptions.modelAssetPath = try Paths.model("deeplab_v3.tflite")
        o.shouldOutputCategoryMask = true
        o.runningMode = mode
        return try ImageSegmenter(options: o)
    }

    static func image(_ e: Index.Entry) throws -> MPImage {
        if let sequence = e.sequence { return try TestImages.load(Paths.sequences + "/" + sequence + "/" + e.file) }
        if e.file.hasPrefix("google/") { return try MPImage(contentsOfFile: Paths.shared + "/testdata/" + e.file) }
        return try TestImages.load(Paths.images + "/" + e.file)
    }

    struct Tally: CustomStringConvertible {
        var results = 0, masks = 0, sameConfidence = 0, sameCategory = 0
        var description: String {
            "\(sameConfidence) of \(masks) confidence masks bit-identical, \(sameCategory) of \(results) category "
                + "masks byte-identical"
        }
    }

    static func check(_ r: ImageSegmenterResult, _ e: Index.Entry, _ tally: inout Tally, file: StaticString = #filePath,
                      line: UInt = #line) {
        let what = "\(e.sequence ?? "") \(e.file) rotation \(e.rotation ?? 0)"
        guard let masks = r.confidenceMasks, let cat = r.categoryMask else {
            return XCTFail("\(what): masks missing", file: file, line: line)
        }
        XCTAssertEqual(masks.count, e.masks, what, file: file, line: line)
        XCTAssertEqual([cat.width, cat.height], [e.width, e.height], what, file: file, line: line)
        tally.results += 1
        let pixels = Double(e.width * e.height)
        for (k, mask) in masks.enumerated() where k < e.conf.count {
            let floats = mask.float32Data
            let same = floats.withUnsafeBytes { SHA256.hexDigest(of: Array($0)) } == e.conf[k]
            tally.masks += 1
            tally.sameConfidence += same ? 1 : 0
            if EngineArithmetic.matchesX86XNNPACK {
                XCTAssertTrue(same, "\(what): class \(k)'s confidence mask differs from MediaPipe's", file: file,
                              line: line)
            } else {
                let sum = floats.reduce(0.0) { $0 + Double($1) }
                XCTAssertLessThanOrEqual(abs(sum - e.confSum[k]), 0.005 * pixels, what, file: file, line: line)
            }
        }
        let bytes = cat.uint8Data
        let same = SHA256.hexDigest(of: bytes) == e.cat
        tally.sameCategory += same ? 1 : 0
        if EngineArithmetic.matchesX86XNNPACK {
            XCTAssertTrue(same, "\(what): category mask differs from MediaPipe's", file: file, line: line)
        } else {
            var counts = [Int](repeating: 0, count: e.masks)
            for b in bytes where Int(b) < counts.count { counts[Int(b)] += 1 }
            for (a, b) in zip(counts, e.catCounts) {
                XCTAssertLessThanOrEqual(Double(abs(a - b)), 0.01 * pixels, what, file: file, line: line)
            }
        }
    }

    func testImageModeMatchesMediaPipe() throws {
        let index = try Self.index()
        let segmenter = try Self.segmenter()
        XCTAssertEqual(segmenter.labels, index.labels)
        var tally = Tally()
        for e in index.image {
            let image = try Self.image(e)
            switch e.rotation ?? 0 {
            case 0: Self.check(try segmenter.segment(image: image), e, &tally)
            case 180: Self.check(try segmenter.segment(image: image.withOrientation(.down)), e, &tally)
            default:
                // MediaPipe gives a turned image's masks at the stored size (see SegmentationParityTests).
                let turned = image.withOrientation(.right)
                Self.check(segmenter.masks(turned, outputWidth: turned.pixelWidth, outputHeight: turned.pixelHeight),
                           e, &tally)
            }
        }
        print("deeplab_v3, image mode: \(tally)")
        XCTAssertGreaterThan(tally.results, 60)
    }

    func testVideoModeMatchesMediaPipe() throws {
        let index = try Self.index()
        let segmenter = try Self.segmenter(mode: .video)
        var tally = Tally()
        for e in index.video {
            let r = try segmenter.segment(videoFrame: try Self.image(e), timestampInMilliseconds: e.timestampMs ?? 0)
            XCTAssertEqual(r.timestampInMilliseconds, e.timestampMs ?? 0)
            Self.check(r, e, &tally)
        }
        print("deeplab_v3, video mode: \(tally)")
        XCTAssertEqual(tally.results, 20)
    }

    /// The fixtures' category-mask PNGs, byte for byte.
    func testCategoryMasksEqualTheFixturePNGs() throws {
        guard EngineArithmetic.matchesX86XNNPACK else { throw XCTSkip("needs TFLite's bits") }
        let index = try Self.index()
        let segmenter = try Self.segmenter()
        var compared = 0
        for e in index.image where e.png != nil {
            let r = try segmenter.segment(image: try Self.image(e))
            XCTAssertEqual(r.categoryMask?.uint8Data,
                           try ImageFile.read(Self.directory + "/" + (e.png ?? "") + "_category.png").pixels, e.file)
            compared += 1
        }
        XCTAssertGreaterThanOrEqual(compared, 5)
    }
}
