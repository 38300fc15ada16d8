import Foundation
@testable import TasksVision
import XCTest

/// `PerspectiveWarp` (blocked, two passes, vector positions) against the scalar row-by-row warp it replaced,
/// which the task suites had matched to MediaPipe's crops: the same bytes for every pixel.
final class PerspectiveWarpTests: XCTestCase {
    func testEqualsScalarWarpOnRandomRegions() throws {
        var rng = SystemRandomNumberGenerator()
        let formats: [MPImage.PixelFormat] = [.rgba8, .bgra8, .rgb8, .gray8]
        var compared = 0, bordered = 0
        for trial in 0..<120 {
            let format = formats[trial % formats.count]
            let w = Int.random(in: 1...97, using: &rng), h = Int.random(in: 1...83, using: &rng)
            let stride = w * format.bytesPerPixel + Int.random(in: 0...5, using: &rng)
            let pixels = (0..<(stride * h)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let image = try MPImage(pixels: pixels, width: w, height: h, pixelFormat: format, bytesPerRow: stride)
            // Centres inside and outside, any angle, quarter turns, sizes from a few pixels to several images.
            let quarter = trial % 5 == 0
            let angle = quarter
                ? Float(Int.random(in: -2...2, using: &rng)) * .pi / 2 : Float.random(in: -4...4, using: &rng)
            let roi = RotatedRect(centerX: Float.random(in: -0.3...1.3, using: &rng) * Float(w),
                                  centerY: Float.random(in: -0.3...1.3, using: &rng) * Float(h),
                                  width: Float.random(in: 0.05...3, using: &rng) * Float(w),
                                  height: Float.random(in: 0.05...3, using: &rng) * Float(h), rotation: angle)
            let ow = [1, 7, 64, 65, 130, 224][trial % 6], oh = [1, 16, 17, 33, 224][trial % 5]
            for border in [ImageToTensor.BorderMode.zero, .replicate] {
                let flip = trial % 3 == 0
                let got = ImageToTensor.warp(image, roi: roi, flipHorizontally: flip, width: ow, height: oh,
                                             border: border)
                let want = Self.scalarWarp(image, roi: roi, flipHorizontally: flip, width: ow, height: oh,
                                           border: border)
                XCTAssertEqual(got.count, want.count)
                let diff = zip(got, want).filter { $0 != $1 }.count
                XCTAssertEqual(diff, 0,
                    "trial \(trial) \(format) \(w)x\(h) roi \(roi) out \(ow)x\(oh) \(border): \(diff) bytes differ")
                compared += got.count
                let corners = PerspectiveTransform.boxPoints(roi)
                if corners.contains(where: { $0.0 < 0 || $0.1 < 0 || $0.0 > Float(w) || $0.1 > Float(h) }) {
                    bordered += 1
                }
            }
        }
        XCTAssertGreaterThan(compared, 1_000_000)
        XCTAssertGreaterThan(bordered, 20, "regions reaching past the image must be among the trials")
    }

    /// The scalar warp as it stood before `PerspectiveWarp`: row by row, positions and blend per pixel.
    static func scalarWarp(_ image: MPImage, roi: RotatedRect, flipHorizontally: Bool, width: Int, height: Int,
                           border: ImageToTensor.BorderMode) -> [UInt8] {
        let interBits = 5
        var out = [UInt8](repeating: 0, count: width * height * 3)
        let src = PerspectiveTransform.boxPoints(roi)
        let w = Float(width), h = Float(height)
        let zero: Float = 0
        let dst: [(Float, Float)] = flipHorizontally ? [(w, h), (w, zero), (zero, zero), (zero, h)]
            : [(zero, h), (zero, zero), (w, zero), (w, h)]
        guard let forward = PerspectiveTransform.perspective(from: src, to: dst),
              let m = PerspectiveTransform.invert3x3(forward) else { return out }
        guard m.count == 9 else { return out }
        // The matrix in locals: read from the array, each pixel paid a bounds check per element.
        let m0 = m[0], m1 = m[1], m2 = m[2], m3 = m[3], m4 = m[4], m5 = m[5]
        let m6 = m[6], m7 = m[7], m8 = m[8]
        let sw = image.pixelWidth, sh = image.pixelHeight, stride = image.bytesPerRow,
            bpp = image.pixelFormat.bytesPerPixel
        let (ro, go, bo) = image.pixelFormat.rgbOffsets
        // OpenCV's warpPerspective works in blocks; a row's coordinates restart at each block's x.
        let blockH = Swift.min(16, height)
        let blockW = Swift.min(1024 / Swift.max(blockH, 1), width)
        let tab = 1 << interBits
        image.withBytes { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            out.withUnsafeMutableBufferPointer { o in
                for y in 0..<height {
                    var xb = 0
                    while xb < width {
                        let bw = Swift.min(blockW, width - xb)
                        let x0 = m0 * Double(xb) + m1 * Double(y) + m2
                        let y0 = m3 * Double(xb) + m4 * Double(y) + m5
                        let w0 = m6 * Double(xb) + m7 * Double(y) + m8
                        for x1 in 0..<bw {
                            var ww = w0 + m6 * Double(x1)
                            ww = ww != 0 ? Double(tab) / ww : 0
                            let fx = Swift.max(Double(Int32.min),
                                               Swift.min(Double(Int32.max), (x0 + m0 * Double(x1)) * ww))
                            let fy = Swift.max(Double(Int32.min),
                                               Swift.min(Double(Int32.max), (y0 + m3 * Double(x1)) * ww))
                            // Round half to even by the 1.5 * 2^52 trick (|f| < 2^31): baseline x86-64
                            // has no rounding instruction, and `rounded` calls rint twice a pixel.
                            let X = Int((fx + 0x1.8p52) - 0x1.8p52), Y = Int((fy + 0x1.8p52) - 0x1.8p52)
                            let sx = X >> interBits, sy = Y >> interBits
                            let ax = X & (tab - 1), ay = Y & (tab - 1)
                            // Weights of the 2x2 neighbourhood, summing to 2^15.
                            let w00 = (tab - ax) * (tab - ay) * 32, w01 = ax * (tab - ay) * 32
                            let w10 = (tab - ax) * ay * 32, w11 = ax * ay * 32
                            let d = ((y * width) + xb + x1) * 3
                            if sx >= 0 && sx < sw - 1 && sy >= 0 && sy < sh - 1 {
                                // Inside: the three channels written out (no per-pixel array of offsets).
                                let p0 = base + (sy &* stride &+ sx &* bpp), p1 = p0 + stride
                                @inline(__always) func blend(_ off: Int) -> UInt8 {
                                    let v = Int(p0[off]) &* w00 &+ Int(p0[off &+ bpp]) &* w01
                                        &+ Int(p1[off]) &* w10 &+ Int(p1[off &+ bpp]) &* w11
                                    return UInt8(clamping: (v &+ (1 << 14)) >> 15)
                                }
                                o[d] = blend(ro); o[d + 1] = blend(go); o[d + 2] = blend(bo)
                                continue
                            }
                            if border == .zero && (sx >= sw || sx + 1 < 0 || sy >= sh || sy + 1 < 0) {
                                o[d] = 0; o[d + 1] = 0; o[d + 2] = 0
                                continue
                            }
                            // A neighbour outside the image: replicated from the nearest edge pixel, or
                            // zero (-1). No arrays here: border pixels were an allocation each.
                            let replicate = border == .replicate
                            @inline(__always) func edge(_ v: Int, _ n: Int) -> Int {
                                replicate ? (v >= 0 ? (v < n ? v : n - 1) : 0) : (v >= 0 && v < n ? v : -1)
                            }
                            let xa = edge(sx, sw), xb1 = edge(sx + 1, sw), ya = edge(sy, sh), yb = edge(sy + 1, sh)
                            // Each neighbour's byte offset, or -1 for a zero one.
                            @inline(__always) func at(_ yy: Int, _ xx: Int) -> Int {
                                yy >= 0 && xx >= 0 ? yy * stride + xx * bpp : -1
                            }
                            let q00 = at(ya, xa), q01 = at(ya, xb1), q10 = at(yb, xa), q11 = at(yb, xb1)
                            @inline(__always) func blend(_ off: Int) -> UInt8 {
                                @inline(__always) func px(_ q: Int) -> Int { q >= 0 ? Int(base[q + off]) : 0 }
                                let v = px(q00) * w00 + px(q01) * w01 + px(q10) * w10 + px(q11) * w11
                                return UInt8(clamping: (v + (1 << 14)) >> 15)
                            }
                            o[d] = blend(ro); o[d + 1] = blend(go); o[d + 2] = blend(bo)
                        }
                        xb += bw
                    }
                }
            }
        }
        return out
    }

}
