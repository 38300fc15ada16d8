import Foundation

/// Where `--overlay` drawings go: a PNG per input in a folder, or one video through ffmpeg
/// (a path ending in a video extension).
final class OverlayTarget {
    enum Kind {
        case pngs(directory: String)
        case video(path: String, ffmpeg: FFmpeg)
    }

    let kind: Kind
    private let input: FrameInput
    private var video: VideoOutput?

    /// The target of `--overlay`, or nil without it; a video needs ffmpeg and a --video input.
    init?(_ o: ParsedOptions, input: FrameInput) throws {
        guard let path = o.string("--overlay") else { return nil }
        self.input = input
        if VideoOutput.isVideoPath(path) {
            guard input.isVideo else {
                throw UsageError("--overlay \((path as NSString).lastPathComponent) writes a video of --video input; "
                                 + "give a folder for the images' overlays")
            }
            let ffmpeg = try FFmpeg.locate(for: "--overlay \((path as NSString).lastPathComponent)")
            kind = .video(path: path, ffmpeg: ffmpeg)
        } else {
            kind = .pngs(directory: path)
        }
    }

    /// Writes one drawing; the video is opened at the first frame, whose size it takes.
    func write(_ overlay: Overlay, for frame: Frame) throws {
        switch kind {
        case .pngs(let dir):
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try overlay.write(dir + "/" + frame.stem + ".png")
        case let .video(path, ffmpeg):
            if video == nil {
                video = try VideoOutput(path: path, ffmpeg: ffmpeg, width: overlay.width, height: overlay.height,
                                        frameRate: input.frameRate)
            }
            try video?.write(overlay.pixels, width: overlay.width, height: overlay.height, timestamp: frame.timestamp)
        }
    }

    /// Finishes the video file (nothing to do for PNGs).
    func finish() throws {
        try video?.finish()
        video = nil
    }
}
