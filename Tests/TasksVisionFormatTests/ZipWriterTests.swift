import Foundation
import TasksVisionFormat
import XCTest

final class ZipWriterTests: XCTestCase {
    /// The writer reproduces the bundles tools/fetch_models.py writes with Python's zipfile, byte for byte: their
    /// checksums are the manifest's (the last line of a name: an official bundle's assembled fallback). A
    /// nested bundle is assembled too, as fetch_models.py does.
    func testBundlesMatchTheOnesFetchModelsWrites() throws {
        let recipes: [String: [(String, String)]] = [
            "hand_landmarker.task": [("hand_detector.tflite", "hand_detector.tflite"),
                                     ("hand_landmarks_detector.tflite", "hand_landmark_full.tflite")],
            "hand_gesture_recognizer.task": [("gesture_embedder.tflite", "gesture_embedder.tflite"),
                                             ("canned_gesture_classifier.tflite", "canned_gesture_classifier.tflite")],
            "gesture_recognizer.task": [("hand_landmarker.task", "hand_landmarker.task"),
                                        ("hand_gesture_recognizer.task", "hand_gesture_recognizer.task")],
            "pose_landmarker_lite.task": [("pose_detector.tflite", "pose_detector.tflite"),
                                          ("pose_landmarks_detector.tflite", "pose_landmarks_detector.tflite")],
            "pose_landmarker_full.task": [("pose_detector.tflite", "pose_detector.tflite"),
                                          ("pose_landmarks_detector.tflite", "pose_landmarks_detector_full.tflite")],
        ]
        func assembled(_ name: String) throws -> [UInt8] {
            guard let members = recipes[name] else { return try ModelAsset.readFile(try FormatTestPaths.model(name)) }
            return try ZipWriter.storedArchive(try members.map { ($0.0, try assembled($0.1)) })
        }
        var manifest: [String: String] = [:]
        let text = try String(contentsOfFile: FormatTestPaths.models + "/MANIFEST.sha256", encoding: .utf8)
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count == 2 { manifest[String(parts[1])] = String(parts[0]) }
        }
        for name in recipes.keys.sorted() {
            XCTAssertEqual(SHA256.hexDigest(of: try assembled(name)), manifest[name], name)
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
