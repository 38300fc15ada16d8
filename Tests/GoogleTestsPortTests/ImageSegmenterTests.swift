import Foundation
import TasksVision
import TasksVisionImageIO
import XCTest

/// Port of mediapipe/tasks/ios/test/vision/image_segmenter/MPPImageSegmenterTests.mm. Its deeplabv3.tflite cases run
/// on the same network, the official deeplab_v3.tflite (21 Pascal VOC classes); Google's cat.jpg, its cat_mask.jpg
/// and segmentation_input_rotation0.jpg with its golden are Bazel downloads we do not have, so the photo is
/// negative_animals_1.png (a dog, class 12, where Google's cat is class 8) and the goldens are MediaPipe 1.2.3's
/// masks of it (Tests/Fixtures/deeplab: the dog's confidence as an 8-bit PNG, the category mask), compared as the
/// test compares them (soft IoU, share of consistent pixels, above 0.96). Google's selfie_segm_128_128_3 (two
/// channels, softmax) and selfie_segm_144_256_3 models and mozart_square.jpg are not here either: the 128x128 case
/// runs selfie_segmenter.tflite, the 144x256 one selfie_segmentation_landscape.tflite, against MediaPipe's masks
/// of our photos (Tests/Fixtures/segmentation).
final class MPPImageSegmenterTests: XCTestCase, ImageSegmenterLiveStreamDelegate {
    static let kSimilarityThreshold = 0.96
    static let kMagnificationFactor = 10
    static let kImageSegmenterModel = "deeplab_v3.tflite"
    static let kSelfieModel = "selfie_segmenter.tflite"
    static let kSelfie144x256Model = "selfie_segmentation_landscape.tflite"
    /// Our stand-in for cat.jpg and segmentation_input_rotation0.jpg, with MediaPipe's confidence of its class
    /// (the dog, where Google's is the cat) and its category mask.
    static let kImage = "negative_animals_1.png"
    static let kImageGolden = "deeplab/negative_animals_1_dog"
    static let kCategoryGolden = "deeplab/negative_animals_1_category"
    static let kCatClass = 12
    static let kExpectedDeeplabV3ConfidenceMaskCount = 21
    /// The selfie cases' photo and goldens.
    static let kSelfieImage = "pose_standing_1.png"
    static let kSelfieGolden = "segmentation/selfie_segmenter_pose_standing_1"
    static let kSequenceFrame = "/testdata/sequences/pose_dance_1/0000.png"
    static let kLandscapeGolden = "segmentation/selfie_segmentation_landscape_pose_dance_1_f00"

    var liveStreamExpectation: XCTestExpectation?
    var outOfOrderSegmenter: ImageSegmenter?
    var callbackErrors: [String] = []
    let lock = NSLock()

    func options(_ model: String = kImageSegmenterModel) throws -> ImageSegmenterOptions {
        let o = ImageSegmenterOptions()
        o.baseOptions.modelAssetPath = try Port.model(model)
        return o
    }

    /// MediaPipe's mask (8-bit PNG) as the iOS test reads a golden image into an `MPPMask`.
    static func golden(_ name: String) throws -> (width: Int, height: Int, floats: [Float], bytes: [UInt8]) {
        let d = try ImageFile.read(Port.fixtures + "/" + name + ".png")
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
    func assertResult(_ result: ImageSegmenterResult?, masks: Int = kExpectedDeeplabV3ConfidenceMaskCount,
                      approximatelyEquals golden: String = kImageGolden, atIndex index: Int = kCatClass,
                      shouldHaveCategoryMask: Bool = false, file: StaticString = #filePath, line: UInt = #line) throws {
        guard let result else { return XCTFail("no result", file: file, line: line) }
        XCTAssertEqual(result.confidenceMasks?.count, masks, file: file, line: line)
        XCTAssertEqual(result.categoryMask != nil, shouldHaveCategoryMask, file: file, line: line)
        XCTAssertLessThan(index, result.confidenceMasks?.count ?? 0, file: file, line: line)
        guard index < result.confidenceMasks?.count ?? 0 else { return }
        try assertConfidenceMask(result.confidenceMasks?[index], approximatelyEquals: golden, file: file, line: line)
    }

    // MARK: Image mode

    /// `assertCategoryMask:approximatelyEqualsExpectedCategoryMaskImageWithFileInfo:`: the share of pixels whose
    /// class agrees with the golden (Google's golden holds the class times 10, MediaPipe's here the class).
    func testSegmentWithCategoryMaskSucceeds() throws {
        let o = try options()
        o.shouldOutputConfidenceMasks = false
        o.shouldOutputCategoryMask = true
        let result = try ImageSegmenter(options: o).segment(image: try Port.image(Self.kImage))
        XCTAssertNil(result.confidenceMasks)
        let mask = try XCTUnwrap(result.categoryMask)
        let expected = try Self.golden(Self.kCategoryGolden)
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
        let segmenter = try ImageSegmenter(options: try options(Self.kSelfieModel))
        try assertResult(try segmenter.segment(image: try Port.image(Self.kSelfieImage)), masks: 1,
                         approximatelyEquals: Self.kSelfieGolden, atIndex: 0)
    }

    func testSegmentWith144x256SegmentationSucceeds() throws {
        let segmenter = try ImageSegmenter(options: try options(Self.kSelfie144x256Model))
        let image = try MPImage(contentsOfFile: Port.shared + Self.kSequenceFrame)
        try assertResult(try segmenter.segment(image: image), masks: 1, approximatelyEquals: Self.kLandscapeGolden,
                         atIndex: 0)
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
        let masks = result?.confidenceMasks ?? []
        let mask = masks.count > Self.kCatClass ? masks[Self.kCatClass] : nil
        let similar = mask.map { m in
            golden.map { Self.softIOU(m.float32Data, $0.floats) > Self.kSimilarityThreshold } ?? false
        } ?? false
        let ok = masks.count == Self.kExpectedDeeplabV3ConfidenceMaskCount
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

    func testGetLabelsSucceeds() throws {
        let expectedLabels = [
            "background", "aeroplane", "bicycle", "bird", "boat", "bottle", "bus",
            "car", "cat", "chair", "cow", "dining table", "dog", "horse",
            "motorbike", "person", "potted plant", "sheep", "sofa", "train", "tv",
        ]
        XCTAssertEqual(try ImageSegmenter(options: try options()).labels, expectedLabels)
        // The selfie models have one.
        XCTAssertEqual(try ImageSegmenter(options: try options(Self.kSelfieModel)).labels, ["selfie"])
    }
}
