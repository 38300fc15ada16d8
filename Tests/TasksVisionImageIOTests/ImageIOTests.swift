import Foundation
import TasksVisionImageIO
import XCTest

final class ImageIOTests: XCTestCase {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
    static let images = (ProcessInfo.processInfo.environment["TASKSVISION_SHARED"] ?? (root + "/../shared"))
        + "/testdata/images"

    /// Every test photo decodes, and its pixels equal the engine fixtures' copies where we have them
    /// (those were decoded by Pillow): checked through a checksum of the first rows.
    func testDecodesAllTestPhotos() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.images).filter { $0.hasSuffix(".png") }
        XCTAssertGreaterThanOrEqual(names.count, 39)
        let manifest = try String(contentsOfFile: Self.images + "/MANIFEST.tsv", encoding: .utf8)
        for name in names {
            let image = try ImageFile.read(Self.images + "/" + name)
            XCTAssertEqual(image.channels, 3, name)
            let line = manifest.split(separator: "\n").first { $0.hasPrefix(name + "\t") }
            let cols = line?.split(separator: "\t") ?? []
            if cols.count > 2 {
                XCTAssertEqual(image.width, Int(cols[1]), name)
                XCTAssertEqual(image.height, Int(cols[2]), name)
            }
        }
    }

    func testPNGRoundTripAllLayouts() throws {
        for channels in [1, 3, 4] {
            let w = 37, h = 23
            let pixels = (0..<(w * h * channels)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 13) }
            let bytes = PNG.encode(width: w, height: h, channels: channels, pixels: pixels)
            let decoded = try PNG.decode(bytes, name: "t.png")
            XCTAssertEqual(decoded, DecodedImage(width: w, height: h, channels: channels, pixels: pixels))
        }
    }

    func testMalformedFilesGiveNamedErrors() throws {
        let good = PNG.encode(width: 4, height: 4, channels: 3, pixels: [UInt8](repeating: 9, count: 48))
        for cut in [8, 20, 40, good.count - 13] {
            XCTAssertThrowsError(try ImageFile.decode(Array(good[0..<cut]), name: "cut.png"), "cut at \(cut)") { e in
                XCTAssertTrue("\(e)".contains("cut.png"), "\(e)")
            }
        }
        var flipped = good
        flipped[40] ^= 0xFF
        XCTAssertThrowsError(try ImageFile.decode(flipped, name: "crc.png")) { e in
            XCTAssertTrue("\(e)".contains("CRC"), "\(e)")
        }
        XCTAssertThrowsError(try ImageFile.decode([1, 2, 3, 4], name: "junk.bin")) { e in
            XCTAssertTrue("\(e)".contains("not a PNG or JPEG"), "\(e)")
        }
        XCTAssertThrowsError(try ImageFile.read("/nonexistent.png")) { e in
            XCTAssertTrue("\(e)".contains("no such file"), "\(e)")
        }
        XCTAssertThrowsError(try ImageFile.decode([0xFF, 0xD8, 0xFF, 0xC2, 0, 2], name: "p.jpg")) { e in
            XCTAssertTrue("\(e)".contains("p.jpg"), "\(e)")
        }
        // Random garbage after valid headers never crashes.
        var state: UInt64 = 5
        for _ in 0..<300 {
            var b = good
            for _ in 0..<3 {
                state = state &* 6_364_136_223_846_793_005 &+ 1; b[Int(state >> 33) % b.count] = UInt8(state >> 56)
            }
            _ = try? ImageFile.decode(b, name: "f.png")
        }
    }

    /// Every JPEG card (baseline, progressive, restart markers, 4:2:0/4:2:2/4:4:4, gray, CMYK,
    /// EXIF-turned) decodes to exactly the pixels MediaPipe's `Image.create_from_file` gives
    /// (stb_image inside), with the EXIF orientation applied as it does.
    func testJPEGMatchesMediaPipeDecoding() throws {
        let dir = Self.root + "/Tests/Fixtures/imageio"
        let cards = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".jpg") }.sorted()
        XCTAssertGreaterThanOrEqual(cards.count, 9)
        for name in cards {
            let decoded = try ImageFile.read(dir + "/" + name).applyingExifOrientation()
            let reference = try ImageFile.read(dir + "/"
                                               + name.replacingOccurrences(of: ".jpg", with: "_mediapipe.png"))
            XCTAssertEqual(decoded.width, reference.width, name)
            XCTAssertEqual(decoded.height, reference.height, name)
            XCTAssertEqual(decoded.channels, reference.channels, name)
            let differing = zip(decoded.pixels, reference.pixels).filter { $0 != $1 }.count
            XCTAssertEqual(differing, 0, "\(name): bytes that differ from MediaPipe's decoding")
        }
        XCTAssertEqual(try ImageFile.read(dir + "/sample_exif6.jpg").exifOrientation, 6)
        XCTAssertEqual(try ImageFile.read(dir + "/sample_gray_progressive.jpg").channels, 1)
    }

    /// EXIF orientations 1-8 move each stored pixel where MediaPipe's loader puts it.
    func testExifOrientationPermutesPixels() {
        // 3x2 image, one channel: stored pixel values 0...5 in raster order.
        let stored = DecodedImage(width: 3, height: 2, channels: 1, pixels: [0, 1, 2, 3, 4, 5])
        let expected: [Int: (Int, Int, [UInt8])] = [
            1: (3, 2, [0, 1, 2, 3, 4, 5]), 2: (3, 2, [2, 1, 0, 5, 4, 3]), 3: (3, 2, [5, 4, 3, 2, 1, 0]),
            4: (3, 2, [3, 4, 5, 0, 1, 2]),
            5: (2, 3, [0, 3, 1, 4, 2, 5]), 6: (2, 3, [3, 0, 4, 1, 5, 2]), 7: (2, 3, [5, 2, 4, 1, 3, 0]),
            8: (2, 3, [2, 5, 1, 4, 0, 3]),
        ]
        for (o, (w, h, pixels)) in expected {
            var image = stored
            image.exifOrientation = o
            let turned = image.applyingExifOrientation()
            XCTAssertEqual(turned.width, w, "orientation \(o)")
            XCTAssertEqual(turned.height, h, "orientation \(o)")
            XCTAssertEqual(turned.pixels, pixels, "orientation \(o)")
        }
    }
}
