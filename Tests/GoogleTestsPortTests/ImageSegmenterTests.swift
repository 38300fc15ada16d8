import Foundation
import TasksVision
import TasksVisionImageIO
import XCTest

/// Port of mediapipe/tasks/ios/test/vision/image_segmenter/MPPImageSegmenterTests.mm, the cases its selfie
/// models allow. Google's selfie_segm_128_128_3.tflite (two channels, softmax) and selfie_segm_144_256_3.tflite,
/// mozart_square.jpg and their expected masks are Bazel downloads we do not have: the 144x256 case runs
/// selfie_segmentation_landscape.tflite (144x256, one channel), the 128x128 one selfie_segmenter.tflite, and the
/// expected masks are MediaPipe 1.2.3's on our photos (Tests/Fixtures/segmentation, 8-bit PNGs), compared with
/// the test's own soft IoU above 0.96. The deeplabv3.tflite cases (21 categories: cat.jpg's confidence mask,
/// segmentation_input_rotation0's category mask, the labels) have no selfie counterpart for their expected
/// values; their running-mode, delegate, timestamp and no-copy cases are model-independent and run here on
/// selfie_segmenter.tflite, with the selfie model's one mask and label.
final class MPPImageSegmenterTests: XCTestCase, ImageSegmenterLiveStreamDelegate {
    static let kSimilarityThreshold = 0.96
    static let kMagnificationFactor = 10
    static let kSelfieModel = "selfie_segmenter.tflite"
    static let kSelfie144x256Model = "selfie_segmentation_landscape.tflite"
    /// Our stand-in for cat.jpg (an image the model segments), with MediaPipe's mask of it.
    static let kImage = "pose_standing_1.png"
    static let kImageGolden = "selfie_segmenter_pose_standing_1"
    static let kSequenceFrame = "/testdata/sequences/pose_dance_1/0000.png"
    static let kLandscapeGolden = "selfie_segmentation_landscape_pose_dance_1_f00"
    static let kExpectedSelfieConfidenceMaskCount = 1

    var liveStreamExpectation: XCTestExpectation?
    var outOfOrderSegmenter: ImageSegmenter?
    var callbackErrors: [String] = []
    let lock = NSLock()

    func options(_ model: String = kSelfieModel) throws -> ImageSegmenterOptions {
        let o = ImageSegmenterOptions()
        o.baseOptions.modelAssetPath = try Port.model(model)
        return o
    }

    /// MediaPipe's mask (8-bit PNG) as the iOS test reads a golden image into an `MPPMask`.
    static func golden(_ name: String) throws -> (width: Int, height: Int, floats: [Float], bytes: [UInt8]) {
        let d = try ImageFile.read(Port.fixtures + "/segmentation/" + name + ".png")
        return (d.width, d.height, d.pixels.map { Float($0) / 255 }, d.pixels)
    }

    /// `softIOU` of the iOS test.
    static func softIOU(_ a: [Float], _ b: [Float]) -> Double {
        var inter = 0.0, aa = 0.0, bb = 0.0
        for (x, y) in zip(a, b) { inter += Double(x * y); aa += Double(x * x); bb += Double(y * y) }
        let union = aa + bb - inter
        return union > 0 ? inter / union : 0
    }

    /// `assertConfidenceMask:approximatelyEqualsExpectedConfidenceMaskImageWithFileInfo:`.
    func assertConfidenceMask(_ mask: Mask?, approximatelyEquals golden: String, file: StaticString = #filePath,
                              line: UInt = #line) throws {
        let expected = try Self.golden(golden)
        guard let mask else { return XCTFail("no confidence mask", file: file, line: line) }
        XCTAssertEqual(mask.width, expected.width, file: file, line: line)
        XCTAssertEqual(mask.height, expected.height, file: file, line: line)
        XCTAssertGreaterThan(Self.softIOU(mask.float32Data, expected.floats), Self.kSimilarityThreshold,
                             file: file, line: line)
    }

    /// `assertImageSegmenterResult:hasConfidenceMasksCount:...atIndex:shouldHaveCategoryMask:`.
    func assertResult(_ result: ImageSegmenterResult?, masks: Int = kExpectedSelfieConfidenceMaskCount,
                      approximatelyEquals golden: String = kImageGolden, shouldHaveCategoryMask: Bool = false,
                      file: StaticString = #filePath, line: UInt = #line) throws {
        guard let result else { return XCTFail("no result", file: file, line: line) }
        XCTAssertEqual(result.confidenceMasks?.count, masks, file: file, line: line)
        XCTAssertEqual(result.categoryMask != nil, shouldHaveCategoryMask, file: file, line: line)
        try assertConfidenceMask(result.confidenceMasks?.first, approximatelyEquals: golden, file: file, line: line)
    }

    // MARK: Image mode

    /// The deeplab case's check on the selfie model's category mask: pixels whose value (0 or 255 here, 0 or
    /// 1 times the magnification factor in Google's golden) agrees with MediaPipe's.
    func testSegmentWithCategoryMaskSucceeds() throws {
        let o = try options()
        o.shouldOutputConfidenceMasks = false
        o.shouldOutputCategoryMask = true
        let result = try ImageSegmenter(options: o).segment(image: try Port.image(Self.kImage))
        XCTAssertNil(result.confidenceMasks)
        let mask = try XCTUnwrap(result.categoryMask)
        let expected = try Self.golden(Self.kImageGolden + "_category")
        XCTAssertEqual([mask.width, mask.height], [expected.width, expected.height])
        let consistent = zip(mask.uint8Data, expected.bytes).filter { $0 == $1 }.count
        XCTAssertGreaterThan(Double(consistent) / Double(expected.bytes.count), Self.kSimilarityThreshold)
    }

    func testSegmentWithConfidenceMaskSucceeds() throws {
        let segmenter = try ImageSegmenter(options: try options())
        try assertResult(try segmenter.segment(image: try Port.image(Self.kImage)))
    }

    /// Google's 128x128 two-channel model is not here: the square selfie model stands in.
    func testSegmentWith128x128SegmentationSucceeds() throws {
        let segmenter = try ImageSegmenter(options: try options())
        try assertResult(try segmenter.segment(image: try Port.image(Self.kImage)))
    }

    func testSegmentWith144x256SegmentationSucceeds() throws {
        let segmenter = try ImageSegmenter(options: try options(Self.kSelfie144x256Model))
        let image = try MPImage(contentsOfFile: Port.shared + Self.kSequenceFrame)
        try assertResult(try segmenter.segment(image: image), approximatelyEquals: Self.kLandscapeGolden)
    }

    // MARK: Running mode tests

    func testCreateImageSegmenterFailsWithDelegateInNonLiveStreamMode() throws {
        for mode in [RunningMode.image, .video] {
            let o = try options()
            o.runningMode = mode
            o.imageSegmenterLiveStreamDelegate = self
            assertEqualErrors(thrownError { _ = try ImageSegmenter(options: o) },
                              "The vision task is in image or video mode. The delegate must not be set in the "
                              + "task's options.")
        }
    }

    func testCreateImageSegmenterFailsWithMissingDelegateInLiveStreamMode() throws {
        let o = try options()
        o.runningMode = .liveStream
        assertEqualErrors(thrownError { _ = try ImageSegmenter(options: o) },
                          "The vision task is in live stream mode. An object must be set as the delegate of the "
                          + "task in its options to ensure asynchronous delivery of results.")
    }

    func testSegmentFailsWithCallingWrongApiInImageMode() throws {
        let segmenter = try ImageSegmenter(options: try options())
        let image = try Port.image(Self.kImage)
        assertEqualErrors(thrownError { try segmenter.segmentAsync(image: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with live stream mode. Current Running Mode: Image")
        assertEqualErrors(thrownError { _ = try segmenter.segment(videoFrame: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with video mode. Current Running Mode: Image")
    }

    func testSegmentFailsWithCallingWrongApiInVideoMode() throws {
        let o = try options()
        o.runningMode = .video
        let segmenter = try ImageSegmenter(options: o)
        let image = try Port.image(Self.kImage)
        assertEqualErrors(thrownError { try segmenter.segmentAsync(image: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with live stream mode. Current Running Mode: Video")
        assertEqualErrors(thrownError { _ = try segmenter.segment(image: image) },
                          "The vision task is not initialized with image mode. Current Running Mode: Video")
    }

    func testSegmentFailsWithCallingWrongApiInLiveStreamMode() throws {
        let o = try options()
        o.runningMode = .liveStream
        o.imageSegmenterLiveStreamDelegate = self
        let segmenter = try ImageSegmenter(options: o)
        let image = try Port.image(Self.kImage)
        assertEqualErrors(thrownError { _ = try segmenter.segment(image: image) },
                          "The vision task is not initialized with image mode. Current Running Mode: Live Stream")
        assertEqualErrors(thrownError { _ = try segmenter.segment(videoFrame: image, timestampInMilliseconds: 0) },
                          "The vision task is not initialized with video mode. Current Running Mode: Live Stream")
    }

    func testSegmentWithVideoModeSucceeds() throws {
        let o = try options()
        o.runningMode = .video
        let segmenter = try ImageSegmenter(options: o)
        let image = try Port.image(Self.kImage)
        for i in 0..<3 {
            try assertResult(try segmenter.segment(videoFrame: image, timestampInMilliseconds: i))
        }
    }

    func testSegmentWithOutOfOrderTimestampsAndLiveStreamModeFails() throws {
        let o = try options()
        o.runningMode = .liveStream
        o.imageSegmenterLiveStreamDelegate = self
        let segmenter = try ImageSegmenter(options: o)
        outOfOrderSegmenter = segmenter
        let expectation = XCTestExpectation(description: "segmentWithOutOfOrderTimestampsAndLiveStream")
        expectation.expectedFulfillmentCount = 1
        liveStreamExpectation = expectation
        let image = try Port.image(Self.kImage)
        XCTAssertTrue(try segmenter.segmentAsync(image: image, timestampInMilliseconds: 1))
        assertEqualErrors(thrownError { try segmenter.segmentAsync(image: image, timestampInMilliseconds: 0) },
                          "INVALID_ARGUMENT: Input timestamp must be monotonically increasing.")
        wait(for: [expectation], timeout: 30)
        lock.lock(); defer { lock.unlock() }
        XCTAssertEqual(callbackErrors, [])
    }

    /// As the iOS test: at most `iterationCount` deliveries (frames in flight are dropped), each checked.
    func testSegmentWithLiveStreamModeSucceeds() throws {
        let iterationCount = 100
        let o = try options()
        o.runningMode = .liveStream
        o.imageSegmenterLiveStreamDelegate = self
        let segmenter = try ImageSegmenter(options: o)
        outOfOrderSegmenter = segmenter
        let expectation = XCTestExpectation(description: "segmentWithLiveStream")
        expectation.expectedFulfillmentCount = iterationCount + 1
        expectation.isInverted = true
        liveStreamExpectation = expectation
        let image = try Port.image(Self.kImage)
        for i in 0..<iterationCount {
            _ = try segmenter.segmentAsync(image: image, timestampInMilliseconds: i)
        }
        segmenter.waitForPendingResults()
        wait(for: [expectation], timeout: 0.5)
        lock.lock(); defer { lock.unlock() }
        XCTAssertEqual(callbackErrors, [])
    }

    func imageSegmenter(_ imageSegmenter: ImageSegmenter, didFinishSegmentation result: ImageSegmenterResult?,
                        timestampInMilliseconds: Int, error: Error?) {
        let golden = try? Self.golden(Self.kImageGolden)
        let mask = result?.confidenceMasks?.first
        let similar = mask.map { m in
            golden.map { Self.softIOU(m.float32Data, $0.floats) > Self.kSimilarityThreshold } ?? false
        } ?? false
        let ok = result?.confidenceMasks?.count == Self.kExpectedSelfieConfidenceMaskCount
            && result?.categoryMask == nil && similar
        lock.lock()
        if !ok { callbackErrors.append("frame \(timestampInMilliseconds): \(String(describing: error))") }
        lock.unlock()
        if imageSegmenter === outOfOrderSegmenter { liveStreamExpectation?.fulfill() }
    }

    // MARK: Mask no-copy tests (the completion-handler forms)

    func testSegmentWithNoCopyConfidenceMasksAndImageModeSucceeds() throws {
        let segmenter = try ImageSegmenter(options: try options())
        var called = false
        segmenter.segment(image: try Port.image(Self.kImage)) { result, error in
            called = true
            XCTAssertNil(error)
            do { try self.assertResult(result) } catch { XCTFail("\(error)") }
        }
        XCTAssertTrue(called)
    }

    func testSegmentWithNoCopyConfidenceMasksAndVideoModeSucceeds() throws {
        let o = try options()
        o.runningMode = .video
        let segmenter = try ImageSegmenter(options: o)
        var calls = 0
        for i in 0..<3 {
            segmenter.segment(videoFrame: try Port.image(Self.kImage), timestampInMilliseconds: i) { result, error in
                calls += 1
                XCTAssertNil(error)
                do { try self.assertResult(result) } catch { XCTFail("\(error)") }
            }
        }
        XCTAssertEqual(calls, 3)
    }

    /// deeplabv3's 21 labels in Google's test; the selfie models have one.
    func testGetLabelsSucceeds() throws {
        XCTAssertEqual(try ImageSegmenter(options: try options()).labels, ["selfie"])
    }
}
