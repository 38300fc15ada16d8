import Foundation
import TasksVision
import TasksVisionImageIO
import TestFixtureSupport
import XCTest

/// Port of mediapipe/tasks/ios/test/vision/image_embedder/MPPImageEmbedderTests.mm. Google's
/// mobilenet_v3_small_100_224_embedder.tflite (1024 values) is not here: the cases run
/// efficientnet_lite0_float32.tflite, whose 1000 softmax values MediaPipe 1.2.3's ImageEmbedder gives as the
/// embedding, on Google's burger.jpg and burger_crop.jpg, and the expected cosine similarities are MediaPipe's on
/// the same inputs with the same model (Tests/Fixtures/classification, tools/reference_classification.py), within
/// the test's 1e-4. Google's burger_rotated.jpg is burger.jpg turned clockwise (`Port.turnedImageFile`). Regions are
/// normalized to the displayed image here: the turned burger's region (0, 0, 1, 0.833333) of the stored pixels
/// is (0, 0, 0.833333, 1) as it shows upright.
final class MPPImageEmbedderTests: XCTestCase, ImageEmbedderLiveStreamDelegate {
    static let kModel = "efficientnet_lite0_float32.tflite"
    static let kDoubleDifferenceTolerance = 1e-4
    static let kExpectedEmbeddingLength = 1000

    var liveStreamExpectation: XCTestExpectation?
    var liveStreamEmbedder: ImageEmbedder?
    var callbackErrors: [String] = []
    let lock = NSLock()

    /// MediaPipe's similarity of a pair (`burgerCrop`, `roiCrop`, `turnedBurger`, `turnedRoiCrop`) for the options.
    static func expected(_ pair: KeyPath<ClassificationFixtures.Cosine, Double>, l2: Bool = false,
                         quantize: Bool = false) throws -> Double {
        let entry = try ClassificationFixtures.load().cosine.first { $0.l2 == l2 && $0.quantize == quantize }
        return try XCTUnwrap(entry?[keyPath: pair])
    }

    static func google(_ name: String) throws -> MPImage {
        try MPImage(contentsOfFile: Port.shared + "/testdata/google/" + name)
    }

    func options() throws -> ImageEmbedderOptions {
        let o = ImageEmbedderOptions()
        o.baseOptions.modelAssetPath = try Port.model(Self.kModel)
        return o
    }

    /// `AssertEmbeddingHasCorrectTypeAndDimension` and `AssertImageEmbedderResultHasOneEmbedding`.
    func assertOneEmbedding(_ result: ImageEmbedderResult?, quantized: Bool, file: StaticString = #filePath,
                            line: UInt = #line) {
        guard let result else { return XCTFail("no result", file: file, line: line) }
        XCTAssertEqual(result.embeddingResult.embeddings.count, 1, file: file, line: line)
        guard let e = result.embeddingResult.embeddings.first else { return }
        if quantized {
            XCTAssertNil(e.floatEmbedding, file: file, line: line)
            XCTAssertEqual(e.quantizedEmbedding?.count, Self.kExpectedEmbeddingLength, file: file, line: line)
        } else {
            XCTAssertNil(e.quantizedEmbedding, file: file, line: line)
            XCTAssertEqual(e.floatEmbedding?.count, Self.kExpectedEmbeddingLength, file: file, line: line)
        }
    }

    /// `assertImageEmbedderResult:isApproximatelyEqualToImageEmbedderResult:...andCosineSimilarity:`.
    func assertSimilar(_ a: ImageEmbedderResult, _ b: ImageEmbedderResult, quantized: Bool, similarity: Double,
                       file: StaticString = #filePath, line: UInt = #line) throws {
        assertOneEmbedding(a, quantized: quantized, file: file, line: line)
        assertOneEmbedding(b, quantized: quantized, file: file, line: line)
        let value = try ImageEmbedder.cosineSimilarity(embedding1: a.embeddingResult.embeddings[0],
                                                       embedding2: b.embeddingResult.embeddings[0])
        XCTAssertEqual(value.doubleValue, similarity, accuracy: Self.kDoubleDifferenceTolerance, file: file, line: line)
    }

    // MARK: General tests

    func testCreateImageEmbedderFailsWithMissingModelPath() throws {
        assertEqualErrors(thrownError { _ = try ImageEmbedder(modelPath: "") },
                          "INVALID_ARGUMENT: ExternalFile must specify at least one of 'file_content', "
                          + "'file_name', 'file_pointer_meta' or 'file_descriptor_meta'.")
    }

    func testEmbedWithNoOptionsSucceeds() throws {
        let embedder = try ImageEmbedder(modelPath: try Port.model(Self.kModel))
        try assertSimilar(try embedder.embed(image: try Self.google("burger.jpg")),
                          try embedder.embed(image: try Self.google("burger_crop.jpg")), quantized: false,
                          similarity: try Self.expected(\.burgerCrop))
    }

    func testEmbedWithQuantizationSucceeds() throws {
        let o = try options()
        o.quantize = true
        let embedder = try ImageEmbedder(options: o)
        try assertSimilar(try embedder.embed(image: try Self.google("burger.jpg")),
                          try embedder.embed(image: try Self.google("burger_crop.jpg")), quantized: true,
                          similarity: try Self.expected(\.burgerCrop, quantize: true))
    }

    func testEmbedWithL2NormalizationSucceeds() throws {
        let o = try options()
        o.l2Normalize = true
        let embedder = try ImageEmbedder(options: o)
        try assertSimilar(try embedder.embed(image: try Self.google("burger.jpg")),
                          try embedder.embed(image: try Self.google("burger_crop.jpg")), quantized: false,
                          similarity: try Self.expected(\.burgerCrop, l2: true))
    }

    func testEmbedWithRegionOfInterestSucceeds() throws {
        let embedder = try ImageEmbedder(modelPath: try Port.model(Self.kModel))
        let roi = try embedder.embed(image: try Self.google("burger.jpg"),
                                     regionOfInterest: CGRect(x: 0, y: 0, width: 0.833333, height: 1))
        try assertSimilar(roi, try embedder.embed(image: try Self.google("burger_crop.jpg")), quantized: false,
                          similarity: try Self.expected(\.roiCrop))
    }

    func testEmbedWithOrientationSucceeds() throws {
        let embedder = try ImageEmbedder(modelPath: try Port.model(Self.kModel))
        let turned = try embedder.embed(image: try Port.turnedImageFile(Port.shared + "/testdata/google/burger.jpg"))
        try assertSimilar(turned, try embedder.embed(image: try Self.google("burger.jpg")), quantized: false,
                          similarity: try Self.expected(\.turnedBurger))
    }

    func testEmbedWithRegionOfInterestOrientationSucceeds() throws {
        let embedder = try ImageEmbedder(modelPath: try Port.model(Self.kModel))
        let turned = try embedder.embed(image: try Port.turnedImageFile(Port.shared + "/testdata/google/burger.jpg"),
                                        regionOfInterest: CGRect(x: 0, y: 0, width: 0.833333, height: 1))
        try assertSimilar(turned, try embedder.embed(image: try Self.google("burger_crop.jpg")), quantized: false,
                          similarity: try Self.expected(\.turnedRoiCrop))
    }

    // MARK: Running mode tests

    func testCreateImageEmbedderFailsWithMissingDelegateInLiveStreamMode() throws {
        let o = try options()
        o.runningMode = .liveStream
        assertEqualErrors(thrownError { _ = try ImageEmbedder(options: o) },
                          "The vision task is in live stream mode. An object must be set as the delegate of the "
                          + "task in its options to ensure asynchronous delivery of results.")
    }

    func testEmbedFailsWithCallingWrongApiInImageMode() throws {
        let embedder = try ImageEmbedder(options: try options())
        let image = try Self.google("burger.jpg")
        assertEqualErrors(thrownError { try embedder.embedAsync(image: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with live stream mode. Current Running Mode: Image")
        assertEqualErrors(thrownError { _ = try embedder.embed(videoFrame: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with video mode. Current Running Mode: Image")
    }

    func testEmbedFailsWithCallingWrongApiInVideoMode() throws {
        let o = try options()
        o.runningMode = .video
        let embedder = try ImageEmbedder(options: o)
        let image = try Self.google("burger.jpg")
        assertEqualErrors(thrownError { try embedder.embedAsync(image: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with live stream mode. Current Running Mode: Video")
        assertEqualErrors(thrownError { _ = try embedder.embed(image: image) },
                          "The vision task is not initialized with image mode. Current Running Mode: Video")
    }

    func testEmbedFailsWithCallingWrongApiInLiveStreamMode() throws {
        let o = try options()
        o.runningMode = .liveStream
        o.imageEmbedderLiveStreamDelegate = self
        let embedder = try ImageEmbedder(options: o)
        let image = try Self.google("burger.jpg")
        assertEqualErrors(thrownError { _ = try embedder.embed(image: image) },
                          "The vision task is not initialized with image mode. Current Running Mode: Live Stream")
        assertEqualErrors(thrownError { _ = try embedder.embed(videoFrame: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with video mode. Current Running Mode: Live Stream")
    }

    func testEmbedWithVideoModeSucceeds() throws {
        let o = try options()
        o.runningMode = .video
        let embedder = try ImageEmbedder(options: o)
        let image = try Self.google("burger.jpg")
        for i in 0..<3 {
            assertOneEmbedding(try embedder.embed(videoFrame: image, timestampInMilliseconds: i), quantized: false)
        }
    }

    func testEmbedWithOutOfOrderTimestampsAndLiveStreamModeFails() throws {
        let o = try options()
        o.runningMode = .liveStream
        o.imageEmbedderLiveStreamDelegate = self
        let embedder = try ImageEmbedder(options: o)
        liveStreamEmbedder = embedder
        let expectation = XCTestExpectation(description: "embedWiththOutOfOrderTimestampsAndLiveStream")
        expectation.expectedFulfillmentCount = 1
        liveStreamExpectation = expectation
        let image = try Self.google("burger.jpg")
        XCTAssertTrue(try embedder.embedAsync(image: image, timestampInMilliseconds: 1))
        assertEqualErrors(thrownError { try embedder.embedAsync(image: image, timestampInMilliseconds: 0) },
                          "INVALID_ARGUMENT: Input timestamp must be monotonically increasing.")
        wait(for: [expectation], timeout: 30)
        lock.lock(); defer { lock.unlock() }
        XCTAssertEqual(callbackErrors, [])
    }

    func testDetectWithLiveStreamModeSucceeds() throws {
        let iterationCount = 100
        let o = try options()
        o.runningMode = .liveStream
        o.imageEmbedderLiveStreamDelegate = self
        let embedder = try ImageEmbedder(options: o)
        liveStreamEmbedder = embedder
        let expectation = XCTestExpectation(description: "embedWithLiveStream")
        expectation.expectedFulfillmentCount = iterationCount + 1
        expectation.isInverted = true
        liveStreamExpectation = expectation
        let image = try Self.google("burger.jpg")
        for i in 0..<iterationCount {
            _ = try embedder.embedAsync(image: image, timestampInMilliseconds: i)
        }
        embedder.waitForPendingResults()
        wait(for: [expectation], timeout: 0.5)
        lock.lock(); defer { lock.unlock() }
        XCTAssertEqual(callbackErrors, [])
    }

    func imageEmbedder(_ imageEmbedder: ImageEmbedder, didFinishEmbedding result: ImageEmbedderResult?,
                       timestampInMilliseconds: Int, error: Error?) {
        let ok = error == nil && result?.embeddingResult.embeddings.count == 1
            && result?.embeddingResult.embeddings.first?.floatEmbedding?.count == Self.kExpectedEmbeddingLength
        lock.lock()
        if !ok { callbackErrors.append("frame \(timestampInMilliseconds): \(String(describing: error))") }
        lock.unlock()
        if imageEmbedder === liveStreamEmbedder { liveStreamExpectation?.fulfill() }
    }

    /// `MPPImageEmbedder`'s cosine similarity errors, with its texts.
    func testCosineSimilarityOfMismatchedEmbeddingsFails() throws {
        let float = Embedding(floatEmbedding: [1, 0, 0], quantizedEmbedding: nil, headIndex: 0, headName: nil)
        let shorter = Embedding(floatEmbedding: [1, 0], quantizedEmbedding: nil, headIndex: 0, headName: nil)
        let bytes = Embedding(floatEmbedding: nil, quantizedEmbedding: [1, 2, 3], headIndex: 0, headName: nil)
        assertEqualErrors(thrownError { _ = try ImageEmbedder.cosineSimilarity(embedding1: float, embedding2: shorter) },
                          "Cannot compute cosine similarity between embeddings of different sizes (3 vs 2")
        assertEqualErrors(thrownError { _ = try ImageEmbedder.cosineSimilarity(embedding1: float, embedding2: bytes) },
                          "Cannot compute cosine similarity between quantized and float embeddings.")
        XCTAssertEqual(try ImageEmbedder.cosineSimilarity(embedding1: bytes, embedding2: bytes).doubleValue, 1,
                       accuracy: 1e-15)
    }
}
