import Foundation
import TasksVisionFormat
import XCTest

/// Bad files give typed errors that say what is wrong, and never crash.
final class MalformedInputTests: XCTestCase {
    func testMissingFile() {
        XCTAssertThrowsError(try ModelAsset.loadModel("/nonexistent/model.tflite")) { error in
            XCTAssertEqual(error as? FormatError,
                           .unreadable(file: "/nonexistent/model.tflite", reason: "no such file"))
        }
    }

    func testRandomBytesAreNotAModel() {
        var rng = SystemRandomNumberGenerator()
        let bytes = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &rng) }
        XCTAssertThrowsError(try TFLiteModel(bytes: bytes, name: "random.bin")) { error in
            XCTAssertTrue("\(error)".contains("random.bin"), "\(error)")
            XCTAssertTrue("\(error)".contains("TFL3"), "\(error)")
        }
    }

    func testTruncatedModelsThrow() throws {
        let bytes = try ModelAsset.readFile(try FormatTestPaths.model("canned_gesture_classifier.tflite"))
        // The flatbuffer ends where the appended zip of labels starts.
        let zipStart = try XCTUnwrap((0..<(bytes.count - 4)).first {
            bytes[$0] == 0x50 && bytes[$0 + 1] == 0x4B && bytes[$0 + 2] == 3 && bytes[$0 + 3] == 4
        })
        for length in stride(from: 0, to: zipStart - 1, by: 97) {
            XCTAssertThrowsError(try TFLiteModel(bytes: Array(bytes[0..<length]), name: "cut.tflite"),
                                 "length \(length)") { error in
                XCTAssertTrue("\(error)".hasPrefix("cut.tflite:"), "\(error)")
            }
        }
        // Cut inside the appended zip: the model still reads, the labels are gone or refused, nothing crashes.
        for length in zipStart..<bytes.count {
            let model = try TFLiteModel(bytes: Array(bytes[0..<length]), name: "cut.tflite")
            if let files = try? model.associatedFiles() { XCTAssertNil(files["labels.txt"], "length \(length)") }
        }
    }

    /// Flipped bytes anywhere in a model: parsing either fails with a FormatError or yields a model.
    func testCorruptedModelsNeverCrash() throws {
        let bytes = try ModelAsset.readFile(try FormatTestPaths.model("gesture_embedder.tflite"))
        var state: UInt64 = 42
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        // Only the flatbuffer part (tables and offsets), not the big weight buffers, to make flips count.
        let span = min(bytes.count, 8192)
        for _ in 0..<400 {
            var copy = bytes
            for _ in 0..<4 { copy[next() % span] = UInt8(next() & 0xFF) }
            do { _ = try TFLiteModel(bytes: copy, name: "flipped.tflite") } catch let error as FormatError {
                XCTAssertTrue(error.description.hasPrefix("flipped.tflite"), error.description)
            }
        }
    }

    func testZipWithDeflatedEntryIsRefused() throws {
        let zip = makeZip([("a.tflite", [1, 2, 3]), ("b.tflite", [4, 5])], method: 8)
        let bundle = try TaskBundle(bytes: zip, name: "deflated.task")
        XCTAssertThrowsError(try bundle.member("a.tflite")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("deflated.task") && text.contains("a.tflite") && text.contains("deflated"),
                          text)
        }
    }

    func testZipWithBadCRCIsRefused() throws {
        let bundle = try TaskBundle(bytes: makeZip([("a.tflite", [1, 2, 3, 4])], corruptCRC: true), name: "crc.task")
        XCTAssertThrowsError(try bundle.member("a.tflite")) { error in
            XCTAssertTrue("\(error)".contains("CRC"), "\(error)")
        }
    }

    func testZipWithEntryPointingOutsideIsRefused() throws {
        var zip = makeZip([("a.tflite", [1, 2, 3, 4])])
        // Point the local header offset of the entry far away.
        let cd = zip.count - 22 - (46 + 8)
        zip[cd + 42] = 0xFF; zip[cd + 43] = 0xFF; zip[cd + 44] = 0x00; zip[cd + 45] = 0x01
        let bundle = try TaskBundle(bytes: zip, name: "outside.task")
        XCTAssertThrowsError(try bundle.member("a.tflite")) { error in
            XCTAssertTrue("\(error)".contains("outside the file"), "\(error)")
        }
    }

    func testTruncatedZipIsRefused() throws {
        let zip = makeZip([("a.tflite", Array(repeating: 7, count: 100))])
        for length in [0, 10, 50, zip.count - 30, zip.count - 1] {
            XCTAssertThrowsError(try TaskBundle(bytes: Array(zip[0..<length]), name: "short.task"), "length \(length)")
        }
    }

    func testAlignedZipWithLeadingPaddingReads() throws {
        let zip = makeZip([("x.tflite", [9, 8, 7])], prefix: [0, 0, 0])
        XCTAssertEqual(try TaskBundle(bytes: zip, name: "padded.task").member("x.tflite"), [9, 8, 7])
    }

    func testCRC32MatchesReference() {
        let data = Array("The quick brown fox jumps over the lazy dog".utf8)
        XCTAssertEqual(CRC32.checksum(data), 0x414F_A339)
        XCTAssertEqual(CRC32.checksum(data), CRC32Reference.checksum(data))
    }

    func testNpyRoundTripAndErrors() throws {
        let array = NumpyArray(shape: [2, 3], floats: [1, 2, 3, 4, 5, 6.5])
        let decoded = try NumpyArray(bytes: array.encoded(), name: "a.npy")
        XCTAssertEqual(decoded.shape, [2, 3])
        XCTAssertEqual(decoded.floats(), [1, 2, 3, 4, 5, 6.5])
        XCTAssertThrowsError(try NumpyArray(bytes: Array(array.encoded().dropLast(4)), name: "short.npy")) { error in
            XCTAssertTrue("\(error)".contains("short.npy"), "\(error)")
        }
        XCTAssertThrowsError(try NumpyArray(bytes: [1, 2, 3], name: "junk.npy"))
    }
}
