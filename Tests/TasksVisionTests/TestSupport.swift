import Foundation
import TasksVision
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
