import Foundation
import TasksVisionFormat
import XCTest

final class ModelCommandTests: XCTestCase {
    func testInfoPrintsInputsOutputsOpsAndMetadata() throws {
        let r = try CLI.run(["model", "info", CLI.models + "/hand_landmarker.task:hand_detector.tflite"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("input_1 [1, 192, 192, 3] float32"), r.stdout)
        XCTAssertTrue(r.stdout.contains("Identity [1, 2016, 18] float32"), r.stdout)
        XCTAssertTrue(r.stdout.contains("DEQUANTIZE: 133"), r.stdout)
        XCTAssertTrue(r.stdout.contains("name: Multi Hand Detection"), r.stdout)
        XCTAssertTrue(r.stdout.contains("normalization mean [0.0] std [255.0]"), r.stdout)
        XCTAssertTrue(r.stdout.contains("labels.txt"), r.stdout)
    }

    func expectFailure(_ args: [String], mentions needles: [String], file: StaticString = #filePath,
                       line: UInt = #line) throws {
        let r = try CLI.run(args)
        XCTAssertEqual(r.status, 1, "exit status for \(args)", file: file, line: line)
        let lines = r.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, "one line of error: \(r.stderr)", file: file, line: line)
        for n in needles { XCTAssertTrue(r.stderr.contains(n), "'\(n)' in: \(r.stderr)", file: file, line: line) }
    }

    func testBadFilesExitWithOneLineErrors() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let model = try ModelAsset.readFile(CLI.models + "/canned_gesture_classifier.tflite")
        let truncated = dir + "/truncated.tflite"
        try Data(model[0..<1000]).write(to: URL(fileURLWithPath: truncated))
        try expectFailure(["model", "info", truncated], mentions: ["truncated.tflite"])

        let random = dir + "/random.tflite"
        try Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }).write(to: URL(fileURLWithPath: random))
        try expectFailure(["model", "info", random], mentions: ["random.tflite", "TFL3"])

        // A .task whose entry is marked deflated.
        var bundle = try ModelAsset.readFile(CLI.models + "/hand_landmarker.task")
        let name = Array("hand_detector.tflite".utf8)
        for i in 0..<(bundle.count - 30)
        where bundle[i] == 0x50 && bundle[i + 1] == 0x4B && bundle[i + 2] == 1 && bundle[i + 3] == 2 {
            if Array(bundle[(i + 46)..<(i + 46 + name.count)]) == name { bundle[i + 10] = 8 }
        }
        let deflated = dir + "/deflated.task"
        try Data(bundle).write(to: URL(fileURLWithPath: deflated))
        try expectFailure(["model", "info", deflated + ":hand_detector.tflite"],
                          mentions: ["deflated.task", "hand_detector.tflite", "deflated"])

        try expectFailure(["model", "info", dir + "/missing.tflite"], mentions: ["missing.tflite", "no such file"])
        try expectFailure(["model", "info", CLI.models + "/hand_landmarker.task:nope.tflite"],
                          mentions: ["nope.tflite"])
        try expectFailure(["model", "frobnicate"], mentions: ["frobnicate"])
        try expectFailure(["nonsense"], mentions: ["nonsense"])
    }

    func testUnsupportedOperatorExitsWithItsName() throws {
        var bytes = try ModelAsset.readFile(CLI.models + "/canned_gesture_classifier.tflite")
        let root = try FlatTable.root(ByteView(bytes: bytes, name: "x"), what: "Model")
        for code in try root.tables(1, what: "OperatorCode") where try code.i32(3) == 25 || code.i8(0) == 25 {
            if let p = try code.fieldPosition(3) { bytes[p] = 101 }  // ABS, which the engine lacks
            if let p = try code.fieldPosition(0) { bytes[p] = 101 }
        }
        let path = try CLI.temporaryDirectory(removedAfter: self) + "/abs.tflite"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try expectFailure(["model", "info", path], mentions: ["abs.tflite", "ABS"])
    }

    /// `vision model run` reproduces the TFLite fixture outputs.
    func testRunMatchesTFLiteFixture() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let fixtures = CLI.root + "/Tests/Fixtures/engine"
        let pixels = try NumpyArray.read(fixtures + "/pixels__face_frontal_1_128x128.npy")
        let input = NumpyArray(shape: [1, 128, 128, 3], floats: pixels.floats().map { ($0 - 127.5) / 127.5 })
        try input.write(dir + "/in.npy")
        let model = CLI.models + "/face_detection_short_range.tflite"
        let r = try CLI.run(["model", "run", model, "--input", dir + "/in.npy", "--output", dir + "/out"])
        XCTAssertEqual(r.status, 0, r.stderr)
        for i in 0..<2 {
            let ours = try NumpyArray.read(dir + "/out/\(i).npy")
            let ref = try NumpyArray.read(fixtures + "/face_detection_short_range__face_frontal_1_out\(i).npy")
            XCTAssertEqual(ours.shape, ref.shape)
            let worst = zip(ours.floats(), ref.floats()).map { abs($0 - $1) / max(1, abs($1)) }.max() ?? .infinity
            XCTAssertLessThanOrEqual(worst, 1e-4, "output \(i)")
        }
        try expectFailure(["model", "run", model, "--output", dir + "/o"], mentions: ["1 inputs"])
    }
}
