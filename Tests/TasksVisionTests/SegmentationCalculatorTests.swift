import Foundation
@testable import TasksVision
import XCTest

/// The segmentation calculators on small inputs with hand-computed outputs.
final class SegmentationCalculatorTests: XCTestCase {
    func mask(_ values: [Float], width: Int, height: Int, channels: Int = 1,
              _ activation: TensorsToSegmentation.Activation) -> [Float]? {
        values.withUnsafeBufferPointer {
            TensorsToSegmentation.mask($0, width: width, height: height, channels: channels, activation: activation)
        }
    }

    func testTensorsToSegmentationActivations() throws {
        // Sigmoid: 0 -> 1/2, ln 3 -> 3/4, -ln 3 -> 1/4, and the far tails 0 and 1.
        let ln3 = Float(log(3.0))
        let s = try XCTUnwrap(mask([0, ln3, -ln3, 200, -200, 40], width: 3, height: 2, .sigmoid))
        XCTAssertEqual(s[0], 0.5)
        XCTAssertEqual(s[1], 0.75, accuracy: 1e-7)
        XCTAssertEqual(s[2], 0.25, accuracy: 1e-7)
        XCTAssertEqual(s[3], 1)
        XCTAssertEqual(s[4], 0, "exp(200) overflows to infinity: 1 / inf")
        XCTAssertEqual(s[5], 1, "1 / (1 + 4e-18) rounds to 1 in float")
        // None passes the values through.
        XCTAssertEqual(mask([-1, 2], width: 2, height: 1, .none), [-1, 2])
        // Softmax of two channels (1, 3): e^-2 / (1 + e^-2) and 1 / (1 + e^-2).
        let pair = try XCTUnwrap(mask([1, 3, 5, 5], width: 2, height: 1, channels: 2, .softmax(outputLayerIndex: 1)))
        XCTAssertEqual(pair[0], 0.880797, accuracy: 1e-6)
        XCTAssertEqual(pair[1], 0.5)
        let other = try XCTUnwrap(mask([1, 3], width: 1, height: 1, channels: 2, .softmax(outputLayerIndex: 0)))
        XCTAssertEqual(other[0], 0.119203, accuracy: 1e-6)
    }

    func testTensorsToSegmentationRejectsWrongShapes() {
        XCTAssertNil(mask([0, 0], width: 1, height: 1, channels: 2, .sigmoid), "sigmoid takes one channel")
        XCTAssertNil(mask([0], width: 1, height: 1, .softmax(outputLayerIndex: 0)), "softmax takes two channels")
        XCTAssertNil(mask([0, 0], width: 1, height: 1, channels: 2, .softmax(outputLayerIndex: 2)))
        XCTAssertNil(mask([0, 0, 0], width: 2, height: 2, .sigmoid), "fewer values than the size")
        XCTAssertNil(mask([], width: 0, height: 0, .none))
    }

    func testSegmentationSmoothing() {
        let r = SegmentationSmoothing.poseCombineWithPreviousRatio
        // At 0.5 the new value is wholly uncertain: 0.5 + (prev - 0.5) * 0.7.
        XCTAssertEqual(SegmentationSmoothing.blend(previous: 1, new: 0.5, ratio: r), 0.85, accuracy: 1e-7)
        // At 0 or 1, x = 0.25 and the polynomial is 0.99995721..., so almost nothing of the previous.
        let certain: Float = 0.0000427890625 * 0.7
        XCTAssertEqual(SegmentationSmoothing.blend(previous: 1, new: 0, ratio: r), certain, accuracy: 1e-6)
        XCTAssertEqual(SegmentationSmoothing.blend(previous: 0, new: 1, ratio: r), 1 - certain, accuracy: 1e-6)
        // At 0.9: x = 0.16, polynomial 0.77961675694, uncertainty 0.22038324306;
        // 0.9 + (0.1 - 0.9) * 0.22038324306 * 0.7 = 0.77658538.
        XCTAssertEqual(SegmentationSmoothing.blend(previous: 0.1, new: 0.9, ratio: r), 0.77658538, accuracy: 1e-6)
        // A ratio of 0 keeps the new mask.
        XCTAssertEqual(SegmentationSmoothing.blend(previous: 1, new: 0.5, ratio: 0), 0.5)
        // Without a previous mask, or with one of another size, the current mask passes through.
        for previous in [nil, [1] as [Float]] {
            let passed = SegmentationSmoothing.smooth(current: [0.5, 0.2], previous: previous,
                                                     combineWithPreviousRatio: r)
            XCTAssertEqual(passed, [0.5, 0.2])
        }
        let both = SegmentationSmoothing.smooth(current: [0.5, 0.9], previous: [1, 0.1], combineWithPreviousRatio: r)
        XCTAssertEqual(both[0], 0.85, accuracy: 1e-7)
        XCTAssertEqual(both[1], 0.77658538, accuracy: 1e-6)
    }

    func testInverseMatrix() throws {
        // Powers of two: every step is exact.
        let scale: [Float] = [2, 0, 0, 1, 0, 4, 0, 2, 0, 0, 8, 0, 0, 0, 0, 1]
        XCTAssertEqual(InverseMatrix.invert(scale), [0.5, 0, 0, -0.5, 0, 0.25, 0, -0.5, 0, 0, 0.125, 0, 0, 0, 0, 1])
        // [[1, 2], [3, 4]] has the inverse [[-2, 1], [1.5, -0.5]] (determinant -2).
        let block: [Float] = [1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        XCTAssertEqual(InverseMatrix.invert(block), [-2, 1, 0, 0, 1.5, -0.5, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])
        // A full matrix: the product with its inverse is the identity.
        let m: [Float] = [4, 1, 2, 0.5, 1, 3, 0, 1, 2, 0, 5, 1, 0.5, 1, 1, 2]
        let inv = try XCTUnwrap(InverseMatrix.invert(m))
        for i in 0..<4 {
            for j in 0..<4 {
                var p: Float = 0
                for k in 0..<4 { p += m[i * 4 + k] * inv[k * 4 + j] }
                XCTAssertEqual(p, i == j ? 1 : 0, accuracy: 1e-6, "(\(i), \(j))")
            }
        }
        // A rotated, scaled crop matrix as ImageToTensor builds it: the inverse maps back.
        let roi = RotatedRect(centerX: 300, centerY: 200, width: 256, height: 256, rotation: 0.3)
        let crop = ImageToTensor.transformMatrix(roi, imageWidth: 640, imageHeight: 480, flipHorizontally: false)
        let back = try XCTUnwrap(InverseMatrix.invert(crop))
        // The crop's centre (0.5, 0.5) lands on the ROI's centre, and back.
        let cx = crop[0] * 0.5 + crop[1] * 0.5 + crop[3], cy = crop[4] * 0.5 + crop[5] * 0.5 + crop[7]
        XCTAssertEqual(cx, 300.0 / 640, accuracy: 1e-6)
        XCTAssertEqual(cy, 200.0 / 480, accuracy: 1e-6)
        XCTAssertEqual(back[0] * cx + back[1] * cy + back[3], 0.5, accuracy: 1e-5)
        XCTAssertEqual(back[4] * cx + back[5] * cy + back[7], 0.5, accuracy: 1e-5)
        // Singular, or not 4x4: nil.
        XCTAssertNil(InverseMatrix.invert([1, 2, 0, 0, 2, 4, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]))
        XCTAssertNil(InverseMatrix.invert([1, 0, 0, 1]))
    }

    func testWarpAffineAbsoluteMatrix() {
        // Identity on normalized coordinates, a 256 x 256 mask onto a 512 x 128 image: output pixel
        // (x, y) reads mask pixel (x / 2, 2 y).
        let identity: [Float] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        XCTAssertEqual(WarpAffine.absoluteMatrix(identity, inputWidth: 256, inputHeight: 256, outputWidth: 512,
                                                 outputHeight: 128), [0.5, 0, 0, 0, 2, 0])
        // Translation by a quarter of the input: 64 pixels.
        var shifted = identity
        shifted[3] = 0.25; shifted[7] = -0.5
        XCTAssertEqual(WarpAffine.absoluteMatrix(shifted, inputWidth: 256, inputHeight: 256, outputWidth: 256,
                                                 outputHeight: 256), [1, 0, 64, 0, 1, -128])
    }

    func testMaskWarpSamplesWithZeroBorder() {
        let src: [Float] = [4, 8, 12, 16]  // 2 x 2
        func warp(_ m: [Float], _ w: Int, _ h: Int) -> [Float] {
            MaskWarp.warpAffine(src, width: 2, height: 2, inverseMatrix: m, outputWidth: w, outputHeight: h)
        }
        // Identity onto 3 x 3: the last column and row lie wholly outside; the edge pixels sit
        // exactly on source pixels (their outside neighbours have weight 0).
        XCTAssertEqual(warp([1, 0, 0, 0, 1, 0], 3, 3), [4, 8, 0, 12, 16, 0, 0, 0, 0])
        // Half a pixel in: (0.5, 0.5) is the mean of the four; (1.5, 0.5) is lerp(8, 0) = 4 over
        // lerp(16, 0) = 8, so 6; (0.5, 1.5) is 14 over 0, so 7; (1.5, 1.5) is 8 over 0, so 4.
        XCTAssertEqual(warp([1, 0, 0.5, 0, 1, 0.5], 2, 2), [10, 6, 7, 4])
        // Half a pixel out: (-0.5, -0.5) has only (0, 0) inside: 4 / 4 = 1; (2.5, -0.5) is wholly outside.
        XCTAssertEqual(warp([1, 0, -0.5, 0, 1, -0.5], 4, 1), [1, 3, 2, 0])
        // Scaling by 1/4 (an output 4 times larger): positions 0, 0.25, 0.5, 0.75 along the top row.
        XCTAssertEqual(warp([0.25, 0, 0, 0, 0.25, 0], 4, 1), [4, 5, 6, 7])
        // Positions are rounded to 1/32 pixel: 0.3 samples at 10/32, 4 * 0.6875 + 8 * 0.3125.
        XCTAssertEqual(warp([1, 0, 0.3, 0, 1, 0], 1, 1), [5.25])
        // A degenerate or short matrix gives zeros, as does a NaN position.
        XCTAssertEqual(warp([1, 0, 0], 2, 1), [0, 0])
        XCTAssertEqual(warp([.nan, 0, 0, 0, 1, 0], 2, 1), [0, 0])
    }
}
