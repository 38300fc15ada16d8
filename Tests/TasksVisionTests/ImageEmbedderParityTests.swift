import Foundation
@testable import TasksVision
import TasksVisionEngine
import TestFixtureSupport
import XCTest

/// `ImageEmbedder` against MediaPipe 1.2.3's (tools/reference_classification.py) with
/// efficientnet_lite0_float32.tflite, whose 1000 softmax values MediaPipe gives as the embedding: raw and
/// L2-normalized within 1e-6, quantized equal (or one step apart where MediaPipe's float product rounds the other
/// way), in image and video mode, with regions of interest; and the cosine similarities of Google's iOS tests.
final class ImageEmbedderParityTests: XCTestCase {
    static func embedder(_ model: String, l2: Bool, quantize: Bool, mode: RunningMode = .image) throws
        -> ImageEmbedder {
        let o = ImageEmbedderOptions()
        o.baseOptions.modelAssetPath = try Paths.model(model)
        o.l2Normalize = l2
        o.quantize = quantize
        o.runningMode = mode
        return try ImageEmbedder(options: o)
    }

    func testEmbeddingsMatchMediaPipe() throws {
        let fixtures = try ClassificationFixtures.load()
        var floats = ScoreComparison(), quantizedSame = 0, quantizedTotal = 0, results = 0
        var embedders: [String: ImageEmbedder] = [:]
        for e in fixtures.embed {
            let key = "\(e.model) \(e.l2) \(e.quantize) \(e.sequence != nil)"
            let embedder: ImageEmbedder
            if let cached = embedders[key] {
                embedder = cached
            } else {
                do {
                    embedder = try Self.embedder(e.model, l2: e.l2, quantize: e.quantize,
                                                 mode: e.sequence == nil ? .image : .video)
                } catch let error as VisionTaskError where "\(error)".contains("not run by this engine yet") {
                    continue
                }
                embedders[key] = embedder
            }
            let image = try ClassificationFixtures.image(e.file, sequence: e.sequence, rotation: e.rotation)
            let roi = e.roi.map { ImageProcessingOptions(regionOfInterest:
                ClassificationFixtures.displayedRegion($0, rotation: e.rotation)) }
            let r = e.sequence == nil ? try embedder.embed(image: image, imageProcessingOptions: roi)
                : try embedder.embed(videoFrame: image, timestampInMilliseconds: e.timestampMs ?? 0)
            XCTAssertEqual(r.embeddingResult.embeddings.count, 1, e.what)
            guard let embedding = r.embeddingResult.embeddings.first else { continue }
            XCTAssertEqual(embedding.headIndex, 0)
            XCTAssertEqual(embedding.headName, "probability")
            results += 1
            if let q = e.quantized {
                XCTAssertNil(embedding.floatEmbedding, e.what)
                let theirs = Base64Array.int8(q), ours = embedding.quantizedEmbedding ?? []
                XCTAssertEqual(ours.count, theirs.count, e.what)
                for (a, b) in zip(ours, theirs) {
                    quantizedTotal += 1
                    quantizedSame += a == b ? 1 : 0
                    XCTAssertLessThanOrEqual(abs(Int(a) - Int(b)), 1, e.what)
                }
            } else {
                XCTAssertNil(embedding.quantizedEmbedding, e.what)
                let theirs = Base64Array.float32(e.float ?? ""), ours = embedding.floatEmbedding ?? []
                XCTAssertEqual(ours.count, theirs.count, e.what)
                floats.add(ours, theirs)
                XCTAssertLessThanOrEqual(floats.maxError, 1e-6, e.what)
            }
        }
        print("embeddings: \(results) results; float \(floats.identical) of \(floats.compared) values bit-identical, "
              + "largest difference \(floats.maxError); quantized \(quantizedSame) of \(quantizedTotal) equal")
        XCTAssertGreaterThan(results, 30)
        XCTAssertGreaterThanOrEqual(Double(quantizedSame), 0.999 * Double(quantizedTotal))
        if EngineArithmetic.matchesX86XNNPACK {
            XCTAssertEqual(floats.identical, floats.compared, "not TFLite's bits")
            XCTAssertEqual(quantizedSame, quantizedTotal)
        }
    }

    /// The similarities MediaPipe gives for burger.jpg against its crop, its left 5/6 against the crop, its turned
    /// copy against itself, and the turned copy's region against the crop (Google's MPPImageEmbedderTests' pairs).
    func testCosineSimilaritiesMatchMediaPipe() throws {
        let fixtures = try ClassificationFixtures.load()
        for c in fixtures.cosine {
            let embedder = try Self.embedder(c.model, l2: c.l2, quantize: c.quantize)
            func embedding(_ image: MPImage, _ roi: CGRect? = nil) throws -> Embedding {
                let r = try embedder.embed(image: image, imageProcessingOptions: roi.map {
                    ImageProcessingOptions(regionOfInterest: $0) })
                return try XCTUnwrap(r.embeddingResult.embeddings.first)
            }
            let burger = try embedding(try ClassificationFixtures.image("google/burger.jpg"))
            let crop = try embedding(try ClassificationFixtures.image("google/burger_crop.jpg"))
            let turnedImage = try ClassificationFixtures.image("google/burger.jpg", rotation: 270, turned: true)
            let roi = try embedding(try ClassificationFixtures.image("google/burger.jpg"),
                                    CGRect(x: 0, y: 0, width: 0.833333, height: 1))
            let turned = try embedding(turnedImage)
            // MediaPipe's (0, 0, 1, 0.833333) of the stored pixels, in the displayed image.
            let turnedRoi = try embedding(turnedImage, ClassificationFixtures.displayedRegion([0, 0, 1, 0.833333],
                                                                                             rotation: 270))
            let what = "l2 \(c.l2) quantize \(c.quantize)"
            // Quantized embeddings may differ by a step where a product rounds the other way: a looser bound there.
            let tolerance = c.quantize ? 1e-4 : 1e-6
            func similarity(_ a: Embedding, _ b: Embedding) throws -> Double {
                try ImageEmbedder.cosineSimilarity(embedding1: a, embedding2: b).doubleValue
            }
            XCTAssertEqual(try similarity(burger, crop), c.burgerCrop, accuracy: tolerance, what)
            XCTAssertEqual(try similarity(roi, crop), c.roiCrop, accuracy: tolerance, what)
            XCTAssertEqual(try similarity(turned, burger), c.turnedBurger, accuracy: tolerance, what)
            XCTAssertEqual(try similarity(turnedRoi, crop), c.turnedRoiCrop, accuracy: tolerance, what)
        }
        XCTAssertEqual(fixtures.cosine.count, 4)
    }
}
