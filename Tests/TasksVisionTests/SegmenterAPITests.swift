import Foundation
@testable import TasksVision
import TasksVisionImageIO
import XCTest

/// `ImageSegmenter` and ML Kit's `Segmenter` beyond the parity fixtures: orientations, regions, options,
/// errors, stream smoothing, and the mask calculators on hand-made tensors.
final class SegmenterAPITests: XCTestCase {
    static let model = "selfie_segmenter.tflite"

    func segmenter(category: Bool = true, mode: RunningMode = .image) throws -> ImageSegmenter {
        let o = ImageSegmenterOptions()
        o.baseOptions.modelAssetPath = try Paths.model(Self.model)
        o.shouldOutputCategoryMask = category
        o.runningMode = mode
        return try ImageSegmenter(options: o)
    }

    func photo(_ name: String = "pose_yoga_2.png") throws -> MPImage {
        try MPImage(contentsOfFile: Paths.images + "/" + name)
    }

    /// The stored pixels turned as `o` displays them the other way round: an image whose displayed
    /// pixels are the photo's.
    func stored(_ d: DecodedImage, for o: ImageOrientation) throws -> MPImage {
        let base = try MPImage(pixels: d.pixels, width: d.width, height: d.height, pixelFormat: .rgb8)
        let (sw, sh) = o.swapsDimensions ? (d.height, d.width) : (d.width, d.height)
        var pixels = [UInt8](repeating: 0, count: sw * sh * 3)
        for sy in 0..<sh {
            for sx in 0..<sw {
                let p = o.displayPoint(fromStored: (x: (Float(sx) + 0.5) / Float(sw), y: (Float(sy) + 0.5) / Float(sh)))
                let dx = Int(p.x * Float(d.width)), dy = Int(p.y * Float(d.height))
                for c in 0..<3 { pixels[(sy * sw + sx) * 3 + c] = d.pixels[(dy * d.width + dx) * 3 + c] }
            }
        }
        _ = base
        return try MPImage(pixels: pixels, width: sw, height: sh, pixelFormat: .rgb8, orientation: o)
    }

    /// Every orientation gives the upright photo's masks at the displayed size, up to the model's response to
    /// its input sampled at slightly other places (the turned crop's matrix rounds differently; MediaPipe's
    /// masks of turned images differ from the upright ones alike: the 180-degree fixtures equal ours bit for bit).
    func testOrientationsGiveTheUprightMasks() throws {
        let s = try segmenter()
        let d = try ImageFile.read(Paths.images + "/pose_yoga_2.png")
        let upright = try s.segment(image: try photo())
        let reference = try XCTUnwrap(upright.confidenceMasks?.first)
        for o in ImageOrientation.allCases where o != .up {
            let r = try s.segment(image: try stored(d, for: o))
            let m = try XCTUnwrap(r.confidenceMasks?.first)
            XCTAssertEqual([m.width, m.height], [d.width, d.height], "\(o)")
            let diff = zip(m.float32Data, reference.float32Data).map { abs($0 - $1) }
            let mean = diff.reduce(0, +) / Float(diff.count)
            XCTAssertLessThan(mean, 0.02, "\(o)")
            let cat = try XCTUnwrap(r.categoryMask?.uint8Data), ref = try XCTUnwrap(upright.categoryMask?.uint8Data)
            let differing = zip(cat, ref).filter { $0 != $1 }.count
            XCTAssertLessThan(differing, cat.count / 50, "\(o)")
        }
    }

    /// A region runs on its crop alone: inside, the crop's own masks; outside, confidence 0 and category 255.
    func testRegionOfInterestIsTheCropsMasks() throws {
        let s = try segmenter()
        let image = try photo()
        let roi = CGRect(x: 0.25, y: 0, width: 0.5, height: 1)
        let r = try s.segment(image: image, imageProcessingOptions: ImageProcessingOptions(regionOfInterest: roi))
        let region = try ImageRegion(roi, in: image)
        let crop = try s.segment(image: try region.crop(image))
        let whole = try XCTUnwrap(r.confidenceMasks?.first), part = try XCTUnwrap(crop.confidenceMasks?.first)
        let cat = try XCTUnwrap(r.categoryMask), partCat = try XCTUnwrap(crop.categoryMask)
        XCTAssertEqual([whole.width, whole.height], [image.width, image.height])
        for y in [0, image.height / 2, image.height - 1] {
            for x in 0..<image.width {
                let inside = x >= region.displayX && x < region.displayX + region.displayWidth
                XCTAssertEqual(whole.value(x: x, y: y), inside ? part.value(x: x - region.displayX, y: y) : 0)
                XCTAssertEqual(cat.uint8Data[y * image.width + x],
                               inside ? partCat.uint8Data[y * part.width + x - region.displayX] : 255)
            }
        }
    }

    func testOptionsAndLabels() throws {
        let o = ImageSegmenterOptions()
        o.baseOptions.modelAssetPath = try Paths.model(Self.model)
        o.outputConfidenceMasks = false
        o.outputCategoryMask = false
        XCTAssertThrowsError(try ImageSegmenter(options: o)) { error in
            XCTAssertEqual((error as NSError).localizedDescription, MediaPipeErrorText.noSegmenterOutputMediaPipe)
        }
        o.outputCategoryMask = true
        let s = try ImageSegmenter(options: o)
        XCTAssertEqual(s.labels, ["selfie"])
        let r = try s.segment(image: try photo())
        XCTAssertNil(r.confidenceMasks)
        XCTAssertEqual(r.categoryMask?.dataType, .uInt8)
        XCTAssertEqual(r.qualityScores, [1])
        // The defaults: confidence masks only.
        let d = try ImageSegmenter(modelPath: try Paths.model(Self.model)).segment(image: try photo())
        XCTAssertEqual(d.confidenceMasks?.count, 1)
        XCTAssertNil(d.categoryMask)
    }

    /// A model whose output is not an image-like tensor is refused when the segmenter is made.
    func testNonSegmentationModelIsRefused() throws {
        let o = ImageSegmenterOptions()
        o.baseOptions.modelAssetPath = try Paths.model("blaze_face_short_range.tflite")
        XCTAssertThrowsError(try ImageSegmenter(options: o)) { error in
            XCTAssertTrue("\(error)".contains("not an image segmenter"), "\(error)")
        }
    }

    func testLiveStreamDeliversEveryAcceptedFrame() throws {
        let o = ImageSegmenterOptions()
        o.baseOptions.modelAssetPath = try Paths.model(Self.model)
        o.runningMode = .liveStream
        let lock = NSLock()
        var timestamps: [Int] = []
        o.resultCallback = { result, t in
            guard case .success(let r) = result, r.confidenceMasks?.count == 1 else { return }
            lock.lock(); timestamps.append(t); lock.unlock()
        }
        let s = try ImageSegmenter(options: o)
        var accepted: [Int] = []
        for t in [0, 33, 66] where try s.segmentAsync(image: try photo(), timestampInMilliseconds: t) {
            accepted.append(t)
        }
        s.waitForPendingResults()
        lock.lock(); defer { lock.unlock() }
        XCTAssertEqual(timestamps, accepted)
        XCTAssertFalse(accepted.isEmpty)
    }

    /// ML Kit's segmenter: single-image masks are the image segmenter's confidence masks; the raw size is
    /// the model's; stream mode blends uncertain pixels with the previous frame's.
    func testMLKitSegmenter() throws {
        let image = try photo()
        let reference = try XCTUnwrap(try segmenter(category: false).segment(image: image).confidenceMasks?.first)
        let options = SelfieSegmenterOptions()
        options.modelAssetPath = try Paths.model(Self.model)
        options.segmenterMode = .singleImage
        let single = Segmenter.segmenter(options: options)
        let mask = try single.results(in: VisionImage(image: image))
        XCTAssertEqual([mask.width, mask.height], [image.width, image.height])
        XCTAssertEqual(mask.confidences, reference.float32Data)
        XCTAssertEqual(try single.results(in: VisionImage(image: image)), mask)

        options.shouldEnableRawSizeMask = true
        let raw = try Segmenter.segmenter(options: options).results(in: VisionImage(image: image))
        XCTAssertEqual([raw.width, raw.height], [256, 256])

        options.shouldEnableRawSizeMask = false
        options.segmenterMode = .stream
        let stream = Segmenter.segmenter(options: options)
        let first = try stream.results(in: VisionImage(image: image))
        XCTAssertEqual(first, mask, "nothing to blend with on the first frame")
        let other = try photo("pose_yoga_1.png")
        let unsmoothed = try single.results(in: VisionImage(image: other))
        let second = try stream.results(in: VisionImage(image: other))
        XCTAssertNotEqual(second.confidences, unsmoothed.confidences)
        let mean = zip(second.confidences, unsmoothed.confidences).map { abs($0 - $1) }.reduce(0, +)
            / Float(second.confidences.count)
        XCTAssertLessThan(mean, 0.1)

        let missing = SelfieSegmenterOptions()
        missing.modelAssetPath = "no_such_model.tflite"
        XCTAssertThrowsError(try Segmenter.segmenter(options: missing).results(in: VisionImage(image: image)))
    }

    // The calculators on hand-made tensors.

    /// cv::resize's two regimes: half-pixel bilinear (edge columns weight 0, edge rows clamped), and the
    /// mean of 2x2 blocks at exactly half the size.
    func testMaskResize() {
        let src: [Float] = [0, 1, 2, 3]   // 2 x 2
        let up = MaskResize.linear(src, width: 2, height: 2, outputWidth: 4, outputHeight: 4)
        // Columns: positions -0.25, 0.25, 0.75, 1.25 -> 0, 0.25, 0.75, 1 of the way.
        XCTAssertEqual(Array(up[0..<4]), [0, 0.25, 0.75, 1])
        XCTAssertEqual(Array(up[12..<16]), [2, 2.25, 2.75, 3])
        XCTAssertEqual(up[4], 0.5)
        let four: [Float] = (0..<16).map(Float.init)
        XCTAssertEqual(MaskResize.linear(four, width: 4, height: 4, outputWidth: 2, outputHeight: 2),
                       [2.5, 4.5, 10.5, 12.5])
    }

    /// The category mask samples corner-aligned and thresholds after interpolating: a tensor that is 0.4
    /// and 0.7 gives the person where the interpolated value passes 0.5, not where the resized one does.
    func testCategoryMaskSamplesCornerAligned() {
        let t: [Float] = [0.4, 0.7]   // 1 x 2
        let shape = SegmenterTensorsToMasks.Shape(dimensions: [1, 1, 2, 1])!
        let cat = t.withUnsafeBufferPointer {
            SegmenterTensorsToMasks.categoryMask($0, shape: shape, activation: .none, outputWidth: 4, outputHeight: 1)
        }
        // Positions 0, 1/3, 2/3, 1: values 0.4, 0.5, 0.6, 0.7.
        XCTAssertEqual(cat, [255, 255, 0, 0])
        let conf = t.withUnsafeBufferPointer {
            SegmenterTensorsToMasks.confidenceMasks($0, shape: shape, activation: .none, outputWidth: 4,
                                                    outputHeight: 1)
        }
        XCTAssertEqual(conf.first?.map { $0 > 0.5 }, [false, false, true, true])
        // A softmax model's category mask is the index of the larger channel.
        let two: [Float] = [1, 0, 0, 1]
        let cat2 = two.withUnsafeBufferPointer {
            SegmenterTensorsToMasks.categoryMask($0, shape: SegmenterTensorsToMasks.Shape(dimensions: [1, 1, 2, 2])!,
                                                 activation: .softmax, outputWidth: 2, outputHeight: 1)
        }
        XCTAssertEqual(cat2, [0, 1])
    }

    func testSegmenterMetadataActivation() {
        // ImageSegmenterOptions { activation: SIGMOID }, as flatc writes it.
        let sigmoid: [UInt8] = [12, 0, 0, 0, 8, 0, 8, 0, 7, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 1]
        XCTAssertEqual(SegmenterTensorsToMasks.activation(segmenterMetadata: sigmoid), .sigmoid)
        XCTAssertNil(SegmenterTensorsToMasks.activation(segmenterMetadata: [1, 2]))
    }

    func testMaskConversions() throws {
        let bytes = try XCTUnwrap(Mask(width: 2, height: 1, uint8Data: [0, 255]))
        XCTAssertEqual(bytes.float32Data, [0, 1])
        let floats = try XCTUnwrap(Mask(width: 2, height: 1, float32Data: [0.5, 1]))
        XCTAssertEqual(floats.uint8Data, [127, 255])
        XCTAssertNil(Mask(width: 3, height: 1, uint8Data: [0]))
    }
}
