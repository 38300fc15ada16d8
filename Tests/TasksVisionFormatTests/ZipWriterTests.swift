import Foundation
import TasksVisionFormat
import XCTest

final class ZipWriterTests: XCTestCase {
    /// The writer reproduces the bundles tools/fetch_models.py writes with Python's zipfile, byte for byte.
    func testBundlesMatchTheOnesFetchModelsWrites() throws {
        let bundles: [(String, [(String, String)])] = [
            ("hand_landmarker.task", [("hand_detector.tflite", "hand_detector.tflite"),
                                      ("hand_landmarks_detector.tflite", "hand_landmark_full.tflite")]),
            ("pose_landmarker_lite.task", [("pose_detector.tflite", "pose_detector.tflite"),
                                           ("pose_landmarks_detector.tflite", "pose_landmarks_detector.tflite")]),
            ("gesture_recognizer.task", [("hand_landmarker.task", "hand_landmarker.task"),
                                         ("hand_gesture_recognizer.task", "hand_gesture_recognizer.task")]),
        ]
        for (bundle, members) in bundles {
            let contents = try members.map { ($0.0, try ModelAsset.readFile(try FormatTestPaths.model($0.1))) }
            let written = try ZipWriter.storedArchive(contents)
            XCTAssertEqual(written, try ModelAsset.readFile(try FormatTestPaths.model(bundle)), bundle)
        }
    }

    /// Entries read back through `TaskBundle`, their data 4-byte aligned, with 1 to 4 padding bytes each.
    func testEntriesReadBackAlignedAndPadded() throws {
        let members: [(name: String, data: [UInt8])] = [
            ("a.tflite", [1, 2, 3]), ("bb.tflite", []), ("ccc.txt", Array("hello".utf8)), ("dé.bin", [9]),
        ]
        let bytes = try ZipWriter.storedArchive(members)
        let bundle = try TaskBundle(bytes: bytes, name: "t.task")
        let archive = try XCTUnwrap(try ZipArchive(view: ByteView(bytes: bytes, name: "t.task"), allowMissing: false))
        var previousEnd = 0
        for (entry, member) in zip(archive.entries, members) {
            XCTAssertEqual(entry.name, member.name)
            XCTAssertEqual(try bundle.member(member.name), member.data)
            let padding = entry.localHeaderOffset - previousEnd
            XCTAssertTrue((1...4).contains(padding), "\(member.name): \(padding) padding bytes")
            XCTAssertEqual(Array(bytes[previousEnd..<entry.localHeaderOffset]), [UInt8](repeating: 0, count: padding))
            let dataStart = entry.localHeaderOffset + 30 + member.name.utf8.count
            XCTAssertEqual(dataStart % 4, 0, member.name)
            previousEnd = dataStart + member.data.count
        }
        XCTAssertEqual(try ZipWriter.storedArchive([]).count, 22, "an empty archive is its end record")
    }
}
