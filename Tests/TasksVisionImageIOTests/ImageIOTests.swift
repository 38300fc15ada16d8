import Foundation
import TasksVisionImageIO
import XCTest

final class ImageIOTests: XCTestCase {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
    static let images = (ProcessInfo.processInfo.environment["TASKSVISION_SHARED"] ?? (root + "/../shared")) + "/testdata/images"

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
        XCTAssertThrowsError(try ImageFile.decode(flipped, name: "crc.png")) { e in XCTAssertTrue("\(e)".contains("CRC"), "\(e)") }
        XCTAssertThrowsError(try ImageFile.decode([1, 2, 3, 4], name: "junk.bin")) { e in XCTAssertTrue("\(e)".contains("not a PNG or JPEG"), "\(e)") }
        XCTAssertThrowsError(try ImageFile.read("/nonexistent.png")) { e in XCTAssertTrue("\(e)".contains("no such file"), "\(e)") }
        XCTAssertThrowsError(try ImageFile.decode([0xFF, 0xD8, 0xFF, 0xC2, 0, 2], name: "p.jpg")) { e in XCTAssertTrue("\(e)".contains("p.jpg"), "\(e)") }
        // Random garbage after valid headers never crashes.
        var state: UInt64 = 5
        for _ in 0..<300 {
            var b = good
            for _ in 0..<3 { state = state &* 6_364_136_223_846_793_005 &+ 1; b[Int(state >> 33) % b.count] = UInt8(state >> 56) }
            _ = try? ImageFile.decode(b, name: "f.png")
        }
    }

    /// A baseline JPEG written by Pillow (kept as bytes in the fixture folder) decodes close to Pillow's pixels.
    func testBaselineJPEGMatchesPillow() throws {
        let dir = Self.root + "/Tests/Fixtures/imageio"
        let jpeg = try ImageFile.read(dir + "/sample_420.jpg")
        let reference = try ImageFile.read(dir + "/sample_420_pillow.png")
        XCTAssertEqual(jpeg.width, reference.width)
        XCTAssertEqual(jpeg.height, reference.height)
        XCTAssertEqual(jpeg.channels, 3)
        var total = 0
        for (a, b) in zip(jpeg.pixels, reference.pixels) { total += abs(Int(a) - Int(b)) }
        let mean = Double(total) / Double(jpeg.pixels.count)
        XCTAssertLessThan(mean, 3.0, "mean absolute difference to Pillow")
        let gray = try ImageFile.read(dir + "/sample_gray.jpg")
        XCTAssertEqual(gray.channels, 1)
        XCTAssertEqual(try ImageFile.read(dir + "/sample_exif6.jpg").exifOrientation, 6)
    }
}
