import Foundation
@testable import TasksVision
import XCTest

/// `ModelLocator`'s search, over an environment given to `ModelSearch` (the process's is untouched).
final class ModelLocatorTests: XCTestCase {
    var root = ""
    var env = "", data = "", home = "", cwd = "", exe = ""

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("locator-\(UUID().uuidString)").path
        env = root + "/env"
        data = root + "/data"
        home = root + "/home"
        cwd = root + "/cwd"
        exe = root + "/bin"
        for dir in [env, data + "/tasksvision/models", home, cwd + "/Models", exe + "/Models"] {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        XCTAssertTrue(FileManager.default.createFile(atPath: exe + "/vision", contents: Data()))
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    func search(_ environment: [String: String]? = nil, executable: String? = nil) -> ModelSearch {
        ModelSearch(environment: environment ?? ["TASKSVISION_MODELS": env, "XDG_DATA_HOME": data, "HOME": home],
                    workingDirectory: cwd, executablePath: executable ?? exe + "/vision")
    }

    func put(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data([1])), path)
    }

    func testFoldersInSearchOrder() {
        XCTAssertEqual(search().folders, [
            ModelFolder(label: "TASKSVISION_MODELS", path: env),
            ModelFolder(label: "user", path: data + "/tasksvision/models"),
            ModelFolder(label: "working directory", path: cwd + "/Models"),
            ModelFolder(label: "executable", path: exe + "/Models"),
        ])
    }

    /// Each step is used only when the earlier ones have no such file.
    func testEachStepInTurn() throws {
        let steps = [cwd + "/m.tflite", env + "/m.tflite", data + "/tasksvision/models/m.tflite",
                     cwd + "/Models/m.tflite", exe + "/Models/m.tflite"]
        for path in steps { try put(path) }
        for path in steps {
            XCTAssertEqual(search().locate("m.tflite"), path)
            try FileManager.default.removeItem(atPath: path)
        }
        XCTAssertNil(search().locate("m.tflite"))
    }

    func testUserFolderDefaultsToTheHomeFolder() {
        #if canImport(Darwin)
        let user = home + "/Library/Application Support/tasksvision/models"
        #else
        let user = home + "/.local/share/tasksvision/models"
        #endif
        XCTAssertEqual(search(["HOME": home]).userFolder, user)
        XCTAssertEqual(search(["HOME": home, "XDG_DATA_HOME": "relative/data"]).userFolder, user,
                       "a relative XDG_DATA_HOME is ignored, as the XDG spec says")
        XCTAssertEqual(search(["HOME": home]).folders.map(\.label), ["user", "working directory", "executable"])
    }

    func testAbsolutePathIsOnlyTriedAsGiven() throws {
        try put(env + "/m.tflite")
        try put(root + "/elsewhere/x.tflite")
        XCTAssertEqual(search().locate(root + "/elsewhere/x.tflite"), root + "/elsewhere/x.tflite")
        XCTAssertNil(search().locate(root + "/missing/m.tflite"))
        XCTAssertThrowsError(try search().resolve(root + "/missing/m.tflite")) { error in
            XCTAssertEqual((error as? ModelNotFoundError)?.searched.map(\.path), [root + "/missing/m.tflite"])
        }
    }

    /// A relative path is tried in each folder as itself, then by its last component.
    func testRelativePathThenLastComponentInEachFolder() throws {
        try put(env + "/m.tflite")
        try put(data + "/tasksvision/models/sub/m.tflite")
        XCTAssertEqual(search().locate("sub/m.tflite"), env + "/m.tflite", "an earlier folder wins")
        try put(env + "/sub/m.tflite")
        XCTAssertEqual(search().locate("sub/m.tflite"), env + "/sub/m.tflite")
        try put(cwd + "/sub/m.tflite")
        XCTAssertEqual(search().locate("sub/m.tflite"), cwd + "/sub/m.tflite", "the path as given comes first")
        try put(data + "/tasksvision/models/blaze.tflite")
        XCTAssertEqual(search().locate("Models/blaze.tflite"), data + "/tasksvision/models/blaze.tflite")
    }

    func testSameWeightsUnderAnotherNameWhenTheModelIsNowhere() throws {
        XCTAssertNil(search().locate("blaze_face_short_range.tflite"))
        try put(cwd + "/Models/face_detection_short_range.tflite")
        XCTAssertEqual(search().locate("blaze_face_short_range.tflite"),
                       cwd + "/Models/face_detection_short_range.tflite")
        XCTAssertEqual(search().locate("Models/blaze_face_short_range.tflite"),
                       cwd + "/Models/face_detection_short_range.tflite")
        // The model itself, wherever it is, comes first.
        try put(data + "/tasksvision/models/blaze_face_short_range.tflite")
        XCTAssertEqual(search().locate("blaze_face_short_range.tflite"),
                       data + "/tasksvision/models/blaze_face_short_range.tflite")
        XCTAssertNil(search().locate("pose_detector.tflite"))
    }

    func testAssembledHolisticBundleStandsInForTheOfficialOne() throws {
        XCTAssertNil(search().locate("holistic_landmarker.task"))
        try put(exe + "/Models/holistic_landmarker_assembled.task")
        XCTAssertEqual(search().locate("holistic_landmarker.task"), exe + "/Models/holistic_landmarker_assembled.task")
        // The official bundle, wherever it is, comes first.
        try put(env + "/holistic_landmarker.task")
        XCTAssertEqual(search().locate("holistic_landmarker.task"), env + "/holistic_landmarker.task")
    }

    func testBundleMemberPathIsFoundByItsFilePart() throws {
        try put(data + "/tasksvision/models/b.task")
        XCTAssertEqual(search().locate("b.task:inner.task:m.tflite"),
                       data + "/tasksvision/models/b.task:inner.task:m.tflite")
        try put(cwd + "/b.task")
        XCTAssertEqual(search().locate("b.task:m.tflite"), cwd + "/b.task:m.tflite")
        try put(cwd + "/odd:name.tflite")
        XCTAssertEqual(search().locate("odd:name.tflite"), cwd + "/odd:name.tflite", "an existing file is taken whole")
    }

    func testExecutableSymlinkIsFollowed() throws {
        let links = root + "/links"
        try FileManager.default.createDirectory(atPath: links, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: links + "/vision", withDestinationPath: exe + "/vision")
        let folders = search(executable: links + "/vision").folders
        XCTAssertEqual(folders.last, ModelFolder(label: "executable", path: exe + "/Models"))
    }

    func testSwiftPMBuildAlsoSearchesThePackage() {
        let build = root + "/pkg/.build/x86_64-unknown-linux-gnu/release"
        let folders = search(["HOME": home], executable: build + "/vision").folders
        XCTAssertEqual(folders.suffix(2), [
            ModelFolder(label: "executable", path: build + "/Models"),
            ModelFolder(label: "package", path: root + "/pkg/Models"),
        ])
        // Another scratch path (swift test --scratch-path .build-asan, as tools/sanitize.sh builds).
        let asan = root + "/pkg/.build-asan/x86_64-unknown-linux-gnu/release"
        XCTAssertEqual(search(["HOME": home], executable: asan + "/vision").folders.last,
                       ModelFolder(label: "package", path: root + "/pkg/Models"))
    }

    func testSameFolderIsListedOnce() {
        let environment = ["HOME": home, "TASKSVISION_MODELS": cwd + "/Models/"]
        let folders = search(environment, executable: cwd + "/vision").folders
        XCTAssertEqual(folders.map(\.label), ["TASKSVISION_MODELS", "user"])
    }

    func testTildeIsTheHomeFolder() throws {
        try put(home + "/mine/m.tflite")
        XCTAssertEqual(search().locate("~/mine/m.tflite"), home + "/mine/m.tflite")
        let folders = search(["HOME": home, "TASKSVISION_MODELS": "~/mine"]).folders
        XCTAssertEqual(folders.first, ModelFolder(label: "TASKSVISION_MODELS", path: home + "/mine"))
    }

    func testNotFoundErrorListsEveryPlaceLookedAt() {
        XCTAssertThrowsError(try search().resolve("sub/m.tflite")) { error in
            guard let error = error as? ModelNotFoundError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.model, "sub/m.tflite")
            XCTAssertEqual(error.searched, [
                .init(path: cwd + "/sub/m.tflite", label: "as given"),
                .init(path: env + "/sub/m.tflite", label: "TASKSVISION_MODELS"),
                .init(path: env + "/m.tflite", label: "TASKSVISION_MODELS"),
                .init(path: data + "/tasksvision/models/sub/m.tflite", label: "user"),
                .init(path: data + "/tasksvision/models/m.tflite", label: "user"),
                .init(path: cwd + "/Models/sub/m.tflite", label: "working directory"),
                .init(path: cwd + "/Models/m.tflite", label: "working directory"),
                .init(path: exe + "/Models/sub/m.tflite", label: "executable"),
                .init(path: exe + "/Models/m.tflite", label: "executable"),
            ])
            let message = error.description
            XCTAssertTrue(message.hasPrefix("model 'sub/m.tflite' not found"), message)
            for place in error.searched { XCTAssertTrue(message.contains("\(place.path) (\(place.label))"), message) }
            XCTAssertTrue(message.contains("vision models fetch"), message)
        }
    }

    /// The public API runs the same search over the process's environment.
    func testProcessLocator() throws {
        let labels = ModelLocator.searchFolders.map(\.label)
        XCTAssertTrue(labels.contains("user") && labels.contains("working directory"), "\(labels)")
        try put(cwd + "/m.tflite")
        XCTAssertEqual(ModelLocator.locate(cwd + "/m.tflite"), cwd + "/m.tflite")
        XCTAssertEqual(try ModelLocator.resolve(cwd + "/m.tflite:member.tflite"), cwd + "/m.tflite:member.tflite")
        XCTAssertThrowsError(try ModelLocator.resolve(root + "/nowhere.tflite")) {
            XCTAssertTrue($0 is ModelNotFoundError)
        }
    }
}
