import Foundation
@testable import TasksVisionImageIO
import XCTest

/// The files the command line writes (issue 48): PNGs compressed as every PNG writer does, JPEG overlays, and the
/// decoders' words on files cut short.
final class ImageWritingTests: XCTestCase {
    static let fixtures = ImageIOTests.root + "/Tests/Fixtures/imageio"

    /// A photo's pixels survive PNG encoding bit for bit, compressed to well under their raw size; a flat mask to
    /// almost nothing; every layout and odd sizes round-trip.
    func testPNGIsCompressedAndExact() throws {
        let photo = try ImageFile.read(ImageIOTests.images + "/pose_standing_1.png")
        let encoded = PNG.encode(width: photo.width, height: photo.height, channels: 3, pixels: photo.pixels)
        XCTAssertEqual(try PNG.decode(encoded, name: "p.png").pixels, photo.pixels)
        XCTAssertLessThan(encoded.count, photo.pixels.count * 2 / 3)
        var mask = [UInt8](repeating: 0, count: 640 * 480)
        for y in 100..<400 { for x in 200..<450 { mask[y * 640 + x] = 255 } }
        let flat = PNG.encode(width: 640, height: 480, channels: 1, pixels: mask)
        XCTAssertEqual(try PNG.decode(flat, name: "m.png").pixels, mask)
        XCTAssertLessThan(flat.count, 2_000)
        for (w, h, c) in [(1, 1, 1), (1, 7, 3), (7, 1, 4), (33, 5, 3), (300, 2, 1)] {
            var state: UInt32 = 7
            let pixels = (0..<(w * h * c)).map { i -> UInt8 in
                state = state &* 1_664_525 &+ 1_013_904_223
                return i % 5 == 0 ? UInt8(state >> 24) : UInt8(i % 7)
            }
            let bytes = PNG.encode(width: w, height: h, channels: c, pixels: pixels)
            XCTAssertEqual(try PNG.decode(bytes, name: "t.png"), DecodedImage(width: w, height: h, channels: c,
                                                                                 pixels: pixels), "\(w)x\(h)x\(c)")
        }
    }

    /// Each row gets libpng's filter choice: a horizontal gradient is filtered Sub, a vertical one Up.
    func testRowFiltersFollowTheContent() {
        let w = 64, h = 4
        // Each row a gradient along x from its own start: Sub leaves 3s. Rows alike: Up leaves zeros (first of ties).
        let starts = [0, 5, 200, 10]
        let horizontal = (0..<(w * h)).map { UInt8(truncatingIfNeeded: starts[$0 / w] + ($0 % w) * 3) }
        let vertical = (0..<(w * h)).map { UInt8(truncatingIfNeeded: ($0 % w) * 5) }
        let rowsH = PNG.filtered(width: w, height: h, channels: 1, pixels: horizontal)
        let rowsV = PNG.filtered(width: w, height: h, channels: 1, pixels: vertical)
        XCTAssertEqual((0..<h).map { rowsH[$0 * (w + 1)] }, [1, 1, 1, 1])
        XCTAssertEqual((0..<h).map { rowsV[$0 * (w + 1)] }, [1, 2, 2, 2])
        XCTAssertEqual(Array(rowsV[(w + 2)..<(2 * w + 2)]), [UInt8](repeating: 0, count: w))
    }

    /// JPEG overlays decode (with our decoder, MediaPipe's) as close to the picture as libjpeg's do: on
    /// pose_standing_1 at quality 90, libjpeg (Pillow) gives 49.1 dB in 62,179 bytes, ours 48.9 dB in 62,372;
    /// gray too, and odd sizes encode.
    func testJPEGEncoding() throws {
        for (file, psnr, size) in [(ImageIOTests.images + "/pose_standing_1.png", 48.5, 64_000),
                                   (Self.fixtures + "/sample_gray_mediapipe.png", 40.0, 8_000)] {
            let image = try ImageFile.read(file)
            let card = String(file.split(separator: "/").last ?? "")
            let jpeg = JPEGEncoder.encode(image, quality: 90)
            XCTAssertTrue(JPEG.isJPEG(jpeg))
            let back = try JPEG.decode(jpeg, name: "o.jpg")
            XCTAssertEqual([back.width, back.height, back.channels], [image.width, image.height, image.channels])
            XCTAssertTrue(back.warnings.isEmpty)
            var squares = 0.0
            for (a, b) in zip(back.pixels, image.pixels) {
                let d = Double(Int(a) - Int(b))
                squares += d * d
            }
            let mse = squares / Double(image.pixels.count)
            XCTAssertGreaterThan(10 * log10(255 * 255 / max(mse, 1e-9)), psnr, card)
            XCTAssertLessThan(jpeg.count, size, card)
        }
        for (w, h, c) in [(1, 1, 3), (17, 9, 3), (9, 17, 1), (5, 3, 4)] {
            let image = DecodedImage(width: w, height: h, channels: c,
                                     pixels: (0..<(w * h * c)).map { UInt8(($0 * 37) % 256) })
            let back = try JPEG.decode(JPEGEncoder.encode(image), name: "s.jpg")
            XCTAssertEqual([back.width, back.height], [w, h])
        }
        // Lower quality, smaller file.
        let card = try ImageFile.read(Self.fixtures + "/sample_420_mediapipe.png")
        XCTAssertLessThan(JPEGEncoder.encode(card, quality: 30).count, JPEGEncoder.encode(card, quality: 95).count)
    }

    /// A JPEG cut short decodes as libjpeg decodes it: the part that is there as MediaPipe decodes the whole file,
    /// the rest gray (libjpeg-turbo through Pillow's LOAD_TRUNCATED_IMAGES gives the same 5,944 gray pixels here),
    /// with one warning naming the file. A whole file has no warning.
    func testTruncatedJPEGDecodesAsLibjpeg() throws {
        let whole = Array(try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/sample_420.jpg")))
        XCTAssertTrue(try JPEG.decode(whole, name: "whole.jpg").warnings.isEmpty)
        let reference = try ImageFile.read(Self.fixtures + "/sample_420_mediapipe.png")
        for file in ["sample_420.jpg", "sample_420_restart.jpg"] {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/" + file)))
            let cut = Array(bytes[0..<(bytes.count * 55 / 100)])
            let image = try JPEG.decode(cut, name: "cut.jpg")
            XCTAssertEqual(image.warnings, ["cut.jpg: the file is truncated (it ends at byte \(cut.count) before the "
                                            + "image data is complete); the rest of the image is gray, as libjpeg "
                                            + "decodes it"], file)
            let row = image.width * 3
            // The MCU rows before the cut, but the last (its chroma is interpolated with the next).
            XCTAssertEqual(Array(image.pixels[0..<(47 * row)]), Array(reference.pixels[0..<(47 * row)]), file)
            let gray = stride(from: 0, to: image.pixels.count, by: 3).filter {
                image.pixels[$0] == 128 && image.pixels[$0 + 1] == 128 && image.pixels[$0 + 2] == 128
            }.count
            XCTAssertEqual(gray, 5944, file)
            XCTAssertEqual(Array(image.pixels[(image.height - 1) * row..<image.height * row]),
                           [UInt8](repeating: 128, count: row), "\(file): the last row is gray")
        }
        // A progressive file cut in a later scan keeps its earlier scans: a picture, not a blank.
        let progressive = Array(try Data(contentsOf: URL(fileURLWithPath: Self.fixtures
                                                         + "/sample_422_progressive.jpg")))
        let image = try JPEG.decode(Array(progressive[0..<(progressive.count * 8 / 10)]), name: "p.jpg")
        XCTAssertEqual(image.warnings.count, 1)
        XCTAssertGreaterThan(Set(image.pixels).count, 100)
    }

    /// A PNG cut short names where it ends, the chunk, its size and how much of it is there; a damaged chunk's
    /// type is written with its bytes escaped.
    func testTruncatedAndDamagedPNGMessages() throws {
        let photo = Array(try Data(contentsOf: URL(fileURLWithPath: ImageIOTests.images + "/hand_victory_1.png")))
        XCTAssertThrowsError(try PNG.decode(Array(photo[0..<50_000]), name: "cut.png")) { e in
            XCTAssertEqual("\(e)", "cut.png: malformed image: truncated at byte 50000: chunk IDAT at byte 33 holds "
                           + "65536 bytes of data and its CRC, of which 49959 bytes of data are in the file")
        }
        // Cut between two chunks, and inside a chunk's header.
        XCTAssertThrowsError(try PNG.decode(Array(photo[0..<65581]), name: "c.png")) { e in
            XCTAssertTrue("\(e)".contains("truncated at byte 65581 (no IEND chunk): image data"), "\(e)")
        }
        XCTAssertThrowsError(try PNG.decode(Array(photo[0..<65585]), name: "c.png")) { e in
            XCTAssertTrue("\(e)".contains("truncated at byte 65585 (no IEND chunk; 4 bytes of a chunk header at byte "
                                          + "65581)"), "\(e)")
        }
        var damaged = PNG.encode(width: 2, height: 2, channels: 1, pixels: [1, 2, 3, 4])
        damaged.replaceSubrange(37..<41, with: [0x03, 0x00, 0x5C, 0x41])
        XCTAssertThrowsError(try PNG.decode(damaged, name: "d.png")) { e in
            XCTAssertEqual("\(e)", "d.png: malformed image: chunk \\x03\\x00\\x5cA at byte 33 fails its CRC check")
        }
    }
}
