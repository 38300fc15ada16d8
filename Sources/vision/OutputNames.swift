import Foundation

/// The files `--overlay DIR` and `--masks DIR` write are named after their input (`DIR/a.png` for `c1/a.png`).
/// Two inputs of the same name (`c1/a.png`, `c2/a.jpg`) would write the same file, the second result replacing the
/// first: such a run is refused before any work when its inputs are on the command line, and the second input
/// fails when they come from `--stdin` (`OutputFile.claim`).
enum OutputNames {
    static func checkDistinct(_ o: ParsedOptions) throws {
        let folders = ["--overlay", "--masks"].compactMap { name in
            o.string(name).flatMap { VideoOutput.isVideoPath($0) ? nil : (name, $0) }
        }
        guard let (option, folder) = folders.first, !o.positional.isEmpty else { return }
        var seen: [String: String] = [:]
        for path in o.positional {
            let files = (try? FrameInput.imageFiles(path)) ?? [path]
            for file in files {
                let name = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
                // A video's frames are named NAME_000000...: they collide only with another video of the name.
                let isImage = FrameInput.imageExtensions.contains((file as NSString).pathExtension.lowercased())
                let key = isImage ? name + ".png" : name + "_NNNNNN.png"
                if let first = seen[key], first != file {
                    throw UsageError("\(option) \(folder): \(first) and \(file) would both write \(key); "
                                     + "give inputs of distinct names (or run them into separate folders)")
                }
                seen[key] = file
            }
        }
    }
}
