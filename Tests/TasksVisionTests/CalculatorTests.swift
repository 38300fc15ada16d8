import Foundation
@testable import TasksVision
import XCTest

/// Unit tests of each MediaPipe calculator reimplemented in TasksVision.
final class SsdAnchorsTests: XCTestCase {
    func testAnchorCountsAndEnds() {
        let face = SsdAnchors.generate(.faceShortRange)
        XCTAssertEqual(face.count, 896)
        XCTAssertEqual(face.first, Anchor(xCenter: 0.5 / 16, yCenter: 0.5 / 16, width: 1, height: 1))
        XCTAssertEqual(face[1], face[0], "two anchors per cell on the stride-8 layer")
        XCTAssertEqual(face.last, Anchor(xCenter: 7.5 / 8, yCenter: 7.5 / 8, width: 1, height: 1))
        // 16x16 cells with 2 anchors, then 8x8 cells with 6 anchors (three stride-16 layers merged).
        XCTAssertEqual(face[512], Anchor(xCenter: 0.5 / 8, yCenter: 0.5 / 8, width: 1, height: 1))
        XCTAssertEqual(face[517], face[512])
        XCTAssertNotEqual(face[518], face[512])

        let full = SsdAnchors.generate(.faceFullRange)
        XCTAssertEqual(full.count, 2304)
        XCTAssertEqual(full[1].xCenter, 1.5 / 48, accuracy: 1e-7)
        XCTAssertEqual(full.last?.xCenter ?? 0, 47.5 / 48, accuracy: 1e-7)

        XCTAssertEqual(SsdAnchors.generate(.palm).count, 2016)
        let pose = SsdAnchors.generate(.pose)
        XCTAssertEqual(pose.count, 2254)
        XCTAssertEqual(pose.last?.xCenter ?? 0, 6.5 / 7, accuracy: 1e-7)
    }

    func testAnchorSizesWhenNotFixed() {
        var o = SsdAnchorOptions.faceShortRange
        o.fixedAnchorSize = false
        let a = SsdAnchors.generate(o)
        // First layer: scale 0.1484375 (aspect 1) and the interpolated sqrt(s0 * s1).
        XCTAssertEqual(a[0].width, 0.1484375, accuracy: 1e-6)
        let s1: Float = 0.1484375 + (0.75 - 0.1484375) / 3
        XCTAssertEqual(a[1].width, (0.1484375 * s1).squareRoot(), accuracy: 1e-6)
    }
}

final class DetectionMathTests: XCTestCase {
    func testDecodeBoxesAndKeypoints() {
        let anchors = [Anchor(xCenter: 0.5, yCenter: 0.25, width: 1, height: 1),
                       Anchor(xCenter: 0.1, yCenter: 0.1, width: 1, height: 1)]
        var raw = [Float](repeating: 0, count: 2 * 16)
        // Box 0: center offset (12.8, -12.8) px of 128, size 64x32, first keypoint at +(6.4, 0).
        raw[0] = 12.8; raw[1] = -12.8; raw[2] = 64; raw[3] = 32; raw[4] = 6.4; raw[5] = 0
        let scores: [Float] = [2.0, -3.0]
        let out = raw.withUnsafeBufferPointer { r in scores.withUnsafeBufferPointer { s in
            TensorsToDetections.decode(boxes: r, scores: s, anchors: anchors, options: .faceShortRange(minScore: 0.5))
        } }
        XCTAssertEqual(out.count, 1, "the second box scores sigmoid(-3) < 0.5")
        let d = out[0]
        XCTAssertEqual(d.score, 1 / (1 + expf(-2)), accuracy: 1e-7)
        XCTAssertEqual(d.box.xmin, 0.6 - 0.25, accuracy: 1e-6)
        XCTAssertEqual(d.box.ymin, 0.15 - 0.125, accuracy: 1e-6)
        XCTAssertEqual(d.box.width, 0.5, accuracy: 1e-6)
        XCTAssertEqual(d.box.height, 0.25, accuracy: 1e-6)
        XCTAssertEqual(d.keypoints[0].x, 0.55, accuracy: 1e-6)
        XCTAssertEqual(d.keypoints[0].y, 0.25, accuracy: 1e-6)
    }

    func testScoreClippingAndEqualThresholdIsKept() {
        let anchors = [Anchor(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1)]
        let raw = [Float](repeating: 0, count: 16)
        for (logit, expected) in [(Float(1000), Float(1 / (1 + expf(-100)))), (0, 0.5)] {
            let out = raw.withUnsafeBufferPointer { r in [logit].withUnsafeBufferPointer { s in
                TensorsToDetections.decode(boxes: r, scores: s, anchors: anchors,
                                           options: .faceShortRange(minScore: 0.5))
            } }
            XCTAssertEqual(out.first?.score, expected, "a score equal to the threshold is kept")
        }
    }

    func detection(_ x: Float, _ y: Float, _ size: Float, score: Float) -> RawDetection {
        RawDetection(score: score, classId: 0, box: RelativeBox(xmin: x, ymin: y, width: size, height: size),
                     keypoints: [SIMD2(x, y)])
    }

    func testWeightedNMSKeepsTopScoreAndAveragesGroup() {
        let a = detection(0.10, 0.10, 0.2, score: 0.9)
        let b = detection(0.12, 0.10, 0.2, score: 0.6)  // overlaps a
        let c = detection(0.60, 0.60, 0.2, score: 0.7)  // separate
        let out = WeightedNonMaxSuppression.suppress([b, c, a], threshold: 0.3)
        XCTAssertEqual(out.count, 2)
        XCTAssertEqual(out[0].score, 0.9, "the kept score is the top one's")
        XCTAssertEqual(out[0].box.xmin, (0.10 * 0.9 + 0.12 * 0.6) / 1.5, accuracy: 1e-6)
        XCTAssertEqual(out[0].box.width, ((0.30 * 0.9 + 0.32 * 0.6) / 1.5) - out[0].box.xmin, accuracy: 1e-6)
        XCTAssertEqual(out[0].keypoints[0].x, (0.10 * 0.9 + 0.12 * 0.6) / 1.5, accuracy: 1e-6)
        XCTAssertEqual(out[1].score, c.score)
        XCTAssertEqual(out[1].box.xmin, c.box.xmin, accuracy: 1e-6)
        XCTAssertEqual(out[1].box.width, c.box.width, accuracy: 1e-6)
        XCTAssertEqual(WeightedNonMaxSuppression.suppress([a, b], threshold: 0.9).count, 2,
                       "IoU below the threshold keeps both")
    }

    func testIoU() {
        let a = RelativeBox(xmin: 0, ymin: 0, width: 2, height: 2),
            b = RelativeBox(xmin: 1, ymin: 1, width: 2, height: 2)
        XCTAssertEqual(WeightedNonMaxSuppression.iou(a, b), 1.0 / 7.0, accuracy: 1e-7)
        XCTAssertEqual(WeightedNonMaxSuppression.iou(a, RelativeBox(xmin: 5, ymin: 5, width: 1, height: 1)), 0)
    }

    func testLetterboxPaddingAndProjection() {
        // A 200x100 image into a square tensor: the ROI grows to 200x200, 25% padding top and bottom.
        var roi = RotatedRect(centerX: 100, centerY: 50, width: 200, height: 100, rotation: 0)
        let pad = ImageToTensor.padRoi(&roi, tensorWidth: 128, tensorHeight: 128)
        XCTAssertEqual(pad.top, 0.25); XCTAssertEqual(pad.bottom, 0.25); XCTAssertEqual(pad.left, 0)
        XCTAssertEqual(roi.height, 200)
        let m = ImageToTensor.transformMatrix(roi, imageWidth: 200, imageHeight: 100, flipHorizontally: false)
        // Tensor point (0.5, 0.25) is the image's top centre; (0.5, 0.75) its bottom centre.
        let d = RawDetection(score: 1, classId: 0, box: RelativeBox(xmin: 0.25, ymin: 0.25, width: 0.5, height: 0.5),
                             keypoints: [SIMD2(0.5, 0.25), SIMD2(0.5, 0.75)])
        let p = DetectionProjection.project(d, matrix: m)
        XCTAssertEqual(p.keypoints[0].x, 0.5, accuracy: 1e-6); XCTAssertEqual(p.keypoints[0].y, 0, accuracy: 1e-6)
        XCTAssertEqual(p.keypoints[1].y, 1, accuracy: 1e-6)
        XCTAssertEqual(p.box.xmin, 0.25, accuracy: 1e-6); XCTAssertEqual(p.box.ymin, 0, accuracy: 1e-6)
        XCTAssertEqual(p.box.height, 1, accuracy: 1e-6)
    }

    func testRotatedProjectionMatchesOrientationMapping() throws {
        // For every orientation, tensor coordinates (the displayed image) map through the
        // crop matrix to stored coordinates that the orientation maps back to the same point.
        let pixels = [UInt8](repeating: 0, count: 40 * 30 * 3)
        for o in ImageOrientation.allCases {
            let image = try MPImage(pixels: pixels, width: 40, height: 30, pixelFormat: .rgb8, orientation: o)
            let roi = ImageToTensor.fullImageRoi(image)
            let m = ImageToTensor.transformMatrix(roi, imageWidth: 40, imageHeight: 30, flipHorizontally: o.isMirrored)
            for (u, v) in [(Float(0.1), Float(0.2)), (0.8, 0.3), (0.5, 0.9)] {
                let sx = u * m[0] + v * m[1] + m[3], sy = u * m[4] + v * m[5] + m[7]
                let back = o.displayPoint(fromStored: (x: sx, y: sy))
                XCTAssertEqual(back.x, u, accuracy: 1e-5, "\(o)")
                XCTAssertEqual(back.y, v, accuracy: 1e-5, "\(o)")
                let stored = o.storedPoint(fromDisplay: (x: u, y: v))
                XCTAssertEqual(stored.x, sx, accuracy: 1e-5, "\(o)")
                XCTAssertEqual(stored.y, sy, accuracy: 1e-5, "\(o)")
            }
        }
    }

    func testWarpRotatesPixelsAsTheOrientationSays() throws {
        // A 4x2 image with distinct pixels, cropped at its own displayed size: each output pixel
        // must come from the stored pixel the orientation maps it to (within the half-pixel
        // shift OpenCV's corner mapping gives rotated crops, hence the interior check).
        var pixels = [UInt8]()
        for i in 0..<8 { pixels += [UInt8(i * 30), UInt8(255 - i * 30), 7] }
        for o in [ImageOrientation.up, .upMirrored] {
            let image = try MPImage(pixels: pixels, width: 4, height: 2, pixelFormat: .rgb8, orientation: o)
            let out = ImageToTensor.warp(image, roi: ImageToTensor.fullImageRoi(image), flipHorizontally: o.isMirrored,
                                         width: 4, height: 2, border: .replicate)
            for y in 0..<2 { for x in 0..<3 {
                let s = o.storedPoint(fromDisplay: (x: (Float(x) + 0.5) / 4, y: (Float(y) + 0.5) / 2))
                let sx = Int(s.x * 4), sy = Int(s.y * 2)
                if o == .up { XCTAssertEqual(out[(y * 4 + x) * 3], pixels[(sy * 4 + sx) * 3], "\(o) \(x),\(y)") }
            } }
            if o == .upMirrored {
                XCTAssertEqual(out[0], pixels[3 * 3], "mirrored: the first column is the last stored one")
            }
        }
    }

    /// The crop geometry MediaPipe builds with OpenCV, bit for bit against OpenCV 5.1
    /// (tools/make_warp_fixtures.py): `boxPoints` corners, the `getPerspectiveTransform`
    /// matrix and its inverse. Sample positions that fall exactly between two 1/32-pixel
    /// steps round by the last bit of these, which moved rotated hand results by 0.05.
    func testCropGeometryMatchesOpenCVBitForBit() throws {
        struct Case: Decodable {
            let roi: [UInt32]; let size: Int; let flip: Bool; let box: [UInt32]; let matrix: [UInt64];
            let inverse: [UInt64]
        }
        struct Doc: Decodable { let cases: [Case] }
        let doc = try JSONDecoder().decode(Doc.self,
                                           from: Data(contentsOf: URL(fileURLWithPath: Paths.fixtures
                                                                      + "/preprocessing/opencv_roi_geometry.json")))
        XCTAssertEqual(doc.cases.count, 64)
        for (i, c) in doc.cases.enumerated() {
            let v = c.roi.map { Float(bitPattern: $0) }
            let roi = RotatedRect(centerX: v[0], centerY: v[1], width: v[2], height: v[3], rotation: v[4])
            let box = PerspectiveTransform.boxPoints(roi)
            XCTAssertEqual(box.flatMap { [$0.0.bitPattern, $0.1.bitPattern] }, c.box, "case \(i): corners")
            let s = Float(c.size), z: Float = 0
            let dst: [(Float, Float)] = c.flip ? [(s, s), (s, z), (z, z), (z, s)] : [(z, s), (z, z), (s, z), (s, s)]
            let m = try XCTUnwrap(PerspectiveTransform.perspective(from: box, to: dst), "case \(i)")
            XCTAssertEqual(m.map(\.bitPattern), c.matrix, "case \(i): perspective matrix")
            let inverse = try XCTUnwrap(PerspectiveTransform.invert3x3(m), "case \(i)")
            XCTAssertEqual(inverse.map(\.bitPattern), c.inverse, "case \(i): inverse")
        }
    }

    func testPixelBoxTruncatesAndBounds() {
        let r = DetectionTransformation.pixelBox(RelativeBox(xmin: -0.1, ymin: 0.5, width: 0.55, height: 2), width: 100,
                                                 height: 10)
        XCTAssertEqual(r, CGRect(x: 0, y: 5, width: 55, height: 10))
        XCTAssertEqual(DetectionTransformation.pixelBox(RelativeBox(xmin: .nan, ymin: 0, width: 0, height: 0),
                                                        width: 10, height: 10).minX, 0)
    }

    func testValueRangeAndConversion() {
        var out = [Float](repeating: 0, count: 3)
        out.withUnsafeMutableBufferPointer {
            ImageToTensor.convert([0, 255, 51], range: .init(min: -1, max: 1), into: $0)
        }
        XCTAssertEqual(out[0], -1); XCTAssertEqual(out[1], 1, accuracy: 1e-6);
        XCTAssertEqual(out[2], 51 * (2 / 255) - 1, accuracy: 1e-7)
    }
}

final class LetterboxRemovalTests: XCTestCase {
    func testRemovesPadding() {
        let pad = LetterboxPadding(left: 0, top: 0.25, right: 0, bottom: 0.25)
        XCTAssertEqual(LetterboxRemoval.point(SIMD2(0.5, 0.25), pad), SIMD2(0.5, 0))
        XCTAssertEqual(LetterboxRemoval.point(SIMD2(0.2, 0.75), pad), SIMD2(0.2, 1))
        let d = RawDetection(score: 1, classId: 0, box: RelativeBox(xmin: 0.1, ymin: 0.5, width: 0.2, height: 0.25),
                             keypoints: [SIMD2(0.1, 0.5)])
        let r = LetterboxRemoval.detection(d, pad)
        XCTAssertEqual(r.box, RelativeBox(xmin: 0.1, ymin: 0.5, width: 0.2, height: 0.5))
        XCTAssertEqual(r.keypoints[0], SIMD2(0.1, 0.5))
    }

    /// MediaPipe divides by `1 - (left + right)`. For a 620x1080 frame letterboxed into a square
    /// tensor the padding is 0.21296296 on each side, where `(1 - left) - right` is one float lower.
    func testDividesByOneMinusTheSumOfThePadding() {
        let roiAspect: Float = 1080 / 620
        let p = (1 - 1 / roiAspect) / 2
        let pad = LetterboxPadding(left: p, top: 0, right: p, bottom: 0)
        XCTAssertNotEqual(1 - (p + p), (1 - p) - p, "the two orders differ for this padding")
        XCTAssertEqual(LetterboxRemoval.point(SIMD2(0.6, 0.5), pad).x, (0.6 - p) / (1 - (p + p)))
        XCTAssertEqual(LetterboxRemoval.detection(RawDetection(score: 1, classId: 0,
                                                               box: RelativeBox(xmin: 0.6, ymin: 0, width: 0.3,
                                                                                height: 1),
                                                               keypoints: []), pad).box.width, 0.3 / (1 - (p + p)))
    }
}

/// The calculators' float functions give the float nearest the exact value, as LLVM's libc in
/// MediaPipe's build does (glibc's float versions miss it on 0.06% of exp, 1.3% of cos and sin
/// and 15% of atan2 arguments in [-20, 20]).
final class FloatMathTests: XCTestCase {
    /// `r` is the float nearest `exact` (a Double within an ulp of Double of the true value).
    func assertNearest(_ r: Float, _ exact: Double, _ what: String) {
        let e = abs(Double(r) - exact)
        XCTAssertLessThanOrEqual(e, abs(Double(r.nextUp) - exact), what)
        XCTAssertLessThanOrEqual(e, abs(Double(r.nextDown) - exact), what)
    }

    func testNearestFloat() {
        var libraryMisses = 0
        for i in 0..<20_000 {
            let x = Float(i - 10_000) * 0.002_017
            let y = Float((i * 7919) % 20_000 - 10_000) * 0.000_513
            assertNearest(FloatMath.exp(x), Foundation.exp(Double(x)), "exp(\(x))")
            assertNearest(FloatMath.cos(x), Foundation.cos(Double(x)), "cos(\(x))")
            assertNearest(FloatMath.sin(x), Foundation.sin(Double(x)), "sin(\(x))")
            assertNearest(FloatMath.atan2(y, x), Foundation.atan2(Double(y), Double(x)), "atan2(\(y), \(x))")
            if FloatMath.atan2(y, x) != atan2f(y, x) || FloatMath.cos(x) != cosf(x) { libraryMisses += 1 }
        }
        XCTAssertEqual(FloatMath.sigmoid(0), 0.5)
        print("FloatMath: the C library's float atan2 or cos is not the nearest float on \(libraryMisses) of 20000 "
              + "arguments")
    }
}
