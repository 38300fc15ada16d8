import Foundation

/// The files `--overlay DIR` and `--masks DIR` write are named after their input: `DIR/a.png` for the photo
/// `c1/a.png` (and `DIR/a_category.png` for a second mask), `DIR/clip_000012.png` for frame 12 of `clip.mp4`,
/// `DIR/0001.png` for the frame `frames/0001.png` of a folder. `OutputRule` checks these names before any work.
enum OutputNames {
    /// A name an input writes into a folder output, before its suffix and `.png`.
    enum Name: Hashable {
        /// One file: "a" for a.png.
        case file(String)
        /// A video's frames: "clip" for clip_000000.png, clip_000001.png, ...
        case frames(String)

        /// As messages show it: "a.png", "clip_NNNNNN.png".
        func shown(suffix: String) -> String {
            switch self {
            case .file(let stem): return stem + suffix + ".png"
            case .frames(let stem): return stem + "_NNNNNN" + suffix + ".png"
            }
        }

        /// Whether this name with `suffix` writes the file `name` ("clip_000012.png" for `.frames("clip")`).
        func writes(_ name: String, suffix: String) -> Bool {
            switch self {
            case .file(let stem): return name == stem + suffix + ".png"
            case .frames(let stem):
                let head = stem + "_", tail = suffix + ".png"
                guard name.hasPrefix(head), name.hasSuffix(tail), name.count >= head.count + 6 + tail.count else {
                    return false
                }
                let digits = name.dropFirst(head.count).dropLast(tail.count)
                return digits.allSatisfy { $0.isASCII && $0.isNumber }
            }
        }
    }

    /// What one input of a task command writes into a folder output: the photos of a path or folder, a video's
    /// frames (`video`: the input is a video file, or a camera), the frames of a folder of frames.
    static func names(ofInput path: String, video: Bool) -> [(source: String, name: Name)] {
        if video { return [(path, .frames(PathText.stem(path)))] }
        let files = (try? FrameInput.imageFiles(path)) ?? [path]
        return files.map { ($0, .file(PathText.stem($0))) }
    }

    /// The names every input of the command line writes: PATH... (photos and folders; in worker mode a file that
    /// is no image is a video), or `--video` (a folder of frames, or a video file or camera).
    static func names(of o: ParsedOptions) -> [(source: String, name: Name)] {
        if let video = o.string("--video") {
            let isFolder = OutputPath.kind(video, following: true) == .folder
            return isFolder ? names(ofInput: video, video: false) : names(ofInput: video, video: true)
        }
        let worker = o.flag("--stdin") || o.isSet("--jobs")
        return o.positional.flatMap { path in
            names(ofInput: path, video: worker && isWorkerVideo(path))
        }
    }

    /// Whether worker mode takes `path` for a video file: a file that is neither a folder nor an image.
    static func isWorkerVideo(_ path: String) -> Bool {
        OutputPath.kind(path, following: true) != .folder
            && !FrameInput.imageExtensions.contains(PathText.fileExtension(path).lowercased())
    }
}
