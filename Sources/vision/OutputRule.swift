import Foundation
import TasksVision

/// The one rule between the paths of a run, checked for every command before any work (`CommandLineTool` calls
/// `check` between parsing and running, so a command added to the registry keeps it without code of its own):
/// **an output never replaces an input, and two outputs never share a file.** Files are compared as the system
/// knows them (device and inode, links followed, so `./x`, `d/../x`, a symbolic or a hard link to `x` are `x`),
/// and files not yet made by their canonical path. A breach is one line naming both paths, exit status 1, and
/// nothing written.
///
/// What a command writes is read from its options: every `--out`, `--overlay` and `--masks` is an output (a file,
/// or a folder when its placeholder is DIR), and everything else that names an existing path is an input, as are
/// the default models a command would load. A task command's `--overlay DIR` and `--masks DIR` are filled with
/// files named after its inputs (`OutputNames`, with the command's `maskSuffixes`); another command's folder is
/// filled with the names its `folderOutputNames` allows. Inputs that come later (`--stdin`) are checked as each is
/// taken (`checkWorkerInput`), and every file is checked once more as it is put in place (`OutputFile.commit`).
enum OutputRule {
    /// The option names that are outputs, in every command.
    static let outputOptions: Set<String> = ["--out", "--overlay", "--masks"]

    private static let lock = NSLock()
    /// The inputs of the run by identity, each as the command line named it.
    nonisolated(unsafe) private static var inputs: [OutputPath.Identity: String] = [:]
    /// The inputs by canonical folder and name (a link by its own name), for names a video's frames may take.
    nonisolated(unsafe) private static var entries: [String: String] = [:]
    /// Folder outputs filled with a video's frames: (canonical folder, name, suffix) and the input.
    nonisolated(unsafe) private static var frameClaims: [FrameClaim] = []

    struct FrameClaim {
        let folder: String, name: OutputNames.Name, suffix: String, option: String, value: String, source: String
    }

    /// The input the file at `path` is, if it is one (followed to the file it names).
    static func input(at path: String) -> String? {
        guard let id = OutputPath.identity(path) else { return nil }
        lock.lock(); defer { lock.unlock() }
        return inputs[id]
    }

    /// The files of a folder input that are read: photos and frames, and models (`models fetch --shared DIR`).
    /// Others (a CSV an earlier run wrote there) are not inputs.
    static let readExtensions = FrameInput.imageExtensions.union(["tflite", "task"])

    /// Adds `path` to the run's inputs: a file, or a folder with the files in it that are read (`readExtensions`),
    /// down to `depth` levels (a task command reads a folder's photos, a dataset command DATASET/label/photo). A
    /// path that does not exist adds nothing; `bundle.task:member` adds the bundle.
    static func register(_ path: String, depth: Int = 2) {
        var path = path
        if OutputPath.kind(path, following: true) == .missing, let colon = path.firstIndex(of: ":") {
            path = String(path[..<colon])
        }
        guard let id = OutputPath.identity(path) else { return }
        var found: [(OutputPath.Identity, String, String)] = []
        found.append((id, path, OutputPath.canonicalEntry(path)))
        if OutputPath.kind(path, following: true) == .folder { expand(path, depth: depth, into: &found) }
        lock.lock(); defer { lock.unlock() }
        for (id, shown, entry) in found {
            if inputs[id] == nil { inputs[id] = shown }
            if entries[entry] == nil { entries[entry] = shown }
        }
    }

    /// The files of `folder` and of its subfolders down to `depth` levels (at most 100,000).
    private static func expand(_ folder: String, depth: Int,
                               into found: inout [(OutputPath.Identity, String, String)]) {
        guard depth > 0, found.count < 100_000, let names = NativePath.contentsOfDirectory(folder) else { return }
        let real = OutputPath.canonical(folder)
        for name in names.sorted() {
            let path = PathText.join(folder, name)
            guard let id = OutputPath.identity(path) else { continue }
            if OutputPath.kind(path, following: true) == .folder {
                expand(path, depth: depth - 1, into: &found)
            } else if readExtensions.contains(PathText.fileExtension(name).lowercased()) {
                found.append((id, path, PathText.join(real, name)))
            }
        }
    }

    // MARK: - The plan of a command line

    /// One output of the command line: a file, or a folder and the names written into it.
    struct Output {
        enum Written {
            /// The option's value is the file.
            case file
            /// Files named after the inputs (`OutputNames`), each name with every suffix.
            case perInput(suffixes: [String])
            /// Files whose names pass the test (`model run`'s 0.npy, 1.npy...); nil: any name.
            case named(((String) -> Bool)?)
        }
        let option: String
        let value: String
        let written: Written
    }

    /// The outputs the options name, with what each writes. An option is a folder when its placeholder is DIR, a
    /// file when it names one (FILE.csv, F.task); `DIR|FILE.mp4` is a file when the value is one (`OverlayPath`).
    static func outputs(of command: any VisionCommand.Type, _ o: ParsedOptions) throws -> [Output] {
        var outputs: [Output] = []
        for spec in o.table.options where outputOptions.contains(spec.name) {
            guard let value = o.string(spec.name) else { continue }
            let alternatives = spec.placeholder.split(separator: "|").map(String.init)
            var folder = alternatives.allSatisfy { $0 == "DIR" }
            if alternatives.contains("DIR") && alternatives.count > 1 {
                folder = try OverlayPath.kind(value, option: spec.name) == .folder
            }
            let task = command as? any TaskCommand.Type
            let written: Output.Written
            if !folder {
                written = .file
            } else if let task, spec.name == "--overlay" || spec.name == "--masks" {
                written = .perInput(suffixes: spec.name == "--masks" ? task.maskSuffixes(o) : [""])
            } else {
                written = .named(command.folderOutputNames(o))
            }
            outputs.append(Output(option: spec.name, value: value, written: written))
        }
        return outputs
    }

    /// Checks the command line before any work: each output path (`OutputPath`), then that no output replaces an
    /// input and no two outputs share a file. Registers the run's inputs for the checks made later.
    static func check(_ command: any VisionCommand.Type, _ o: ParsedOptions) throws {
        let outputs = try outputs(of: command, o)
        for output in outputs {
            if case .file = output.written {
                try OutputPath.file(output.value, option: output.option)
            } else {
                try OutputPath.folder(output.value, option: output.option)
            }
        }
        guard !outputs.isEmpty else { return }
        // A task command reads a folder's photos; other commands a dataset's DATASET/label/photo.
        registerInputs(of: o, folderDepth: command is any TaskCommand.Type ? 1 : 2)
        if let task = command as? any TaskCommand.Type { try task.checkOutputs(o, outputs) }
        let names = outputs.contains { if case .perInput = $0.written { return true } else { return false } }
            ? OutputNames.names(of: o) : []
        var planned: [String: (output: Output, shown: String, source: String?)] = [:]
        for output in outputs {
            switch output.written {
            case .file:
                let target = (try? OutputPath.resolvingLinks(output.value, option: output.option)) ?? output.value
                try claim(OutputPath.canonicalEntry(target), output: output, shown: output.value, source: nil,
                          in: &planned)
            case .perInput(let suffixes):
                let folder = OutputPath.canonical(output.value)
                for (source, name) in names {
                    for suffix in suffixes {
                        try claim(name, suffix: suffix, folder: folder, output: output, source: source,
                                  in: &planned)
                    }
                }
            case .named(let test):
                guard let test else { continue }
                let folder = OutputPath.canonical(output.value)
                if let input = inputEntry(in: folder, where: test) {
                    let shown = PathText.join(output.value, PathText.lastComponent(input.entry))
                    throw OutputError.replacesInput(option: output.option, value: output.value, path: shown,
                                                    input: input.shown)
                }
            }
        }
    }

    /// Registers every path the options name that is not an output, and the default models the command may load.
    static func registerInputs(of o: ParsedOptions, folderDepth: Int) {
        for path in o.positional { register(path, depth: folderDepth) }
        for spec in o.table.options where !outputOptions.contains(spec.name) {
            if case .text = spec.value {
                let given = o.strings(spec.name)
                for value in given { register(value, depth: folderDepth) }
                // A default model (`Models/face_landmarker.task`, `gesture_recognizer.task, found as models are`).
                if given.isEmpty, let note = spec.defaultNote {
                    for word in note.split(whereSeparator: { " ,()".contains($0) })
                    where word.hasSuffix(".task") || word.hasSuffix(".tflite") {
                        if let path = ModelLocator.locate(PathText.lastComponent(String(word))) { register(path) }
                    }
                }
            }
        }
    }

    /// Checks one worker input (`--stdin`) as it is taken: registers it, and checks the files its overlays and masks
    /// would write against the inputs so far and against the files claimed by earlier inputs.
    static func checkWorkerInput(_ path: String, _ o: ParsedOptions) throws {
        register(path, depth: 1)
        guard let command = Commands.named(o.table.command) else { return }
        let outputs = try outputs(of: command, o)
        var planned: [String: (output: Output, shown: String, source: String?)] = [:]
        for output in outputs {
            guard case .perInput(let suffixes) = output.written else { continue }
            let folder = OutputPath.canonical(output.value)
            for (source, name) in OutputNames.names(ofInput: path, video: OutputNames.isWorkerVideo(path)) {
                for suffix in suffixes {
                    try claim(name, suffix: suffix, folder: folder, output: output, source: source, in: &planned)
                }
            }
        }
    }

    // MARK: - Claims

    /// Claims one name an input writes into a folder output.
    private static func claim(_ name: OutputNames.Name, suffix: String, folder: String, output: Output,
                              source: String, in planned: inout [String: (output: Output, shown: String,
                                                                            source: String?)]) throws {
        let shown = PathText.join(output.value, name.shown(suffix: suffix))
        switch name {
        case .file:
            try claim(PathText.join(folder, name.shown(suffix: suffix)), output: output, shown: shown, source: source,
                      in: &planned)
        case .frames:
            if let input = inputEntry(in: folder, where: { name.writes($0, suffix: suffix) }) {
                let written = PathText.join(output.value, PathText.lastComponent(input.entry))
                throw OutputError.replacesInput(option: output.option, value: output.value, path: written,
                                                input: input.shown)
            }
            lock.lock()
            let earlier = frameClaims.first { $0.folder == folder && $0.name == name && $0.suffix == suffix }
            let exact = OutputFile.claims(in: folder).first { name.writes($0.name, suffix: suffix) }
            if earlier == nil {
                frameClaims.append(FrameClaim(folder: folder, name: name, suffix: suffix, option: output.option,
                                              value: output.value, source: source))
            }
            lock.unlock()
            if let earlier, earlier.source != source || earlier.option != output.option {
                throw clash(shown, first: (earlier.option, earlier.value, earlier.source),
                            second: (output.option, output.value, source))
            }
            if let exact, exact.source != source {
                throw clash(shown, first: (output.option, output.value, exact.source),
                            second: (output.option, output.value, source))
            }
        }
    }

    /// Claims the file at canonical path `key`: refused if it is an input, or another output of the run.
    private static func claim(_ key: String, output: Output, shown: String, source: String?,
                              in planned: inout [String: (output: Output, shown: String, source: String?)]) throws {
        if let input = input(at: key) ?? entry(key) {
            let path = shown == output.value ? output.value : shown
            throw OutputError.replacesInput(option: output.option, value: output.value, path: path, input: input)
        }
        if let first = planned[key] {
            if first.output.option != output.option || first.source != source {
                throw clash(shown, first: (first.output.option, first.output.value, first.source),
                            second: (output.option, output.value, source))
            }
            return
        }
        lock.lock()
        let frames = frameClaims.first { claim in
            key.hasPrefix(claim.folder + "/") && claim.name.writes(PathText.lastComponent(key), suffix: claim.suffix)
                && PathText.parent(key) == claim.folder
        }
        lock.unlock()
        if let frames {
            throw clash(shown, first: (frames.option, frames.value, frames.source),
                        second: (output.option, output.value, source))
        }
        if let source {
            do { try OutputFile.claim(key, by: source) } catch {
                throw clash(shown, first: (output.option, output.value, OutputFile.claimant(key)),
                            second: (output.option, output.value, source))
            }
        }
        planned[key] = (output, shown, source)
    }

    /// The one-line refusal of two outputs sharing `path`.
    private static func clash(_ path: String, first: (option: String, value: String, source: String?),
                              second: (option: String, value: String, source: String?)) -> UsageError {
        if first.option == second.option, let a = first.source, let b = second.source, a != b {
            return UsageError("\(second.option) \(second.value): \(a) and \(b) would both write \(path); give inputs "
                              + "of distinct names (or run them into separate folders)")
        }
        return UsageError("\(first.option) \(first.value) and \(second.option) \(second.value) would both write "
                          + "\(path); give them different places")
    }

    /// An input that is the entry `key` (canonical folder and own name), if any.
    private static func entry(_ key: String) -> String? {
        lock.lock(); defer { lock.unlock() }
        return entries[key]
    }

    /// An input directly in the canonical `folder` whose name passes `test`.
    private static func inputEntry(in folder: String, where test: (String) -> Bool) -> (entry: String, shown: String)? {
        lock.lock(); defer { lock.unlock() }
        return entries.filter { key, _ in PathText.parent(key) == folder && test(PathText.lastComponent(key)) }
            .min { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
