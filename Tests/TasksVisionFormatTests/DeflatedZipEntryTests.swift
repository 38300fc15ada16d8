import Foundation
import TasksVisionFormat
import XCTest

/// `ZipArchive.decompressedData(of:)`: deflated zip entries, as in Python wheels.
final class DeflatedZipEntryTests: XCTestCase {
    /// Written by Python's zipfile: pkg/models/a.txt (deflated), empty.txt (deflated), stored.bin (stored).
    static let wheelLike = """
    UEsDBBQAAAAIAH2mgV1i8tNqQQAAAKQGAAAQAAAAcGtnL21vZGVscy9hLnR4dAtJLM4uDssszszPUyjNK0hMzi5WKM9ITc1RyE3N
    TUotKtZTCBlVMqpkVMmoklEl1FNiYGhkbGJqZm5hOcoixAIAUEsDBBQAAAAIAH2mgV0AAAAAAgAAAAAAAAAJAAAAZW1wdHkudHh0
    AwBQSwMEFAAAAAAAAAAhAIBhCO3IAAAAyAAAAAoAAABzdG9yZWQuYmluAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g
    ISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+P0BBQkNERUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdoaWpr
    bG1ub3BxcnN0dXZ3eHl6e3x9fn+AgYKDhIWGh4iJiouMjY6PkJGSk5SVlpeYmZqbnJ2en6ChoqOkpaanqKmqq6ytrq+wsbKztLW2
    t7i5uru8vb6/wMHCw8TFxsdQSwECFAMUAAAACAB9poFdYvLTakEAAACkBgAAEAAAAAAAAAAAAAAAgAEAAAAAcGtnL21vZGVscy9h
    LnR4dFBLAQIUAxQAAAAIAH2mgV0AAAAAAgAAAAAAAAAJAAAAAAAAAAAAAACAAW8AAABlbXB0eS50eHRQSwECFAMUAAAAAAAAACEA
    gGEI7cgAAADIAAAACgAAAAAAAAAAAAAAgAGYAAAAc3RvcmVkLmJpblBLBQYAAAAAAwADAK0AAACIAQAAAAA=
    """

    func bytes() throws -> [UInt8] {
        let text = Self.wheelLike.replacingOccurrences(of: "\n", with: "")
        return try XCTUnwrap(Data(base64Encoded: text).map { [UInt8]($0) })
    }

    func testDeflatedAndStoredEntriesDecompress() throws {
        let archive = try XCTUnwrap(try ZipArchive(view: ByteView(bytes: try bytes(), name: "w.whl"),
                                                   allowMissing: false))
        let text = String(repeating: "TasksVision unpacks wheel members. ", count: 40)
            + String(repeating: "0123456789", count: 30)
        let a = try XCTUnwrap(archive.entry(named: "pkg/models/a.txt"))
        XCTAssertEqual(a.method, 8)
        XCTAssertEqual(try archive.decompressedData(of: a), Array(text.utf8))
        XCTAssertEqual(try archive.decompressedData(of: XCTUnwrap(archive.entry(named: "empty.txt"))), [])
        XCTAssertEqual(try archive.decompressedData(of: XCTUnwrap(archive.entry(named: "stored.bin"))),
                       (0..<200).map(UInt8.init))
    }

    func testCorruptDataAndOtherMethodsAreRefusedByName() throws {
        var corrupt = try bytes()
        corrupt[60] ^= 0x55  // inside a.txt's deflate stream
        let archive = try XCTUnwrap(try ZipArchive(view: ByteView(bytes: corrupt, name: "w.whl"), allowMissing: false))
        XCTAssertThrowsError(try archive.decompressedData(of: XCTUnwrap(archive.entry(named: "pkg/models/a.txt")))) {
            XCTAssertTrue("\($0)".contains("w.whl") && "\($0)".contains("pkg/models/a.txt"), "\($0)")
        }
        var bzip = try bytes()
        bzip[8] = 12  // a.txt's local method; the central directory's is at its entry + 10
        let centralStart = try XCTUnwrap((0..<(bzip.count - 4)).first {
            bzip[$0..<($0 + 4)] == [0x50, 0x4b, 0x01, 0x02]
        })
        bzip[centralStart + 10] = 12
        let other = try XCTUnwrap(try ZipArchive(view: ByteView(bytes: bzip, name: "b.whl"), allowMissing: false))
        XCTAssertThrowsError(try other.decompressedData(of: XCTUnwrap(other.entry(named: "pkg/models/a.txt")))) {
            XCTAssertTrue("\($0)".contains("method 12"), "\($0)")
        }
    }
}
