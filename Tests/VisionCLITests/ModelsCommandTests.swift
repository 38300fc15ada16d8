import Foundation
import TasksVisionFormat
import XCTest

/// `vision models` and `vision models fetch`, run as a process (often a copy of the binary in
/// an empty folder) with an environment of the test's making.
final class ModelsCommandTests: XCTestCase {
    let photo = CLI.shared + "/testdata/images/face_frontal_1.png"

    /// Runs `executable` in `cwd` with the test process's environment minus the model variables,
    /// plus `environment`.
    func run(_ args: [String], in cwd: String, environment: [String: String] = [:]) throws -> CLI.Result {
        try run(CLI.executable, args, in: cwd, environment: environment)
    }

    func run(_ executable: String, _ args: [String], in cwd: String,
             environment: [String: String] = [:]) throws -> CLI.Result {
        var env = ProcessInfo.processInfo.environment
        for key in ["TASKSVISION_MODELS", "TASKSVISION_SHARED", "XDG_DATA_HOME"] { env[key] = nil }
        env.merge(environment) { $1 }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = args
        process.environment = env
        process.currentDirectoryURL = URL(fileURLWithPath: cwd)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLI.Result(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                          stderr: String(decoding: e, as: UTF8.self))
    }

    /// An empty folder two levels below the temporary folder (so its ../shared is not the machine's).
    func emptyFolder() throws -> String {
        let dir = try CLI.temporaryDirectory(removedAfter: self) + "/empty"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A copy of the built `vision` in `dir`.
    func copyOfVision(in dir: String) throws -> String {
        let copy = dir + "/vision"
        try FileManager.default.copyItem(atPath: CLI.executable, toPath: copy)
        return copy
    }

    /// Models/MANIFEST.sha256 as name -> the checksums accepted (an official bundle's assembled one second).
    func manifest(_ text: String) -> [String: [String]] {
        var entries: [String: [String]] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count == 2 { entries[String(parts[1]), default: []].append(String(parts[0])) }
        }
        return entries
    }

    func knownModels() throws -> [String: [String]] {
        manifest(try String(contentsOfFile: CLI.models + "/MANIFEST.sha256", encoding: .utf8))
    }

    func testListsEveryKnownModelWhereTheLocatorFindsIt() throws {
        let dir = try emptyFolder()
        let r = try run(["models"], in: dir, environment: ["TASKSVISION_MODELS": CLI.models])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let known = try knownModels()
        XCTAssertEqual(known.count, 35)
        XCTAssertEqual(lines.first?.split(separator: " "), ["model", "source", "installed"])
        for name in known.keys {
            let line = try XCTUnwrap(lines.first { $0.hasPrefix(name + " ") }, name)
            XCTAssertTrue(line.hasSuffix(" " + CLI.models + "/" + name), line)
        }
        let kinds = ["palm_detection_full.tflite": "wheel", "blaze_face_short_range.tflite": "shared",
                     "hand_landmarker.task": "official", "pose_landmarker_lite.task": "bundle",
                     "hand_gesture_recognizer_with_custom_classifier.task": "shared"]
        XCTAssertEqual(known.filter { $0.value.count == 2 }.keys.sorted(),
                       ["gesture_recognizer.task", "hand_landmarker.task", "pose_landmarker_full.task"])
        for (name, kind) in kinds {
            XCTAssertEqual(lines.first { $0.hasPrefix(name + " ") }?.split(separator: " ")[1], Substring(kind), name)
        }
        XCTAssertTrue(lines.contains("\(known.count) of \(known.count) models found"), r.stdout)
        let folders = lines.drop { !$0.hasPrefix("search order") }.dropFirst()
        // The package's Models/ (the test binary is in .build) is TASKSVISION_MODELS here, so listed once.
        XCTAssertEqual(folders.map { $0.split(separator: " ")[1] },
                       ["TASKSVISION_MODELS", "user", "working", "executable"], r.stdout)
        XCTAssertTrue(folders.first?.hasSuffix(" " + CLI.models) ?? false, r.stdout)
        XCTAssertTrue(folders.contains { $0.hasSuffix(dir + "/Models (does not exist)") }, r.stdout)
    }

    func testCopiedBinaryListsEveryModelAsMissing() throws {
        let dir = try emptyFolder()
        let r = try run(try copyOfVision(in: dir), ["models"], in: dir, environment: ["XDG_DATA_HOME": dir + "/data"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let known = try knownModels()
        let modelLines = r.stdout.split(separator: "\n").filter { known[String($0.prefix { $0 != " " })] != nil }
        XCTAssertEqual(modelLines.count, known.count, r.stdout)
        XCTAssertTrue(modelLines.allSatisfy { $0.hasSuffix(" missing") }, r.stdout)
        XCTAssertTrue(r.stdout.contains("0 of \(known.count) models found"), r.stdout)
        let user = r.stdout.split(separator: "\n").first { $0.hasPrefix("  1. user ") }
        XCTAssertTrue(user?.hasSuffix(" " + dir + "/data/tasksvision/models (does not exist)") ?? false, r.stdout)
    }

    /// `--manifest` prints the checksums built into the binary: those of Models/MANIFEST.sha256.
    func testManifestOptionMatchesModelsManifest() throws {
        let r = try run(["models", "--manifest"], in: try emptyFolder())
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(manifest(r.stdout), try knownModels())
        XCTAssertEqual(r.stdout.split(separator: "\n").count, try knownModels().values.map(\.count).reduce(0, +))
        for line in r.stdout.split(separator: "\n") {
            XCTAssertNotNil(String(line).range(of: "^[0-9a-f]{64}  \\S+$", options: .regularExpression), String(line))
        }
    }

    func testVerifyChecksEachFoundFile() throws {
        let dir = try emptyFolder()
        let good = "canned_gesture_classifier.tflite", bad = "face_detection_short_range.tflite"
        try FileManager.default.copyItem(atPath: CLI.models + "/" + good, toPath: dir + "/" + good)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: CLI.models + "/" + bad))
        bytes[100] ^= 1
        try bytes.write(to: URL(fileURLWithPath: dir + "/" + bad))
        let r = try run(["models", "--verify"], in: dir, environment: ["TASKSVISION_MODELS": dir])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.hasPrefix(good) && $0.hasSuffix(dir + "/" + good + " (sha256 ok)") },
                      r.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix(bad) && $0.hasSuffix(" (sha256 differs from the manifest)") },
                      r.stdout)
    }

    /// The done criterion of "models found anywhere": a `vision` binary copied into an empty folder
    /// finds its models after `vision models fetch`. The wheel comes from the download cache
    /// ($XDG_CACHE_HOME/tasksvision), so only the first run ever downloads it.
    func testCopiedBinaryFindsItsModelsAfterFetch() throws {
        let dir = try emptyFolder()
        let vision = try copyOfVision(in: dir)
        let environment = ["XDG_DATA_HOME": dir + "/data", "TASKSVISION_SHARED": CLI.shared]
        let before = try run(vision, ["faces", "--json", photo], in: dir, environment: environment)
        XCTAssertEqual(before.status, 1)
        XCTAssertTrue(before.stderr.contains("model 'blaze_face_short_range.tflite' not found"), before.stderr)

        let fetch = try run(vision, ["models", "fetch"], in: dir, environment: environment)
        if fetch.status != 0 && fetch.stderr.contains("cannot reach") {
            throw XCTSkip("offline, and the mediapipe wheel is not in the download cache: \(fetch.stderr)")
        }
        XCTAssertEqual(fetch.status, 0, fetch.stderr)
        let models = dir + "/data/tasksvision/models"
        let count = try knownModels().count
        XCTAssertTrue(fetch.stdout.contains("models: all \(count) models in \(models) match their checksums"), fetch.stdout)
        for (name, digest) in try knownModels() {
            let data = try Data(contentsOf: URL(fileURLWithPath: models + "/" + name))
            let expected = try Data(contentsOf: URL(fileURLWithPath: CLI.models + "/" + name))
            XCTAssertEqual(data, expected, "\(name) \(digest)")
        }

        let again = try run(vision, ["models", "fetch", "--wheel", dir + "/no-such.whl"], in: dir,
                            environment: environment)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("(0 installed, \(count) already there)"), again.stdout)

        let faces = try run(vision, ["faces", "--json", photo], in: dir, environment: environment)
        XCTAssertEqual(faces.status, 0, faces.stderr)
        let line = try JSONSerialization.jsonObject(with: Data(faces.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(((line?["result"] as? [String: Any])?["detections"] as? [Any])?.count, 1, faces.stdout)
        let listed = try run(vision, ["models"], in: dir, environment: environment)
        XCTAssertTrue(listed.stdout.contains("\(count) of \(count) models found"), listed.stdout)
    }

    /// Without the official hand, gesture and full pose bundles (a shared folder lacking them, no network), `models
    /// fetch` assembles them from the wheel's and the shared folder's models, as before: the manifest's second
    /// checksum of each, and the other bundles' bytes unchanged.
    func testOfficialBundlesFallBackToAssembledOnes() throws {
        let dir = try emptyFolder()
        let official = ["hand_landmarker.task", "gesture_recognizer.task", "pose_landmarker_full.task"]
        let shared = dir + "/shared/models"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: CLI.shared + "/models")
            where !official.contains(name) {
            try FileManager.default.createSymbolicLink(atPath: shared + "/" + name,
                                                       withDestinationPath: CLI.shared + "/models/" + name)
        }
        let environment = ["XDG_DATA_HOME": dir + "/data", "TASKSVISION_SHARED": dir + "/shared",
                           "https_proxy": "http://127.0.0.1:9"]
        let fetch = try run(try copyOfVision(in: dir), ["models", "fetch"], in: dir, environment: environment)
        if fetch.status != 0 && fetch.stderr.contains("wheel") {
            throw XCTSkip("the mediapipe wheel is not in the download cache: \(fetch.stderr)")
        }
        XCTAssertEqual(fetch.status, 0, fetch.stderr)
        let known = try knownModels()
        for name in official {
            XCTAssertTrue(fetch.stdout.contains("models: \(name): the official bundle could not be had"), fetch.stdout)
            let digest = SHA256.hexDigest(of: try ModelAsset.readFile(dir + "/data/tasksvision/models/" + name))
            XCTAssertEqual(digest, known[name]?.last, name)
        }
        let custom = "gesture_recognizer_with_custom_classifier.task"
        let bytes = try ModelAsset.readFile(dir + "/data/tasksvision/models/" + custom)
        XCTAssertEqual(SHA256.hexDigest(of: bytes), known[custom]?.first)
    }

    /// With no wheel, no shared folder and no network, each model gets one line saying why, then
    /// the command fails naming the folder.
    func testFetchSaysWhatItCannotGetOneLineEach() throws {
        let dir = try emptyFolder()
        let environment = ["XDG_DATA_HOME": dir + "/data", "XDG_CACHE_HOME": dir + "/cache",
                           "TASKSVISION_SHARED": dir + "/no-shared", "https_proxy": "http://127.0.0.1:9"]
        let r = try run(try copyOfVision(in: dir), ["models", "fetch", "--to", "out", "--wheel", "none.whl"], in: dir,
                        environment: environment)
        XCTAssertEqual(r.status, 1)
        let lines = r.stderr.split(separator: "\n")
        let count = try knownModels().count
        XCTAssertEqual(lines.count, count + 1, r.stderr)
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("vision: models fetch: ") }, r.stderr)
        XCTAssertTrue(r.stderr.contains("palm_detection_full.tflite: --wheel \(dir)/none.whl: no such file"), r.stderr)
        XCTAssertTrue(r.stderr.contains("palm_detection_lite.tflite: needs the mediapipe wheel"), r.stderr)
        XCTAssertTrue(r.stderr.contains("hand_detector.tflite: not found in \(dir)/no-shared/models"), r.stderr)
        XCTAssertTrue(r.stderr.contains("blaze_face_short_range.tflite: https://storage.googleapis.com/"), r.stderr)
        XCTAssertTrue(r.stderr.contains("hand_landmarker.task: needs hand_detector.tflite"), r.stderr)
        XCTAssertTrue(lines.last?.hasPrefix("vision: models fetch: \(count) of \(count) models could not be installed in "
                                            + dir + "/out: ") ?? false, r.stderr)
    }

    func testUsageErrors() throws {
        let dir = try emptyFolder()
        let list = try run(["models", "list"], in: dir)
        XCTAssertEqual(list.status, 1)
        XCTAssertTrue(list.stderr.contains("unknown models command 'list'"), list.stderr)
        let extra = try run(["models", "fetch", "everything"], in: dir)
        XCTAssertEqual(extra.status, 1)
        XCTAssertTrue(extra.stderr.contains("models fetch takes no argument 'everything'"), extra.stderr)
        let option = try run(["models", "fetch", "--into", dir], in: dir)
        XCTAssertTrue(option.stderr.contains("unknown option '--into'"), option.stderr)
        let help = try run(["models", "fetch", "--help"], in: dir)
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.contains("vision models fetch [--out DIR] [--wheel FILE] [--shared DIR]"),
                      help.stdout)
    }
}
