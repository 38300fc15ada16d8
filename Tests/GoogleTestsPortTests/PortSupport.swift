import Foundation
import TasksVision
import TasksVisionImageIO
import XCTest

// Support for the ports of MediaPipe's iOS task tests (mediapipe/tasks/ios/test/vision/*/MPP*Tests.m[m]).
// Their images are downloaded by Bazel and are not here; each image case runs on one of our photos
// (../shared/testdata/images, MANIFEST.tsv) standing in for Google's, named where it is used.

enum Port {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
    static let shared = ProcessInfo.processInfo.environment["TASKSVISION_SHARED"] ?? (root + "/../shared")
    static let images = shared + "/testdata/images"
    static let fixtures = root + "/Tests/Fixtures"

    /// `kExpectedErrorDomain` of every iOS test file.
    static let expectedErrorDomain = "com.google.mediapipe.tasks"
    /// `MPPTasksErrorCodeInvalidArgumentError`.
    static let invalidArgumentError = 3

    static func model(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let path = root + "/Models/" + name
        guard FileManager.default.fileExists(atPath: path) else {
            XCTFail("missing \(path): run tools/setup.sh first", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        return path
    }

    static func image(_ name: String, orientation: ImageOrientation = .up) throws -> MPImage {
        try MPImage(contentsOfFile: images + "/" + name, orientation: orientation)
    }

    /// The photo's pixels turned 90 degrees clockwise, with the orientation that shows them upright
    /// again (`.left`): our stand-in for Google's `*_rotated.jpg` images, which are turned that way
    /// (the C API tests pass them with `rotation_degrees = -90`).
    static func turnedImage(_ name: String) throws -> MPImage { try turnedImageFile(images + "/" + name) }

    /// `turnedImage` of a file anywhere (Google's burger.jpg).
    static func turnedImageFile(_ path: String) throws -> MPImage {
        let d = try ImageFile.read(path)
        let w = d.width, h = d.height, n = d.channels
        var stored = [UInt8](repeating: 0, count: w * h * n)
        // Clockwise: the stored pixel (x, y) of the h-wide result is the upright (y, h - 1 - x).
        for y in 0..<w {
            for x in 0..<h {
                let from = ((h - 1 - x) * w + y) * n, to = (y * h + x) * n
                for c in 0..<n { stored[to + c] = d.pixels[from + c] }
            }
        }
        let format: MPImage.PixelFormat = n == 3 ? .rgb8 : (n == 4 ? .rgba8 : .gray8)
        return try MPImage(pixels: stored, width: h, height: w, pixelFormat: format, orientation: .left)
    }
}

/// `AssertEqualErrors`: the domain, the code and the localized description, as an `NSError`.
func assertEqualErrors(_ error: Error?, code: Int = Port.invalidArgumentError, _ localizedDescription: String,
                       file: StaticString = #filePath, line: UInt = #line) {
    guard let error else { return XCTFail("no error; expected \(localizedDescription)", file: file, line: line) }
    let e = error as NSError
    XCTAssertEqual(e.domain, Port.expectedErrorDomain, file: file, line: line)
    XCTAssertEqual(e.code, code, file: file, line: line)
    XCTAssertEqual(e.localizedDescription, localizedDescription, file: file, line: line)
}

/// The error `body` throws (nil, and a failure, when it throws none).
func thrownError(file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void) -> Error? {
    do {
        try body()
        XCTFail("no error thrown", file: file, line: line)
        return nil
    } catch {
        return error
    }
}

/// MediaPipe 1.2.3's hands on a photo with default options and two hands at most
/// (Tests/Fixtures/hands/image_*.json, tools/reference_hands.py): each hand's wrist and top gesture.
struct MediaPipeHands {
    let wrists: [SIMD2<Float>]
    let gestures: [String]

    static func load(_ file: String, fixture: String) throws -> MediaPipeHands {
        struct Fixture: Decodable {
            struct Hand: Decodable {
                struct Category: Decodable { let categoryName: String? }
                let landmarks: [[Float]]; let gestures: [Category]?
            }
            struct Entry: Decodable { let file: String; let rotation: Int?; let hands: [Hand] }
            let results: [Entry]
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: Port.fixtures + "/hands/" + fixture))
        let entries = try JSONDecoder().decode(Fixture.self, from: data).results
        guard let entry = entries.first(where: { $0.file == file && ($0.rotation ?? 0) == 0 }) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return MediaPipeHands(wrists: entry.hands.map { SIMD2($0.landmarks[0][0], $0.landmarks[0][1]) },
                              gestures: entry.hands.map { $0.gestures?.first?.categoryName ?? "" })
    }
}
