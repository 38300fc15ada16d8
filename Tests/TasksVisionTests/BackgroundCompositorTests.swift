@testable import TasksVision
import XCTest

/// `BackgroundCompositor` against a naive per-pixel computation of its documented arithmetic.
final class BackgroundCompositorTests: XCTestCase {
    /// Deterministic bytes and mask values (a 64-bit linear congruential generator's high bits), masks with values
    /// outside [0, 1] and NaN.
    struct Numbers {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 16
        }
        mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: next() >> 8) } }
        mutating func mask(_ n: Int) -> [Float] {
            (0..<n).map { i in
                if i % 17 == 3 { return .nan }
                return Float(next() >> 24) / Float(1 << 24) * 1.4 - 0.2
            }
        }
    }

    func clamped(_ m: Float) -> Float { m > 0 ? (m < 1 ? m : 1) : 0 }
    func blend(_ p: Float, _ f: UInt8, _ b: UInt8) -> UInt8 { UInt8(p * Float(f) + (1 - p) * Float(b) + 0.5) }

    /// Displayed (x, y) of a stored pixel, through the orientation's own point mapping at the pixel's centre.
    func displayed(_ o: ImageOrientation, x: Int, y: Int, width: Int, height: Int) -> (Int, Int) {
        let p = o.displayPoint(fromStored: ((Float(x) + 0.5) / Float(width), (Float(y) + 0.5) / Float(height)))
        let (dw, dh) = o.swapsDimensions ? (height, width) : (width, height)
        return (Int(p.x * Float(dw)), Int(p.y * Float(dh)))
    }

    func testColorOnEveryFormatAndOrientation() throws {
        var numbers = Numbers(state: 1)
        for format in [MPImage.PixelFormat.rgba8, .bgra8, .rgb8, .gray8] {
            for orientation in [ImageOrientation.up, .right, .downMirrored, .leftMirrored] {
                let (w, h) = (7, 5), bpp = format.bytesPerPixel
                let pixels = numbers.bytes(w * h * bpp)
                let frame = try MPImage(pixels: pixels, width: w, height: h, pixelFormat: format,
                                        orientation: orientation)
                let mask = try XCTUnwrap(Mask(width: frame.width, height: frame.height,
                                              float32Data: numbers.mask(w * h)))
                let out = try frame.replacingBackground(.color(red: 200, green: 30, blue: 90), mask: mask)
                XCTAssertEqual(out.pixelFormat, format)
                XCTAssertEqual(out.orientation, orientation)
                XCTAssertEqual([out.pixelWidth, out.pixelHeight], [w, h])
                let colour: [UInt8]
                switch format {
                case .rgba8, .rgb8: colour = [200, 30, 90]
                case .bgra8: colour = [90, 30, 200]
                case .gray8: colour = [88]  // (299 * 200 + 587 * 30 + 114 * 90 + 500) / 1000
                }
                let got = out.withBytes { Array($0) }
                for y in 0..<h {
                    for x in 0..<w {
                        let (dx, dy) = displayed(orientation, x: x, y: y, width: w, height: h)
                        let p = clamped(mask.float32Data[dy * frame.width + dx]), at = (y * w + x) * bpp
                        for k in 0..<colour.count {
                            XCTAssertEqual(got[at + k], blend(p, pixels[at + k], colour[k]),
                                           "\(format) \(orientation) pixel \(x),\(y) channel \(k)")
                        }
                        if bpp == 4 { XCTAssertEqual(got[at + 3], pixels[at + 3], "alpha kept") }
                    }
                }
            }
        }
    }

    func testBlurAgainstNaiveBoxMean() throws {
        var numbers = Numbers(state: 2)
        for (w, h, radius, format) in [(9, 6, 2, MPImage.PixelFormat.rgb8), (5, 8, 3, .rgba8), (1, 1, 4, .gray8),
                                       (12, 3, 1, .bgra8), (6, 6, 0, .rgb8)] {
            let bpp = format.bytesPerPixel
            let pixels = numbers.bytes(w * h * bpp)
            let frame = try MPImage(pixels: pixels, width: w, height: h, pixelFormat: format)
            let mask = try XCTUnwrap(Mask(width: w, height: h, float32Data: numbers.mask(w * h)))
            let out = try frame.replacingBackground(.blur(radius: radius), mask: mask).withBytes { Array($0) }
            let n = (2 * radius + 1) * (2 * radius + 1)
            for y in 0..<h {
                for x in 0..<w {
                    let p = clamped(mask.float32Data[y * w + x])
                    for k in 0..<(format == .gray8 ? 1 : 3) {
                        var sum = 0
                        for dy in -radius...radius {
                            for dx in -radius...radius {
                                let sx = min(max(x + dx, 0), w - 1), sy = min(max(y + dy, 0), h - 1)
                                sum += Int(pixels[(sy * w + sx) * bpp + k])
                            }
                        }
                        let at = (y * w + x) * bpp + k
                        XCTAssertEqual(out[at], blend(p, pixels[at], UInt8((sum + n / 2) / n)),
                                       "\(w)x\(h) r\(radius) pixel \(x),\(y) channel \(k)")
                    }
                }
            }
        }
    }

    func testImageScaledToCover() throws {
        var numbers = Numbers(state: 3)
        // Wider, taller, the same size, and an upright background behind a rotated frame.
        for (fw, fh, iw, ih, orientation) in [(8, 6, 5, 5, ImageOrientation.up), (4, 9, 7, 3, .up),
                                              (6, 4, 6, 4, .up), (5, 7, 10, 6, .left)] {
            let frame = try MPImage(pixels: numbers.bytes(fw * fh * 3), width: fw, height: fh, pixelFormat: .rgb8,
                                    orientation: orientation)
            let imagePixels = numbers.bytes(iw * ih * 4)
            let image = try MPImage(pixels: imagePixels, width: iw, height: ih, pixelFormat: .rgba8)
            let (W, H) = (frame.width, frame.height)
            // A mask of zeros: the output is the scaled image itself.
            let mask = try XCTUnwrap(Mask(width: W, height: H, float32Data: [Float](repeating: 0, count: W * H)))
            let compositor = try BackgroundCompositor(background: .image(image))
            for _ in 0..<2 {  // the second frame takes the cached scaling
                let out = try compositor.composite(frame, mask: mask).withBytes { Array($0) }
                let s = max(Double(W) / Double(iw), Double(H) / Double(ih))
                for y in 0..<fh {
                    for x in 0..<fw {
                        let (dx, dy) = displayed(orientation, x: x, y: y, width: fw, height: fh)
                        let bx = (Double(dx) + 0.5) / s + (Double(iw) - Double(W) / s) / 2 - 0.5
                        let by = (Double(dy) + 0.5) / s + (Double(ih) - Double(H) / s) / 2 - 0.5
                        let x0 = Int(bx.rounded(.down)), y0 = Int(by.rounded(.down))
                        let tx = Float(bx - bx.rounded(.down)), ty = Float(by - by.rounded(.down))
                        func v(_ x: Int, _ y: Int, _ k: Int) -> Float {
                            Float(imagePixels[(min(max(y, 0), ih - 1) * iw + min(max(x, 0), iw - 1)) * 4 + k])
                        }
                        for k in 0..<3 {
                            let top = (1 - tx) * v(x0, y0, k) + tx * v(x0 + 1, y0, k)
                            let bottom = (1 - tx) * v(x0, y0 + 1, k) + tx * v(x0 + 1, y0 + 1, k)
                            let expected = UInt8(min((1 - ty) * top + ty * bottom + 0.5, 255))
                            XCTAssertEqual(out[(y * fw + x) * 3 + k], expected,
                                           "\(fw)x\(fh) over \(iw)x\(ih): pixel \(x),\(y) channel \(k)")
                        }
                    }
                }
                if (fw, fh) == (iw, ih) {
                    XCTAssertEqual(stride(from: 0, to: out.count, by: 3).map { out[$0] },
                                   stride(from: 0, to: imagePixels.count, by: 4).map { imagePixels[$0] },
                                   "an image of the frame's size is used as it is")
                }
            }
        }
    }

    func testFullConfidenceKeepsTheFrame() throws {
        var numbers = Numbers(state: 4)
        let pixels = numbers.bytes(10 * 4 * 4)
        let frame = try MPImage(pixels: pixels, width: 10, height: 4, pixelFormat: .rgba8)
        let ones = try XCTUnwrap(Mask(width: 10, height: 4, float32Data: [Float](repeating: 1.5, count: 40)))
        for background in [BackgroundCompositor.Background.blur(radius: 3), .color(red: 1, green: 2, blue: 3)] {
            XCTAssertEqual(try frame.replacingBackground(background, mask: ones).withBytes { Array($0) }, pixels)
        }
    }

    func testErrorsNameWhatIsWrong() throws {
        let frame = try MPImage(pixels: [UInt8](repeating: 0, count: 4 * 3 * 3), width: 4, height: 3,
                                pixelFormat: .rgb8)
        let mask = try XCTUnwrap(Mask(width: 3, height: 4, float32Data: [Float](repeating: 0, count: 12)))
        XCTAssertThrowsError(try frame.replacingBackground(.color(red: 0, green: 0, blue: 0), mask: mask)) {
            XCTAssertTrue("\($0)".contains("mask of 3x4"), "\($0)")
        }
        for radius in [-1, BackgroundCompositor.maximumBlurRadius + 1] {
            XCTAssertThrowsError(try BackgroundCompositor(background: .blur(radius: radius))) {
                XCTAssertTrue("\($0)".contains("blur radius \(radius)"), "\($0)")
            }
        }
    }
}
