import Foundation

/// Finds model files from a name or a path, so that a program finds its models wherever they
/// were installed.
///
/// `locate` and `resolve` try, in this order:
///
/// 1. the path as given, if it names a file or a model folder (absolute, or relative to the working directory;
///    `~/` is the home folder). A bundle member path, `bundle.task:member.tflite` (nested with
///    more colons), is found by its file part and returned with its members;
/// 2. `$TASKSVISION_MODELS/<name>`;
/// 3. the per-user folder: `$XDG_DATA_HOME/tasksvision/models`, by default
///    `~/.local/share/tasksvision/models` (on Apple platforms
///    `~/Library/Application Support/tasksvision/models`); `vision models fetch` fills it;
/// 4. `Models/` in the working directory;
/// 5. `Models/` beside the executable (found through `/proc/self/exe`, `Bundle.main` or
///    `CommandLine.arguments[0]`, symlinks followed), and, for an executable built by SwiftPM
///    (`<package>/.build/...`, or `.build-*` for another scratch path), the package's `Models/`.
///
/// An absolute path is only tried as given. A bare name, or a relative path that does not
/// exist as given, is looked for in the folders of steps 2-5: first by the relative path
/// (`sub/x.tflite`), then by its last component (`x.tflite`). So `Models/x.tflite` and
/// `x.tflite` both find an installed `x.tflite` from any working directory.
///
/// 6. When a model is nowhere and another file has its weights under another name (`sameWeights`), that file,
///    found by steps 1-5: a user whose set-up could reach only the mediapipe wheel still runs the tasks. So
///    too a file that stands in for a model not published where set-up can reach it (`standIns`).
public enum ModelLocator {
    /// Models whose weights, operators and inputs another model file has, under another name: the MediaPipe Tasks
    /// copy (first) adds 32 bytes of TFLite metadata (version, author) to the file in MediaPipe's Python wheel
    /// (second). The tasks give the same results with either.
    public static let sameWeights: [String: String] = [
        "blaze_face_short_range.tflite": "face_detection_short_range.tflite",
        "hand_detector.tflite": "palm_detection_full.tflite",
    ]

    /// Bundles that another file stands in for where they are missing: holistic_landmarker_assembled.task holds
    /// the official member models under the names holistic_landmarker_graph.cc reads (its hand ROI refinement
    /// model is the legacy holistic graph's hand re-crop model, not the official bundle's float16 copy).
    public static let standIns: [String: String] = [
        "holistic_landmarker.task": "holistic_landmarker_assembled.task",
    ]

    /// The folders of steps 2-5, in search order, duplicates removed.
    public static var searchFolders: [ModelFolder] { ModelSearch.process.folders }

    /// The per-user model folder (step 3), whether or not it exists.
    public static var userFolder: String { ModelSearch.process.userFolder }

    /// The path of the model file, with any bundle members appended, or nil if it is nowhere.
    public static func locate(_ nameOrPath: String) -> String? { ModelSearch.process.locate(nameOrPath) }

    /// The path of the model file, with any bundle members appended; throws
    /// `ModelNotFoundError` listing every path looked at when it is nowhere.
    public static func resolve(_ nameOrPath: String) throws -> String {
        try ModelSearch.process.resolve(nameOrPath)
    }
}

/// A folder that `ModelLocator` searches, with a label saying why.
public struct ModelFolder: Sendable, Equatable, CustomStringConvertible {
    /// "TASKSVISION_MODELS", "user", "working directory", "executable" or "package".
    public let label: String
    /// The folder's absolute path.
    public let path: String

    /// A folder at `path`, searched for the reason `label` gives.
    public init(label: String, path: String) {
        self.label = label
        self.path = path
    }

    /// "path (label)".
    public var description: String { "\(path) (\(label))" }
}

/// A model that `ModelLocator.resolve` found nowhere, with every path it looked at.
public struct ModelNotFoundError: Error, Equatable, CustomStringConvertible {
    /// One file path looked at, and the search step it belongs to ("as given" or a folder's label).
    public struct Place: Sendable, Equatable {
        /// The file path tried.
        public let path: String
        /// "as given", or the label of the folder it is in.
        public let label: String

        /// The path `path`, tried by the step `label`.
        public init(path: String, label: String) {
            self.path = path
            self.label = label
        }
    }

    /// The name or path asked for.
    public let model: String
    /// The paths looked at, in order.
    public let searched: [Place]

    /// `model` was at none of the `searched` places.
    public init(model: String, searched: [Place]) {
        self.model = model
        self.searched = searched
    }

    /// The model asked for, then every path looked at with its label, on one line (a command line
    /// prints errors as one line).
    public var description: String {
        let places = searched.map { "\($0.path) (\($0.label))" }.joined(separator: ", ")
        return "model '\(model)' not found; looked at: \(places); "
            + "`vision models fetch` installs the known models in the user folder, or give the model's path"
    }
}

/// The search of `ModelLocator` over one environment: the process's, or one given by tests.
struct ModelSearch {
    let environment: [String: String]
    let workingDirectory: String
    /// The executable with symlinks followed, if known.
    let executable: String?
    let home: String

    /// Takes the environment, working directory and executable path (symlinks are followed
    /// here) explicitly; `home` defaults to `$HOME`.
    init(environment: [String: String], workingDirectory: String, executablePath: String?, home: String? = nil) {
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.home = home ?? environment["HOME"] ?? NSHomeDirectory()
        executable = executablePath.map { path in
            let absolute = path.hasPrefix("/") ? path : workingDirectory + "/" + path
            return URL(fileURLWithPath: absolute).resolvingSymlinksInPath().path
        }
    }

    /// The running process's environment, working directory and executable.
    static var process: ModelSearch {
        let cwd = FileManager.default.currentDirectoryPath
        return ModelSearch(environment: ProcessInfo.processInfo.environment, workingDirectory: cwd,
                           executablePath: currentExecutable(workingDirectory: cwd))
    }

    static func currentExecutable(workingDirectory: String) -> String? {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        #endif
        if let path = Bundle.main.executablePath { return path }
        if let first = CommandLine.arguments.first, first.contains("/") { return first }
        return nil
    }

    var userFolder: String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/tasksvision/models" }
        #if canImport(Darwin)
        return home + "/Library/Application Support/tasksvision/models"
        #else
        return home + "/.local/share/tasksvision/models"
        #endif
    }

    var folders: [ModelFolder] {
        var list: [ModelFolder] = []
        if let env = environment["TASKSVISION_MODELS"], !env.isEmpty {
            var path = absolute(expandingTilde(env))
            while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
            list.append(ModelFolder(label: "TASKSVISION_MODELS", path: path))
        }
        list.append(ModelFolder(label: "user", path: userFolder))
        list.append(ModelFolder(label: "working directory", path: workingDirectory + "/Models"))
        if let executable {
            let folder = (executable as NSString).deletingLastPathComponent
            list.append(ModelFolder(label: "executable", path: folder + "/Models"))
            let components = folder.split(separator: "/", omittingEmptySubsequences: false)
            // SwiftPM's scratch folder: `.build`, or one named by --scratch-path such as `.build-asan`.
            if let build = components.lastIndex(where: { $0 == ".build" || $0.hasPrefix(".build-") }) {
                let package = components[..<build].joined(separator: "/")
                list.append(ModelFolder(label: "package", path: package + "/Models"))
            }
        }
        var seen = Set<String>()
        return list.filter { seen.insert(($0.path as NSString).standardizingPath).inserted }
    }

    /// Every file path to try for `nameOrPath`, in order, and the member suffix (":a:b" or "").
    func places(for nameOrPath: String) -> (places: [ModelNotFoundError.Place], members: String) {
        let given = expandingTilde(nameOrPath)
        var places = [ModelNotFoundError.Place(path: absolute(given), label: "as given")]
        var file = given, members = ""
        if !isFile(absolute(given)), let colon = given.firstIndex(of: ":") {
            file = String(given[..<colon])
            members = String(given[colon...])
            places.append(.init(path: absolute(file), label: "as given"))
        }
        guard !file.hasPrefix("/"), !file.isEmpty else { return (places, members) }
        var names = [file]
        let last = (file as NSString).lastPathComponent
        if last != file { names.append(last) }
        for folder in folders {
            for name in names { places.append(.init(path: folder.path + "/" + name, label: folder.label)) }
        }
        return (places, members)
    }

    func locate(_ nameOrPath: String) -> String? {
        if let path = locateAsNamed(nameOrPath) { return path }
        // Step 6: the same weights under another name, found as that name would be.
        let name = (nameOrPath as NSString).lastPathComponent
        guard let other = ModelLocator.sameWeights[name] ?? ModelLocator.standIns[name] else { return nil }
        return locateAsNamed(String(nameOrPath.dropLast(name.count)) + other)
    }

    private func locateAsNamed(_ nameOrPath: String) -> String? {
        let (places, members) = places(for: nameOrPath)
        // A folder given as the path is a model too: the tasks read a bundle's member files from one.
        if let first = places.first, FileManager.default.fileExists(atPath: first.path) { return first.path }
        return places.dropFirst().first { isFile($0.path) }.map { $0.path + members }
    }

    func resolve(_ nameOrPath: String) throws -> String {
        if let path = locate(nameOrPath) { return path }
        throw ModelNotFoundError(model: nameOrPath, searched: places(for: nameOrPath).places)
    }

    private func isFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }

    private func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : workingDirectory + "/" + path
    }

    private func expandingTilde(_ path: String) -> String {
        if path == "~" { return home }
        return path.hasPrefix("~/") ? home + path.dropFirst() : path
    }
}
