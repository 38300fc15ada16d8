import Foundation
@testable import TasksVision
import TasksVisionFormat
import TestFixtureSupport
import XCTest

/// The classifier's and embedder's calculators alone: libc++'s sorts against MediaPipe's orders of the fixture's
/// scores (no engine involved), TensorsToClassification's filters, LabelMap's splitting, TensorsToEmbeddings'
/// arithmetic, ImagePreprocessing's rects, ImageTensorSpecs' checks and ImageModelKind.
final class ClassificationCalculatorTests: XCTestCase {
    /// MediaPipe's order of every fixture case (1000 categories, equal scores of the uint8 model included) from its
    /// own scores: std::sort as libc++ leaves it.
    func testSortGivesMediaPipesOrderOfTheFixtureScores() throws {
        let fixtures = try ClassificationFixtures.load()
        var compared = 0
        for e in fixtures.classify {
            let scores = e.values
            let categories = TensorsToClassification.categories(scores, options: .init())
            XCTAssertEqual(categories.map(\.index), e.indices, e.what)
            compared += 1
        }
        XCTAssertEqual(compared, fixtures.classify.count)
        XCTAssertGreaterThan(compared, 150)
    }

    /// max_results is std::partial_sort: MediaPipe's first N, in its order, from the same scores.
    func testPartialSortGivesMediaPipesTopCategories() throws {
        let fixtures = try ClassificationFixtures.load()
        var compared = 0
        for e in fixtures.options where e.options.category_allowlist == nil && e.options.category_denylist == nil {
            guard let reference = fixtures.classify.first(where: {
                $0.model == e.model && $0.file == e.file && $0.rotation == 0 && $0.roi == nil && $0.turned == nil
                    && $0.sequence == nil
            }) else { continue }
            var o = TensorsToClassification.Options()
            o.topK = e.options.max_results ?? -1
            o.minScoreThreshold = e.options.score_threshold ?? 0
            let categories = TensorsToClassification.categories(reference.values, options: o)
            XCTAssertEqual(categories.map(\.index), e.categories.map { Int($0[0]) }, "\(e.model) \(e.file) \(e.options)")
            compared += 1
        }
        XCTAssertGreaterThanOrEqual(compared, 40)
    }

    /// Both sorts order correctly whatever the input: sizes around the insertion-sort and ninther limits, many ties.
    func testSortsOrderAnyInput() {
        var generator = SystemRandomNumberGenerator()
        for n in [0, 1, 2, 3, 4, 5, 6, 23, 24, 25, 127, 128, 129, 130, 300, 1000, 4097] {
            for levels in [2, 7, 1000] {
                let values = (0..<n).map { _ in Float(Int.random(in: 0..<levels, using: &generator)) }
                var a = Array(values.enumerated())
                LibcxxSort.sort(&a) { $0.element > $1.element }
                XCTAssertEqual(a.map(\.element), values.sorted(by: >), "n \(n)")
                XCTAssertEqual(Set(a.map(\.offset)).count, n)
                for k in [1, 3, n / 2, n] where k > 0 && k <= n {
                    var p = Array(values.enumerated())
                    LibcxxSort.partialSort(&p, middle: k) { $0.element > $1.element }
                    XCTAssertEqual(p.prefix(k).map(\.element), Array(values.sorted(by: >).prefix(k)), "n \(n) k \(k)")
                    XCTAssertEqual(Set(p.map(\.offset)).count, n)
                }
            }
        }
        // Sorted, reversed and constant inputs (the partitions' already-partitioned paths), and the heap sort
        // introsort falls back to past its depth limit.
        for values in [(0..<500).map(Float.init), (0..<500).reversed().map(Float.init), [Float](repeating: 1, count: 500)] {
            var a = values
            LibcxxSort.sort(&a, by: >)
            XCTAssertEqual(a, values.sorted(by: >))
            var b = Array(values.enumerated())
            b.withUnsafeMutableBufferPointer { buffer in
                LibcxxSort.Sorter(a: buffer, less: { $0.element > $1.element }).introsort(0, buffer.count, depth: 0,
                                                                                       leftmost: true)
            }
            XCTAssertEqual(b.map(\.element), values.sorted(by: >))
        }
    }

    func testTensorsToClassificationFilters() {
        let scores: [Float] = [0.1, 0.5, 0.2, 0.5, 0.05]
        var o = TensorsToClassification.Options()
        o.labels = LabelMap(names: ["a", "b", "c", "d", "e"], displayNames: ["A", "B", "C", "D", "E"])
        XCTAssertEqual(TensorsToClassification.categories(scores, options: o).map(\.index), [1, 3, 2, 0, 4])
        o.minScoreThreshold = 0.1
        XCTAssertEqual(TensorsToClassification.categories(scores, options: o).map(\.index), [1, 3, 2, 0])
        o.classIndices = [0, 3]
        o.isAllowlist = true
        let allowed = TensorsToClassification.categories(scores, options: o)
        XCTAssertEqual(allowed.map(\.index), [3, 0])
        XCTAssertEqual(allowed.first?.categoryName, "d")
        XCTAssertEqual(allowed.first?.displayName, "D")
        o.isAllowlist = false
        XCTAssertEqual(TensorsToClassification.categories(scores, options: o).map(\.index), [1, 2])
        o.topK = 1
        XCTAssertEqual(TensorsToClassification.categories(scores, options: o).map(\.index), [1])
        // NaN is not below any threshold (MediaPipe's `<`), so it stays.
        XCTAssertEqual(TensorsToClassification.categories([Float.nan], options: .init()).count, 1)
    }

    func testLabelMapSplitsAsMediaPipe() throws {
        XCTAssertEqual(LabelMap.lines(Array("a\nb\r\nc\rd\n".utf8)), ["a", "b", "c", "d"])
        // "a", "", "b", "" with the last (empty) line dropped.
        XCTAssertEqual(LabelMap.lines(Array("a\n\nb\n\n".utf8)), ["a", "", "b"])
        XCTAssertEqual(LabelMap.lines(Array("a\nb".utf8)), ["a", "b"])
        XCTAssertEqual(LabelMap.lines([]), [])
        let tensor = ModelMetadata.TensorMetadata(associatedFiles: [
            .init(name: "labels.txt", type: .tensorAxisLabels),
            .init(name: "labels_fr.txt", type: .tensorAxisLabels, locale: "fr"),
        ])
        let files: [String: [UInt8]] = ["labels.txt": Array("cat\ndog\n".utf8), "labels_fr.txt": Array("chat\nchien".utf8)]
        XCTAssertEqual(try LabelMap.of(tensor, files: files, locale: "fr", model: "m"),
                       LabelMap(names: ["cat", "dog"], displayNames: ["chat", "chien"]))
        XCTAssertEqual(try LabelMap.of(tensor, files: files, locale: "en", model: "m"),
                       LabelMap(names: ["cat", "dog"], displayNames: nil))
        XCTAssertThrowsError(try LabelMap.of(tensor, files: ["labels.txt": Array("cat\ndog".utf8),
                                                             "labels_fr.txt": Array("chat".utf8)],
                                             locale: "fr", model: "m.tflite")) { error in
            XCTAssertEqual((error as NSError).localizedDescription,
                           "INVALID_ARGUMENT: Mismatch between number of labels (2) and display names (1).")
            XCTAssertTrue("\(error)".contains("m.tflite"))
        }
        XCTAssertNil(try LabelMap.of(ModelMetadata.TensorMetadata(), files: files, locale: "en", model: "m"))
    }

    func testTensorsToEmbeddingsArithmetic() {
        let values: [Float] = [3, -4, 0]
        values.withUnsafeBufferPointer { v in
            XCTAssertEqual(TensorsToEmbeddings.inverseL2Norm(v), 0.2)
            XCTAssertEqual(TensorsToEmbeddings.floatEmbedding(v, l2Normalize: true), [0.6, -0.8, 0])
            XCTAssertEqual(TensorsToEmbeddings.floatEmbedding(v, l2Normalize: false), values)
            // roundf(v * 128): 0.6 * 128 = 76.8 -> 77, -0.8 * 128 = -102.4 -> -102.
            XCTAssertEqual(TensorsToEmbeddings.quantizedEmbedding(v, l2Normalize: true), [77, -102, 0])
            // Clamped to -128...127.
            XCTAssertEqual(TensorsToEmbeddings.quantizedEmbedding(v, l2Normalize: false), [127, -128, 0])
        }
        [Float](repeating: 0, count: 4).withUnsafeBufferPointer {
            XCTAssertEqual(TensorsToEmbeddings.inverseL2Norm($0), 1)
        }
        // Halves round away from zero (roundf).
        [Float(0.5 / 128), Float(-1.5 / 128)].withUnsafeBufferPointer {
            XCTAssertEqual(TensorsToEmbeddings.quantizedEmbedding($0, l2Normalize: false), [1, -2])
        }
    }

    /// The whole image's rect is the segmenter's; a region of a turned image is the same part of the scene.
    func testPreprocessingRects() throws {
        let pixels = [UInt8](repeating: 0, count: 40 * 20 * 3)
        for o in ImageOrientation.allCases where !o.isMirrored {
            let image = try MPImage(pixels: pixels, width: 40, height: 20, pixelFormat: .rgb8, orientation: o)
            XCTAssertEqual(ImagePreprocessing.roi(image, region: nil), ImageToTensor.fullImageRoi(image), "\(o)")
        }
        let up = try MPImage(pixels: pixels, width: 40, height: 20, pixelFormat: .rgb8)
        let left = ImagePreprocessing.roi(up, region: CGRect(x: 0, y: 0, width: 0.5, height: 1))
        XCTAssertEqual(left, RotatedRect(centerX: 10, centerY: 10, width: 20, height: 20, rotation: 0))
        // Turned right (90 degrees), the displayed top half is the stored pixels' left half... of the displayed
        // 20 x 40 image: stored x in [0, 20) is displayed y in [0, 20).
        let right = up.withOrientation(.right)
        let top = ImagePreprocessing.roi(right, region: CGRect(x: 0, y: 0, width: 1, height: 0.5))
        XCTAssertEqual(top.centerX, 10)
        XCTAssertEqual(top.centerY, 10)
        XCTAssertEqual(top.width, 20)
        XCTAssertEqual(top.height, 20)
        XCTAssertEqual(top.rotation, Float(-Double.pi / 2))
        XCTAssertThrowsError(try ImagePreprocessing.check(CGRect(x: 0.5, y: 0, width: 0.6, height: 1))) {
            XCTAssertEqual(($0 as NSError).localizedDescription, "INVALID_ARGUMENT: Expected RectF values to be in [0,1].")
        }
    }

    func testImageTensorSpecsChecksAsMediaPipe() throws {
        func specs(input: [Int] = [1, 4, 4, 3], type: TensorType = .float32,
                   normalization: ModelMetadata.Normalization? = .init(mean: [127.5], std: [127.5]),
                   content: ModelMetadata.ContentProperties? = .image(colorSpace: 1)) throws -> ImageTensorSpecs {
            let graph = TFLiteModelWriter.Subgraph(tensors: [.init(name: "image", shape: input, type: type)], inputs: [0],
                                                   outputs: [0], operators: [])
            let metadata = ModelMetadata(subgraphs: [.init(inputs: [.init(name: "image", normalization: normalization,
                                                                          content: content)], outputs: [])])
            let model = try TFLiteModel(bytes: try TFLiteModelWriter(subgraphs: [graph]).serialized(), name: "m")
            return try ImageTensorSpecs(model: model, metadata: metadata)
        }
        let s = try specs()
        XCTAssertEqual([s.width, s.height], [4, 4])
        XCTAssertEqual(s.range, ImageToTensor.ValueRange(min: -1, max: 1))
        XCTAssertNil(try specs(type: .uint8, normalization: nil).range)
        func failure(_ body: () throws -> ImageTensorSpecs) -> ImageTensorSpecs.Failure? {
            do { _ = try body(); return nil } catch { return error as? ImageTensorSpecs.Failure }
        }
        XCTAssertEqual(failure { try specs(normalization: nil) }?.status, "NOT_FOUND")
        XCTAssertEqual(failure { try specs(input: [1, 4, 4]) }?.text, "Only 4D tensors in BHWD layout are supported.")
        XCTAssertEqual(failure { try specs(input: [2, 4, 4, 3]) }?.text, "The input tensor should have dimensions 1 x "
                       + "height x width x depth, where depth = 3 or 4. Got 2 x 4 x 4 x 3.")
        XCTAssertEqual(failure { try specs(type: .int32) }?.text, "Type mismatch for input tensor image. Requested one "
                       + "of these types: uint8/float32, got INT32.")
        XCTAssertEqual(failure { try specs(content: .image(colorSpace: 2)) }?.text,
                       "Only RGB color space is supported for now.")
        XCTAssertEqual(failure { try specs(normalization: .init(mean: [1, 2, 3], std: [1, 1, 1])) }?.status,
                       "UNIMPLEMENTED")
    }

    func testModelKinds() throws {
        for (model, kind) in [("efficientnet_lite0.tflite", ImageModelKind.classifier),
                              ("efficientnet_lite0_float32.tflite", .classifier),
                              ("efficientdet_lite0.tflite", .detector), ("blaze_face_short_range.tflite", .detector),
                              ("deeplab_v3.tflite", .segmenter), ("selfie_segmenter.tflite", .segmenter)] {
            let m = try ModelAsset.loadModel(try Paths.model(model))
            XCTAssertEqual(ImageModelKind.of(m, metadata: try m.metadata()), kind, model)
        }
        let o = ImageClassifierOptions()
        o.baseOptions.modelAssetPath = try Paths.model("selfie_segmenter.tflite")
        XCTAssertThrowsError(try ImageClassifier(options: o)) { error in
            XCTAssertTrue("\(error)".contains("selfie_segmenter.tflite is an image segmenter (outputs [1, 256, 256, 1]),"
                                              + " not an image classifier; use ImageSegmenter"), "\(error)")
        }
        let s = ImageSegmenterOptions()
        s.baseOptions.modelAssetPath = try Paths.model("efficientnet_lite0_float32.tflite")
        XCTAssertThrowsError(try ImageSegmenter(options: s)) { error in
            XCTAssertTrue("\(error)".contains("is an image classifier (outputs [1, 1000]), not an image segmenter; use "
                                              + "ImageClassifier"), "\(error)")
        }
    }
}
