import Foundation
import TasksVision
import TasksVisionImageIO

/// One line of `--json` output.
struct JSONLine<T: Encodable>: Encodable {
    let file: String
    let width: Int
    let height: Int
    let timestampMs: Int?
    let result: T
}

/// What every task command shares: finding models, listing inputs, decoding images,
/// printing JSON lines and progress.
enum TaskCommandSupport {
    /// Options every task command takes.
    static let commonValued: Set<String> = ["--model", "--orientation", "--video", "--fps", "--overlay", "--threads"]
    static let commonFlags: Set<String> = ["--json", "--ignore-exif"]

    /// A model found by `ModelLocator` ($TASKSVISION_MODELS, the user folder, Models/ here or by the executable).
    static func defaultModel(_ name: String) throws -> String { try ModelLocator.resolve(name) }

    static func orientation(_ parser: OptionParser) throws -> ImageOrientation? {
        guard let v = parser.value("--orientation") else { return nil }
        if let o = ImageOrientation(rawValue: v) { return o }
        if let n = Int(v), let o = ImageOrientation(exifValue: n) { return o }
        throw UsageError("--orientation takes one of \(ImageOrientation.allCases.map(\.rawValue).joined(separator: ", ")) or an EXIF number 1-8, got '\(v)'")
    }

    static func float(_ parser: OptionParser, _ name: String, default d: Float) throws -> Float {
        guard let v = parser.value(name) else { return d }
        guard let f = Float(v), f.isFinite else { throw UsageError("\(name) takes a number, got '\(v)'") }
        return f
    }

    static let imageExtensions: Set<String> = ["png", "jpg", "jpeg"]

    /// Image files named on the command line, folders expanded (sorted by name).
    static func imageFiles(_ paths: [String]) throws -> [String] {
        var files: [String] = []
        for p in paths {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: p, isDirectory: &isDir) else { throw UsageError("\(p): no such file or folder") }
            if isDir.boolValue {
                let names = try FileManager.default.contentsOfDirectory(atPath: p).sorted()
                files += names.filter { imageExtensions.contains(($0 as NSString).pathExtension.lowercased()) }.map { p + "/" + $0 }
            } else {
                files.append(p)
            }
        }
        return files
    }

    /// Decodes an image file into an `MPImage`. As MediaPipe's `Image.create_from_file`, the
    /// pixels are first turned as the file's EXIF orientation says (unless `ignoreExif`), so
    /// results are in the displayed image; `--orientation` then applies on top, as MediaPipe's
    /// `rotation_degrees` does.
    static func load(_ path: String, orientation: ImageOrientation?, ignoreExif: Bool) throws -> MPImage {
        var decoded = try ImageFile.read(path)
        if !ignoreExif { decoded = decoded.applyingExifOrientation() }
        let format: MPImage.PixelFormat = decoded.channels == 1 ? .gray8 : (decoded.channels == 3 ? .rgb8 : .rgba8)
        return try MPImage(pixels: decoded.pixels, width: decoded.width, height: decoded.height, pixelFormat: format, orientation: orientation ?? .up)
    }

    static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()

    /// One JSON line: {"file", "width", "height", "timestampMs"?, "result"}.
    static func printJSON<R: Encodable>(file: String, image: MPImage, timestamp: Int?, result: R) throws {
        let data = try encoder.encode(JSONLine(file: file, width: image.width, height: image.height, timestampMs: timestamp, result: result))
        print(String(decoding: data, as: UTF8.self))
    }

    static let stderrIsTerminal = isatty(2) != 0

    static func progress(_ i: Int, _ n: Int, _ file: String) {
        guard stderrIsTerminal, n > 1 else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K[\(i + 1)/\(n)] \((file as NSString).lastPathComponent)".utf8))
        if i + 1 == n { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    /// Runs `body` over the inputs: each image in image mode, or a folder of frames in video mode.
    static func forEachInput(_ parser: OptionParser, _ body: (_ file: String, _ image: MPImage, _ timestamp: Int?) throws -> Void) throws {
        let orientation = try orientation(parser)
        let ignoreExif = parser.flags.contains("--ignore-exif")
        if let dir = parser.value("--video") {
            let fps = try float(parser, "--fps", default: 1000.0 / 33)
            guard fps > 0 else { throw UsageError("--fps must be positive") }
            let frames = try imageFiles([dir])
            guard !frames.isEmpty else { throw UsageError("\(dir): no PNG or JPEG frames") }
            let step = parser.value("--fps") == nil ? 33.0 : 1000.0 / Double(fps)
            for (i, f) in frames.enumerated() {
                progress(i, frames.count, f)
                try body(f, try load(f, orientation: orientation, ignoreExif: ignoreExif), Int((Double(i) * step).rounded()))
            }
            return
        }
        let files = try imageFiles(parser.positional)
        guard !files.isEmpty else { throw UsageError("no images given") }
        for (i, f) in files.enumerated() {
            progress(i, files.count, f)
            try body(f, try load(f, orientation: orientation, ignoreExif: ignoreExif), nil)
        }
    }
}
