import Foundation
@testable import TasksVision
import TasksVisionEngine
import TasksVisionFormat
import TasksVisionImageIO
import XCTest

/// `ImageSegmenter` against MediaPipe 1.2.3's (tools/reference_segmentation.py, Tests/Fixtures/segmentation): the
/// three selfie models on the people photos (unrotated; the pose photos also at rotation 90 and 180) and on
/// pose_dance_1 in video mode. The fixtures hold the SHA-256 of each float32 confidence mask and each category
/// mask, and 8-bit PNGs of some.
///
/// Where the engine gives TFLite-XNNPACK's bits (`EngineArithmetic.matchesX86XNNPACK`), every confidence mask
/// must equal MediaPipe's float for float and every category mask byte for byte. Elsewhere the bounds are the
/// model's: the float sum within 0.5% relative, the person's share of the category mask within 0.5% of the
/// pixels, and the PNGs within a mean of 0.005 plus the quantization's 0.5/255.
final class SegmentationParityTests: XCTestCase {
    struct Index: Decodable {
        struct Entry: Decodable {
            let model: String; let file: String; let rotation: Int?; let width: Int; let height: Int
            let conf: String; let cat: String; let confSum: Double; let catPerson: Int; let png: String?
            let sequence: String?; let timestampMs: Int?
        }
        let labels: [String]
        let models: [String]
        let image: [Entry]
        let video: [Entry]
    }

    static let directory = Paths.fixtures + "/segmentation"

    static func index() throws -> Index {
        try JSONDecoder().decode(Index.self, from: Data(contentsOf: URL(fileURLWithPath:
            directory + "/segmentation.json")))
    }

    static func segmenter(_ model: String, mode: RunningMode = .image) throws -> ImageSegmenter {
        let o = ImageSegmenterOptions()
        o.baseOptions.modelAssetPath = try Paths.model(model)
        o.shouldOutputCategoryMask = true
        o.runningMode = mode
        return try ImageSegmenter(options: o)
    }

    struct Tally: CustomStringConvertible {
        var results = 0, sameConfidence = 0, sameCategory = 0
        var description: String {
            "\(sameConfidence) of \(results) confidence masks bit-identical, \(sameCategory) of \(results) "
                + "category masks byte-identical"
        }
    }

    /// One result against its fixture entry.
    static func check(_ r: ImageSegmenterResult, _ e: Index.Entry, _ tally: inout Tally, file: StaticString = #filePath,
                      line: UInt = #line) throws {
        let what = "\(e.model) \(e.sequence ?? "") \(e.file) rotation \(e.rotation ?? 0)"
        guard let conf = r.confidenceMasks?.first, r.confidenceMasks?.count == 1, let cat = r.categoryMask else {
            return XCTFail("\(what): masks missing", file: file, line: line)
        }
        XCTAssertEqual([conf.width, conf.height, cat.width, cat.height], [e.width, e.height, e.width, e.height],
                       what, file: file, line: line)
        let floats = conf.float32Data, bytes = cat.uint8Data
        let sameConfidence = floats.withUnsafeBytes { SHA256.hexDigest(of: Array($0)) } == e.conf
        let sameCategory = SHA256.hexDigest(of: bytes) == e.cat
        tally.results += 1
        tally.sameConfidence += sameConfidence ? 1 : 0
        tally.sameCategory += sameCategory ? 1 : 0
        if EngineArithmetic.matchesX86XNNPACK {
            XCTAssertTrue(sameConfidence, "\(what): confidence mask differs from MediaPipe's", file: file, line: line)
            XCTAssertTrue(sameCategory, "\(what): category mask differs from MediaPipe's", file: file, line: line)
            return
        }
        let sum = floats.reduce(0.0) { $0 + Double($1) }
        XCTAssertLessThanOrEqual(abs(sum - e.confSum), 0.005 * max(1, e.confSum), what, file: file, line: line)
        let person = bytes.reduce(0) { $0 + ($1 == 0 ? 1 : 0) }
        XCTAssertLessThanOrEqual(abs(person - e.catPerson), e.width * e.height / 200 + 1, what, file: file, line: line)
        if let png = e.png {
            let ref = try ImageFile.read(directory + "/" + png + ".png").pixels
            let mad = zip(floats, ref).reduce(0.0) { $0 + abs(Double($1.0) - Double($1.1) / 255) } / Double(ref.count)
            XCTAssertLessThanOrEqual(mad, 0.005 + 0.5 / 255, what, file: file, line: line)
        }
    }

    func testImageModeMatchesMediaPipe() throws {
        let index = try Self.index()
        for model in index.models {
            let segmenter = try Self.segmenter(model)
            XCTAssertEqual(segmenter.labels, index.labels)
            var tally = Tally()
            for e in index.image where e.model == model {
                let image = try MPImage(contentsOfFile: Paths.images + "/" + e.file)
                switch e.rotation ?? 0 {
                case 0: try Self.check(try segmenter.segment(image: image), e, &tally)
                case 180: try Self.check(try segmenter.segment(image: image.withOrientation(.down)), e, &tally)
                default:
                    // MediaPipe resizes a turned image's upright mask to the stored size; so does the task's
                    // inner call when given that size (the public one gives the displayed size).
                    let turned = image.withOrientation(.right)
                    try Self.check(segmenter.masks(turned, outputWidth: turned.pixelWidth,
                                                   outputHeight: turned.pixelHeight), e, &tally)
                }
            }
            print("\(model), image mode: \(tally)")
            XCTAssertGreaterThan(tally.results, 30)
        }
    }

    func testVideoModeMatchesMediaPipe() throws {
        let index = try Self.index()
        for model in index.models {
            let segmenter = try Self.segmenter(model, mode: .video)
            var tally = Tally()
            for e in index.video where e.model == model {
                let image = try MPImage(contentsOfFile: Paths.sequences + "/" + (e.sequence ?? "") + "/" + e.file)
                let r = try segmenter.segment(videoFrame: image, timestampInMilliseconds: e.timestampMs ?? 0)
                XCTAssertEqual(r.timestampInMilliseconds, e.timestampMs ?? 0)
                try Self.check(r, e, &tally)
            }
            print("\(model), video mode: \(tally)")
            XCTAssertEqual(tally.results, 40)
        }
    }

    /// The 8-bit fixtures are numpy's round(p * 255) of MediaPipe's floats: ours quantized the same way equal them.
    func testQuantizedMasksEqualTheFixturePNGs() throws {
        guard EngineArithmetic.matchesX86XNNPACK else { throw XCTSkip("needs TFLite's bits") }
        let index = try Self.index()
        let segmenter = try Self.segmenter(index.models[0])
        for e in index.image where e.model == index.models[0] && e.png != nil && e.file.hasPrefix("pose_") {
            let r = try segmenter.segment(image: try MPImage(contentsOfFile: Paths.images + "/" + e.file))
            let quantized = (r.confidenceMasks?.first?.float32Data ?? []).map {
                UInt8(($0 * 255).rounded(.toNearestOrEven))
            }
            XCTAssertEqual(quantized, try ImageFile.read(Self.directory + "/" + (e.png ?? "") + ".png").pixels, e.file)
            XCTAssertEqual(r.categoryMask?.uint8Data,
                           try ImageFile.read(Self.directory + "/" + (e.png ?? "") + "_category.png").pixels, e.file)
        }
    }
}
