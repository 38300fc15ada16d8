import Foundation

/// Where `--overlay` drawings go: a PNG per input in a folder, or one video through ffmpeg
/// (a path ending in a video extension). A path that cannot be written is refused before the first
/// frame; the video is written under a temporary name and renamed when finished.
final class OverlayTarget {
    enum Kind {
        case pngs(directory: String)
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
        if VideoOutput.isVideoPath(path) {
            guard input.isVideo else {
                throw UsageError("--overlay \((path as NSString).lastPathComponent) writes a video of --video input; "
                                 + "give a folder for the images' overlays")
            }
            let ffmpeg = try FFmpeg.locate(for: "--overlay \((path as NSString).lastPathComponent)")
            // ffmpeg makes no folders: the video's must exist.
            let folder = (path as NSString).deletingLastPathComponent
            var isDirectory: ObjCBool = false
            if !folder.isEmpty && !FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
                throw OutputError.missingFolder(option: "--overlay", path: path, folder: folder)
            }
            try OutputFile.checkWritable(directory: folder, option: "--overlay")
            kind = .video(path: path, ffmpeg: ffmpeg)
        } else {
            try OutputFile.checkWritable(directory: path, option: "--overlay")
            kind = .pngs(directory: path)
        }
    }

    /// Writes one drawing; the video is opened at the first frame, whose size it takes. After the
    /// video has failed once, frames are no longer drawn (the failure is reported once, by the caller).
    func write(_ overlay: Overlay, for frame: Frame) throws {
        switch kind {
        case .pngs(let dir):
            try FrameImageWriter.write(overlay.image, into: dir, for: frame)
        case let .video(path, ffmpeg):
            guard failure == nil else { return }
            do {
                if video == nil {
                    let temp = OutputFile.temporaryName(for: path)
                    temporaryVideo = temp
                    video = try VideoOutput(path: temp, ffmpeg: ffmpeg, width: overlay.width, height: overlay.height,
                                            frameRate: input.frameRate, name: path)
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

    /// Finishes the video file and puts it in its place (nothing to do for PNGs).
    func finish() throws {
        guard let output = video, let temp = temporaryVideo, case let .video(path, _) = kind else { return }
        video = nil
        do {
            try output.finish()
            try OutputFile.commit(temp, to: path)
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
        if let temp = temporaryVideo { try? FileManager.default.removeItem(atPath: temp) }
        temporaryVideo = nil
    }
}
