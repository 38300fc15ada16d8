import Foundation
import TasksVision
import TasksVisionImageIO

/// One line of `--json` output.
struct JSONLine<T: Encodable>: Encodable {
    let file: String
    /// The frame number in a video file or camera stream.
    let frame: Int?
    let width: Int
    let height: Int
    let timestampMs: Int?
    let result: T
}

/// What every task command shares: finding models, decoding images, printing JSON lines and progress.
enum TaskCommandSupport {
    /// A model found by `ModelLocator` ($TASKSVISION_MODELS, the user folder, Models/ here or by the executable).
    static func defaultModel(_ name: String) throws -> String { try ModelLocator.resolve(name) }

    /// Decodes an image file into an `MPImage`. As MediaPipe's `Image.create_from_file`, the
    /// pixels are first turned as the file's EXIF orientation says (unless `ignoreExif`), so
    /// results are in the displayed image; `--orientation` then applies on top, as MediaPipe's
    /// `rotation_degrees` does.
    static func load(_ path: String, orientation: ImageOrientation?, ignoreExif: Bool) throws -> MPImage {
        var decoded = try NativePath.reading(path) { try ImageFile.read($0) }
        // A file decoded despite a fault (a JPEG cut short): one line, and the run goes on as MediaPipe's would.
        for warning in decoded.warnings { warn(warning.replacingOccurrences(of: NativePath.native(path), with: path)) }
        if !ignoreExif { decoded = decoded.applyingExifOrientation() }
        let format: MPImage.PixelFormat = decoded.channels == 1 ? .gray8 : (decoded.channels == 3 ? .rgb8 : .rgba8)
        return try MPImage(pixels: decoded.pixels, width: decoded.width, height: decoded.height, pixelFormat: format,
                           orientation: orientation ?? .up)
    }

    /// "vision: warning: ..." on standard error.
    static func warn(_ message: String) {
        FileHandle.standardError.write(Data("vision: warning: \(ErrorText.escaped(message))\n".utf8))
    }

    static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()

    /// One JSON line: {"file", "frame"?, "width", "height", "timestampMs"?, "result"}.
    static func jsonLine<R: Encodable>(file: String, frame: Int?, image: MPImage, timestamp: Int?,
                                       result: R) throws -> String {
        let line = JSONLine(file: file, frame: frame, width: image.width, height: image.height, timestampMs: timestamp,
                            result: result)
        return NativePath.escapingJSON(String(decoding: try encoder.encode(line), as: UTF8.self))
    }

    static let stderrIsTerminal = isatty(2) != 0
    /// Progress lines are off while several inputs run at once (`--jobs`, `--stdin`).
    nonisolated(unsafe) static var showsProgress = true

    static func progress(_ i: Int, _ n: Int, _ file: String) {
        guard stderrIsTerminal, showsProgress, n > 1 else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K[\(i + 1)/\(n)] \(PathText.lastComponent(file))".utf8))
        if i + 1 == n { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
