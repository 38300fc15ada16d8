import Foundation
import TasksVision

/// Problems with the inputs named on the command line.
enum InputError: Error, CustomStringConvertible {
    case missing(String)
    case noImages(String)
    case frameSize(width: Int, height: Int, expected: (width: Int, height: Int))

    var description: String {
        switch self {
        case .missing(let path): return "\(path): no such file or folder"
        case .noImages(let what): return "\(what): no PNG or JPEG images"
        case let .frameSize(w, h, expected):
            return "frame of \(w)x\(h) does not fit the overlay video of \(expected.width)x\(expected.height)"
        }
    }
}

/// One input image or video frame: where it came from, and its pixels or why there are none.
struct Frame {
    /// The image file, or the video file or device, as the JSON `file` field shows it.
    let file: String
    /// The frame number in a video file or camera stream (nil for images and folders of frames).
    let index: Int?
    /// The video or live-stream timestamp in milliseconds (nil in image mode).
    let timestamp: Int?
    let image: Result<MPImage, Error>

    /// As messages name it: "a.png", "clip.mkv frame 12".
    var name: String { index.map { "\(file) frame \($0)" } ?? file }
    /// The overlay PNG's file name without extension: "a", "clip_000012".
    var stem: String {
        let base = PathText.stem(file)
        return index.map { base + String(format: "_%06d", $0) } ?? base
    }
}

/// Where a task command's images come from (PATH..., a folder of frames, a video file or a camera)
/// and the running mode that follows: image, video, or live stream.
final class FrameInput {
    enum Source {
        case images([String])
        case frameFolder(String)
        case videoFile(String)
        case camera(String)
    }

    let source: Source
    let runningMode: RunningMode
    let orientation: ImageOrientation?
    let ignoreExif: Bool
    let maxFrames: Int?
    /// Spacing of a folder's frames.
    let frameMilliseconds: Double
    /// `--fps` as given.
    let fps: Double?
    private let ffmpeg: FFmpeg?
    private var video: VideoInput?

    init(_ o: ParsedOptions) throws {
        orientation = try o.string("--orientation").map(Self.orientation)
        ignoreExif = o.flag("--ignore-exif")
        maxFrames = try o.number("--max-frames").map { Int($0) }
        fps = try o.number("--fps")
        frameMilliseconds = fps.map { 1000 / $0 } ?? TaskCommandOptions.defaultFrameMilliseconds
        // Above 1000 frames a second, frames a millisecond apart would share timestamps.
        if let fps = try o.number("--fps"), fps > 1000 {
            throw UsageError("--fps \(OptionSpec.format(fps)) is out of range: at most 1000 (timestamps are whole "
                             + "milliseconds and must increase)")
        }
        guard let path = o.string("--video") else {
            guard !o.positional.isEmpty else {
                let forms = o.table.positional.joined(separator: " | ")
                throw UsageError("no input given: usage: vision \(o.table.command) [options] (\(forms)) "
                                 + "(see vision \(o.table.command) --help)")
            }
            if let stray = o.table.options.first(where: { $0.videoOnly && o.isSet($0.name) })?.name {
                throw UsageError("\(stray) applies to --video input, not to images")
            }
            source = .images(o.positional)
            runningMode = .image
            ffmpeg = nil
            return
        }
        guard o.positional.isEmpty else {
            throw UsageError("give images (PATH...) or --video, not both (got \(o.positional.joined(separator: " ")))")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: NativePath.native(path), isDirectory: &isDirectory) else {
            throw InputError.missing(path)
        }
        if isDirectory.boolValue {
            if o.flag("--live") {
                throw UsageError("--live needs a video file or camera, \(path) is a folder of frames")
            }
            source = .frameFolder(path)
            runningMode = .video
            ffmpeg = nil
            return
        }
        if o.isSet("--fps") { throw UsageError("--fps applies to a folder of frames; \(path) has its own timestamps") }
        ffmpeg = try FFmpeg.locate(for: "--video")
        let type = (try? FileManager.default.attributesOfItem(atPath: NativePath.native(path)))?[.type]
            as? FileAttributeType
        if type == .typeCharacterSpecial {
            source = .camera(path)
            runningMode = .liveStream
        } else {
            source = .videoFile(path)
            runningMode = o.flag("--live") ? .liveStream : .video
        }
    }

    /// One input of worker mode (`--stdin`, `--jobs`), as a run of its own would take it: an image or a
    /// folder of images in image mode (as PATH...), any other file a video file in video mode (as --video).
    init(worker path: String, _ o: ParsedOptions) throws {
        orientation = try o.string("--orientation").map(Self.orientation)
        ignoreExif = o.flag("--ignore-exif")
        maxFrames = try o.number("--max-frames").map { Int($0) }
        frameMilliseconds = TaskCommandOptions.defaultFrameMilliseconds
        fps = nil
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: NativePath.native(path), isDirectory: &isDirectory) else {
            throw InputError.missing(path)
        }
        if isDirectory.boolValue || Self.imageExtensions.contains(PathText.fileExtension(path).lowercased()) {
            source = .images([path])
            runningMode = .image
            ffmpeg = nil
        } else {
            ffmpeg = try FFmpeg.locate(for: "video input \(PathText.lastComponent(path))")
            source = .videoFile(path)
            runningMode = .video
        }
    }

    static let orientationChoices = "takes one of \(ImageOrientation.allCases.map(\.rawValue).joined(separator: ", ")) "
        + "or an EXIF number 1-8"

    /// An orientation by name or EXIF number.
    static func orientation(_ v: String) throws -> ImageOrientation {
        if let o = ImageOrientation(rawValue: v) { return o }
        if let n = Int(v), let o = ImageOrientation(exifValue: n) { return o }
        throw UsageError("--orientation \(orientationChoices), got '\(v)'")
    }

    /// Frames a second, for an overlay video: the folder's --fps exactly (30 without it), or the video stream's
    /// rate (30 if it has none).
    var frameRate: Double {
        switch source {
        case .images: return 1
        case .frameFolder: return fps ?? TaskCommandOptions.defaultFrameRate
        case .videoFile, .camera: return video?.frameRate ?? 30
        }
    }

    var isVideo: Bool { if case .images = source { return false } else { return true } }

    /// Calls `body` with each frame in order; a file that cannot be read arrives as a failed frame.
    func forEach(_ body: (Frame) throws -> Void) throws {
        switch source {
        case .images(let paths):
            var files: [String] = []
            for p in paths {
                do {
                    files += try Self.imageFiles(p)
                } catch {
                    try body(Frame(file: p, index: nil, timestamp: nil, image: .failure(error)))
                }
            }
            if files.isEmpty && paths.allSatisfy({ FileManager.default.fileExists(atPath: NativePath.native($0)) }) {
                throw InputError.noImages(paths.joined(separator: " "))
            }
            for (i, f) in files.enumerated() {
                if Interrupt.requested { return }
                TaskCommandSupport.progress(i, files.count, f)
                try body(Frame(file: f, index: nil, timestamp: nil, image: Result { try load(f) }))
            }
        case .frameFolder(let dir):
            var frames = try Self.imageFiles(dir)
            guard !frames.isEmpty else { throw InputError.noImages(dir) }
            if let n = maxFrames { frames = Array(frames.prefix(n)) }
            for (i, f) in frames.enumerated() {
                if Interrupt.requested { return }
                TaskCommandSupport.progress(i, frames.count, f)
                let t = Int((Double(i) * frameMilliseconds).rounded())
                try body(Frame(file: f, index: nil, timestamp: t, image: Result { try load(f) }))
            }
        case .videoFile(let path), .camera(let path):
            guard let ffmpeg else { throw FFmpegError.notFound(purpose: "--video") }
            let camera: Bool
            if case .camera = source { camera = true } else { camera = false }
            let input = VideoInput(path: path, ffmpeg: ffmpeg, camera: camera, realTime: runningMode == .liveStream,
                                   autorotate: !ignoreExif, maxFrames: maxFrames, orientation: orientation ?? .up)
            video = input
            try input.forEach(body)
        }
    }

    func load(_ path: String) throws -> MPImage {
        try TaskCommandSupport.load(path, orientation: orientation, ignoreExif: ignoreExif)
    }

    static let imageExtensions: Set<String> = ["png", "jpg", "jpeg"]

    /// An image file, or a folder's images sorted by name.
    static func imageFiles(_ p: String) throws -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: NativePath.native(p), isDirectory: &isDirectory) else {
            throw InputError.missing(p)
        }
        guard isDirectory.boolValue else { return [p] }
        // Listed from the names' bytes, so a name that is not UTF-8 is kept (NativePath).
        let names = try (NativePath.contentsOfDirectory(p) ?? FileManager.default.contentsOfDirectory(atPath: p))
            .sorted()
        let images = names.filter { imageExtensions.contains(PathText.fileExtension($0).lowercased()) }
        return images.map { PathText.join(p, $0) }
    }
}
