import Foundation
import TasksVision

/// The option specs every task command (faces, hands, gestures, pose) shares, and the
/// positional synopsis they show.
enum TaskCommandOptions {
    /// Frame spacing of a folder of frames when --fps is not given (33 ms, as before --fps existed).
    static let defaultFrameMilliseconds = 33.0
    /// The rate those 33 ms stand for, which an overlay video of the folder is written at.
    static let defaultFrameRate = 30.0

    static let positional = ["PATH...", "--video DIR|FILE|/dev/videoN"]

    /// `--model`, defaulting to `file` in Models/.
    static func model(_ what: String, default file: String) -> OptionSpec {
        .text("--model", "M", default: "Models/\(file)", "the \(what) to use (a path, or bundle.task:member)")
    }

    static let threads = OptionSpec.number("--threads", "N", .whole(1...64), default: 1,
                                           "worker threads inside one inference")

    /// Options after the task's own: input, output and orientation.
    static let common: [OptionSpec] = [
        threads,
        .text("--orientation", "O", default: "up",
              valid: { (try? FrameInput.orientation($0)) == nil ? FrameInput.orientationChoices : nil },
              "turn the input further: up, right, down, left, upMirrored, ... or EXIF 1-8"),
        .text("--roi", "X,Y,W,H", default: "whole image", valid: { (try? TaskCommandOptions.parseRegion($0)) == nil
                ? "four numbers X,Y,W,H in [0, 1] (normalized to the displayed image) with W, H > 0 and X+W, Y+H <= 1"
                : nil },
              "run on this region of the displayed image (normalized); results are in the whole image"),
        .flag("--ignore-exif", "take a JPEG's stored pixels as they are (for a video: ignore its rotation)"),
        .flag("--json", "print one JSON object per image or frame instead of a summary line"),
        .text("--overlay", "DIR|FILE.mp4", default: "none",
              "draw the results: a PNG per input into DIR, or a video (.mp4 .m4v .mov .mkv .avi) through ffmpeg"),
        .text("--video", "DIR|FILE|/dev/videoN", default: "none",
              "video mode over a folder of frames (sorted by name) or a video file; live stream from a V4L2 camera"),
        .number("--fps", "X", .positive, default: nil,
                note: "\(OptionSpec.format(defaultFrameMilliseconds)) ms a frame, "
                    + "\(OptionSpec.format(defaultFrameRate)) in an overlay video",
                "frame rate of a --video folder (video files and cameras carry their own timestamps)").forVideoOnly(),
        .number("--max-frames", "N", .atLeast(1), default: nil, note: "all", "stop after N frames of --video")
            .forVideoOnly(),
        .flag("--live", "feed --video as a live stream (frames dropped while the task is busy)",
              default: "off; on for /dev/videoN").forVideoOnly(),
        .flag("--stdin", "worker mode: read inputs (PATH or ID<TAB>PATH: image, folder or video file) from "
              + "standard input, one a line, and write JSON records (with --json)"),
        .number("--jobs", "N", .whole(1...256), default: 1,
                "run N inputs (PATH... or --stdin) at once, each on a task of its own with one thread"),
    ]

    static func parseRegion(_ text: String) throws -> CGRect {
        let v = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard v.count == 4, let x = v[0], let y = v[1], let w = v[2], let h = v[3],
              x >= 0, y >= 0, w > 0, h > 0, x + w <= 1, y + h <= 1 else {
            throw UsageError("--roi takes X,Y,W,H in [0, 1], got '\(text)'")
        }
        return CGRect(x: x, y: y, width: w, height: h)
    }

    /// `--roi` as the tasks take it.
    static func region(_ options: ParsedOptions) throws -> ImageProcessingOptions? {
        try options.string("--roi").map { ImageProcessingOptions(regionOfInterest: try parseRegion($0)) }
    }

    /// The model path: --model (an installed model's name found as `ModelLocator` finds it), or the default in
    /// Models/; checked to be of the kind the command needs.
    static func modelPath(_ options: ParsedOptions, default file: String, kind: ModelKind) throws -> String {
        let given = options.string("--model")
        // A name that cannot be found is left to the task, whose error lists the places looked at.
        let path = try given.map { (try? ModelLocator.resolve($0)) ?? $0 } ?? TaskCommandSupport.defaultModel(file)
        try kind.require(path, command: options.table.command)
        return path
    }
}
