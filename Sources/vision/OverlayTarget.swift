import Foundation
import TasksVisionImageIO

/// What `--overlay` names: a folder (a PNG per input), one photo's file (.png or .jpg), or a video written through
/// ffmpeg (.mp4 .m4v .mov .mkv .avi). The extension decides (an existing folder named out.mp4 is then refused as a
/// folder where a file goes); a path ending in `/` is a folder whatever its name, and so is an existing folder of
/// another name; any other extension is refused, naming the ones that work, rather than taken for a folder's name.
enum OverlayPath {
    enum Kind: Equatable {
        case folder
        case photo(jpeg: Bool)
        case video
    }

    static let photoExtensions: [String: Bool] = ["png": false, "jpg": true, "jpeg": true]

    static func kind(_ path: String, option: String = "--overlay") throws -> Kind {
        if path.isEmpty || PathText.namesFolder(path) { return .folder }
        let ext = PathText.fileExtension(path).lowercased()
        if ext.isEmpty { return .folder }
        if VideoOutput.extensions.contains(ext) { return .video }
        if let jpeg = photoExtensions[ext] { return .photo(jpeg: jpeg) }
        if OutputPath.kind(path, following: true) == .folder { return .folder }
        let videos = VideoOutput.extensions.sorted().map { "." + $0 }.joined(separator: " ")
        throw UsageError("\(option) \(path): vision writes no .\(PathText.fileExtension(path)) files; give a folder "
                         + "(\(path)/ for a folder of that name), one photo's .png or .jpg, or a video: \(videos)")
    }
}

/// Where `--overlay` drawings go: a PNG per input in a folder, one photo's file, or one video through ffmpeg.
/// A path that cannot be written is refused before the first frame (`OutputRule`); the video is written under a
/// temporary name and renamed when finished.
final class OverlayTarget {
    enum Kind {
        case pngs(directory: String)
        case photo(path: String, jpeg: Bool)
        case video(path: String, ffmpeg: FFmpeg)
    }

    let kind: Kind
    private let input: FrameInput
    private var video: VideoOutput?
    private var temporaryVideo: String?
    /// The video's first failure: later frames are not drawn, and the run ends with it.
    private(set) var failure: Error?

    /// The target of `--overlay`, or nil without it; a video needs ffmpeg, a --video input and an existing folder.
    init?(_ o: ParsedOptions, input: FrameInput) throws {
        guard let path = o.string("--overlay") else { return nil }
        self.input = input
        switch try OverlayPath.kind(path) {
        case .video:
            guard input.isVideo else {
                throw UsageError("--overlay \(PathText.lastComponent(path)) writes a video of --video input; "
                                 + "give a folder for the images' overlays")
            }
            let ffmpeg = try FFmpeg.locate(for: "--overlay \(PathText.lastComponent(path))")
            // The output policy: no folder or device in the video's place, a link followed, an existing folder.
            kind = .video(path: try OutputPath.file(path, option: "--overlay"), ffmpeg: ffmpeg)
        case .photo(let jpeg):
            guard !input.isVideo else {
                throw UsageError("--overlay \(path): a video's overlay is a folder (a PNG per frame) or a video file "
                                 + "(" + VideoOutput.extensions.sorted().map { "." + $0 }.joined(separator: " ") + ")")
            }
            kind = .photo(path: try OutputPath.file(path, option: "--overlay"), jpeg: jpeg)
        case .folder:
            try OutputPath.folder(path, option: "--overlay")
            kind = .pngs(directory: path)
        }
    }

    /// Writes one drawing; the video is opened at the first frame, whose size it takes. After the
    /// video has failed once, frames are no longer drawn (the failure is reported once, by the caller).
    func write(_ overlay: Overlay, for frame: Frame) throws {
        switch kind {
        case .pngs(let dir):
            try FrameImageWriter.write(overlay.image, into: dir, for: frame)
        case let .photo(path, jpeg):
            try FrameImageWriter.write(overlay.image, to: path, jpeg: jpeg, for: frame)
        case let .video(path, ffmpeg):
            guard failure == nil else { return }
            do {
                if video == nil {
                    let temp = OutputFile.temporaryName(for: path)
                    temporaryVideo = temp
                    OutputFile.track(temp)
                    var sound: String? = nil
                    if case .videoFile(let file) = input.source { sound = file }
                    video = try VideoOutput(path: temp, ffmpeg: ffmpeg, width: overlay.width, height: overlay.height,
                                            frameRate: input.frameRate, name: path, soundFrom: sound)
                }
                try video?.write(overlay.pixels, width: overlay.width, height: overlay.height,
                                 timestamp: frame.timestamp)
            } catch {
                failure = error
                discard()
                throw error
            }
        }
    }

    /// Finishes the video file and puts it in its place (nothing to do for pictures).
    func finish() throws {
        guard let output = video, let temp = temporaryVideo, case let .video(path, _) = kind else { return }
        video = nil
        do {
            try output.finish()
            try OutputFile.commit(temp, to: path)
            OutputFile.untrack(temp)
            temporaryVideo = nil
        } catch {
            failure = error
            discard()
            throw error
        }
    }

    /// Stops the video and removes its temporary file.
    func discard() {
        video?.abandon()
        video = nil
        if let temp = temporaryVideo {
            _ = NativePath.withCString(temp) { unlink($0) }
            OutputFile.untrack(temp)
        }
        temporaryVideo = nil
    }
}
