import Foundation
import TasksVision
import TasksVisionFormat

/// `vision models`: the known models, where `ModelLocator` finds each, and the search folders.
enum ModelsCommand: VisionCommand {
    static let table = OptionTable(
        command: "models", summary: "The known models, where each is installed, and the folders searched.",
        positional: [],
        options: [
            .flag("--verify", "check each found file's sha256 against the manifest too"),
            .flag("--manifest", "print the known models' sha256 checksums, as sha256sum prints them"),
        ],
        notes: ["vision models fetch installs them (see vision models fetch --help)."])

    static func run(_ options: ParsedOptions) throws {
        if let extra = options.positional.first {
            throw UsageError("unknown models command '\(extra)' (try 'vision models --help')")
        }
        if options.flag("--manifest") {
            for model in ModelCatalog.models.sorted(by: { $0.name < $1.name }) {
                for digest in model.accepted { print("\(digest)  \(model.name)") }
            }
            return
        }
        list(verify: options.flag("--verify"))
    }

    /// One line per model (name, source, path or "missing"), then the search folders in order.
    static func list(verify: Bool) {
        let models = ModelCatalog.models.sorted { $0.name < $1.name }
        let width = models.map(\.name.count).max() ?? 0
        func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(1, n - s.count)) }
        print(pad("model", width + 2) + pad("source", 8) + "installed")
        var found = 0
        for model in models {
            var installed = "missing"
            if let path = ModelLocator.locate(model.name) {
                found += 1
                installed = path
                if verify {
                    let digest = try? SHA256.hexDigest(ofFile: path)
                    installed += digest == model.sha256 ? " (sha256 ok)"
                        : digest.map(model.accepted.contains) == true ? " (sha256 ok: the assembled fallback)"
                        : " (sha256 differs from the manifest)"
                }
            }
            print(pad(model.name, width + 2) + pad(model.source.kind, 8) + installed)
        }
        print("\(found) of \(models.count) models found")
        print("search order: the path as given, then these folders:")
        let folders = ModelLocator.searchFolders
        let labelWidth = folders.map(\.label.count).max() ?? 0
        for (i, folder) in folders.enumerated() {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory)
                && isDirectory.boolValue
            let note = exists ? "" : " (does not exist)"
            print("  \(i + 1). " + pad(folder.label, labelWidth + 2) + folder.path + note)
        }
    }

    /// `$XDG_CACHE_HOME/tasksvision`, by default `~/.cache/tasksvision` (`~/Library/Caches` on Apple platforms).
    static func cacheFolder(_ environment: [String: String]) -> String {
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") { return cache + "/tasksvision" }
        let home = environment["HOME"] ?? NSHomeDirectory()
        #if canImport(Darwin)
        return home + "/Library/Caches/tasksvision"
        #else
        return home + "/.cache/tasksvision"
        #endif
    }
}

/// `vision models fetch`: installs every known model into the per-user folder (or `--out DIR`).
enum ModelsFetchCommand: VisionCommand {
    static let table = OptionTable(
        command: "models fetch", summary: "Install every known model into the per-user folder (or --out DIR).",
        positional: [],
        options: [
            .text("--out", "DIR", default: "the user folder", "the folder to install into (old name: --to)"),
            .text("--wheel", "FILE", default: "PyPI, cached in $XDG_CACHE_HOME/tasksvision",
                  "the mediapipe 0.10.14 wheel, if already downloaded"),
            .text("--shared", "DIR", default: "$TASKSVISION_SHARED, ../shared",
                  "a folder whose models/ holds the shared models"),
        ])

    /// The known models' names.
    static func folderOutputNames(_ options: ParsedOptions) -> ((String) -> Bool)? {
        let names = Set(ModelCatalog.models.map(\.name))
        return { names.contains($0) }
    }

    static func run(_ parser: ParsedOptions) throws {
        if let extra = parser.positional.first { throw UsageError("models fetch takes no argument '\(extra)'") }
        let environment = ProcessInfo.processInfo.environment
        let cwd = FileManager.default.currentDirectoryPath
        func absolute(_ path: String) -> String {
            ((path.hasPrefix("/") ? path : cwd + "/" + path) as NSString).standardizingPath
        }
        let destination = absolute(parser.string("--out") ?? ModelLocator.userFolder)
        try OutputPath.folder(destination, option: "--out")
        let folders = ModelLocator.searchFolders
        let copyFolders = folders.map { ($0.path as NSString).standardizingPath }.filter { $0 != destination }
        var shared: [String] = []
        if let dir = parser.string("--shared") { shared.append(absolute(dir) + "/models") }
        if let dir = environment["TASKSVISION_SHARED"], !dir.isEmpty { shared.append(absolute(dir) + "/models") }
        shared.append(absolute(cwd + "/../shared/models"))
        for folder in folders where folder.label == "executable" || folder.label == "package" {
            shared.append(absolute(folder.path + "/../../shared/models"))
        }
        var seen = Set<String>()
        shared = shared.filter { seen.insert($0).inserted }

        let log: (String) -> Void = { print("models: \($0)") }
        let wheel = WheelLocator(wheel: ModelCatalog.wheel, explicitFile: parser.string("--wheel").map(absolute),
                                 cacheFolder: ModelsCommand.cacheFolder(environment), log: log)
        let fetcher = ModelFetcher(destination: destination, copyFolders: copyFolders, sharedFolders: shared,
                                   wheelLocator: wheel, log: log,
                                   warn: { FileHandle.standardError.write(Data("vision: models fetch: \($0)\n".utf8)) })
        let report = try fetcher.run()
        let total = ModelCatalog.models.count
        guard report.failed.isEmpty else {
            throw ModelFetcher.Failure(description: "models fetch: \(report.failed.count) of \(total) models could not"
                                       + " be installed in \(destination): " + report.failed.joined(separator: ", "))
        }
        print("models: all \(total) models in \(destination) match their checksums"
              + " (\(report.installed) installed, \(report.present) already there)")
    }
}
