import Foundation
import TasksVision
import TasksVisionFormat
import TasksVisionImageIO
import XCTest

enum Paths {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
    static let models = root + "/Models"
    static let fixtures = root + "/Tests/Fixtures"
    static let shared = ProcessInfo.processInfo.environment["TASKSVISION_SHARED"] ?? (root + "/../shared")
    static let images = shared + "/testdata/images"
    static let sequences = shared + "/testdata/sequences"

    static func model(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let path = models + "/" + name
        guard FileManager.default.fileExists(atPath: path) else {
            XCTFail("missing \(path): run tools/setup.sh first", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        return path
    }
}

/// Decoded test photos, cached across tests.
enum TestImages {
    nonisolated(unsafe) static var cache: [String: MPImage] = [:]
    static let lock = NSLock()

    static func load(_ path: String, orientation: ImageOrientation = .up) throws -> MPImage {
        lock.lock(); defer { lock.unlock() }
        if let image = cache[path] { return image.withOrientation(orientation) }
        let d = try ImageFile.read(path)
        let image = try MPImage(pixels: d.pixels, width: d.width, height: d.height,
                                pixelFormat: d.channels == 3 ? .rgb8 : (d.channels == 4 ? .rgba8 : .gray8))
        cache[path] = image
        return image.withOrientation(orientation)
    }

    /// The image with 16 pixels spread over it one level brighter in every channel: a change no
    /// one could see, for measuring how far a tracked sequence moves by itself.
    static func loadNudged(_ path: String) throws -> MPImage {
        let d = try ImageFile.read(path)
        var pixels = d.pixels
        for i in 0..<16 {
            let x = (d.width * (2 * i + 1)) / 32, y = (d.height * ((i * 7) % 16 * 2 + 1)) / 32
            for c in 0..<d.channels {
                let at = (y * d.width + x) * d.channels + c
                pixels[at] = pixels[at] == 255 ? 254 : pixels[at] + 1
            }
        }
        return try MPImage(pixels: pixels, width: d.width, height: d.height,
                           pixelFormat: d.channels == 3 ? .rgb8 : (d.channels == 4 ? .rgba8 : .gray8))
    }
}

/// The orientation whose rotation matches MediaPipe's `rotation_degrees`.
func orientation(forRotation degrees: Int) -> ImageOrientation {
    switch degrees {
    case 90: return .right
    case 180: return .down
    case 270: return .left
    default: return .up
    }
}

/// The official hand, gesture and full pose bundles and the ones assembled from the wheel's models in their
/// place (tools/fetch_models.py): MediaPipe 1.2.3 gives bit-identical results with either, so the parity tests
/// run the fixtures on the variant Models/ holds and, through `other`, on the other one.
enum BundleVariant {
    /// The assembled bundles' recipes, as tools/fetch_models.py's BUNDLES (a nested bundle is assembled too).
    static let recipes: [String: [(String, String)]] = [
        "hand_landmarker.task": [("hand_detector.tflite", "hand_detector.tflite"),
                                 ("hand_landmarks_detector.tflite", "hand_landmark_full.tflite")],
        "hand_gesture_recognizer.task": [("gesture_embedder.tflite", "gesture_embedder.tflite"),
                                         ("canned_gesture_classifier.tflite", "canned_gesture_classifier.tflite")],
        "gesture_recognizer.task": [("hand_landmarker.task", "hand_landmarker.task"),
                                    ("hand_gesture_recognizer.task", "hand_gesture_recognizer.task")],
        "pose_landmarker_full.task": [("pose_detector.tflite", "pose_detector.tflite"),
                                      ("pose_landmarks_detector.tflite", "pose_landmarks_detector_full.tflite")],
    ]

    /// Models/MANIFEST.sha256's checksums of `name`: the official one first, the assembled one second.
    static func checksums(_ name: String) throws -> [String] {
        let text = try String(contentsOfFile: Paths.models + "/MANIFEST.sha256", encoding: .utf8)
        return text.split(separator: "\n").compactMap { line -> String? in
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            return parts.count == 2 && parts[1] == name && !line.hasPrefix("#") ? String(parts[0]) : nil
        }
    }

    static func assembled(_ name: String) throws -> [UInt8] {
        guard let members = recipes[name] else { return try ModelAsset.readFile(try Paths.model(name)) }
        return try ZipWriter.storedArchive(try members.map { ($0.0, try assembled($0.1)) })
    }

    /// The variant of `name` Models/ does not hold: the official file of ../shared/models when Models/ holds the
    /// assembled one, else the assembled one (written to a temporary file, its checksum the manifest's second).
    static func other(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws
        -> (label: String, path: String) {
        let sums = try checksums(name)
        XCTAssertEqual(sums.count, 2, "\(name): an official and an assembled checksum", file: file, line: line)
        let installed = SHA256.hexDigest(of: try ModelAsset.readFile(try Paths.model(name)))
        if installed == sums.last {
            let official = Paths.shared + "/models/" + name
            XCTAssertEqual(SHA256.hexDigest(of: try ModelAsset.readFile(official)), sums.first, file: file, line: line)
            return ("official", official)
        }
        let bytes = try assembled(name)
        XCTAssertEqual(SHA256.hexDigest(of: bytes), sums.last, "\(name) assembled", file: file, line: line)
        let dir = NSTemporaryDirectory() + "tasksvision-bundles-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return ("assembled", path)
    }
}
