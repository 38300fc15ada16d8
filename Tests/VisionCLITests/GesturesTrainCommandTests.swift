import Foundation
import TasksVisionFormat
import XCTest

/// `vision gestures train|evaluate|landmarks`.
final class GesturesTrainCommandTests: XCTestCase {
    static let csv = CLI.root + "/Tests/Fixtures/training/gesture_training_landmarks.csv"

    func temporaryFolder() throws -> String {
        let folder = NSTemporaryDirectory() + "/gestures_cli_\(getpid())_\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        return folder
    }

    /// The bundle of the MediaPipe fixture from the command line, twice: the same bytes (those of the
    /// fixture on kernel sets that sum as XNNPACK does; GestureBundleParityTests checks that).
    func testTrainWritesTheBundleMediaPipeWasRunOn() throws {
        let folder = try temporaryFolder()
        let r = try CLI.run(["gestures", "train", "--landmarks", Self.csv, "--epochs", "100", "--out",
                             folder + "/g.task"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("epoch 100/100: loss"), r.stdout)
        XCTAssertTrue(r.stdout.contains("wrote \(folder)/g.task: labels None, call, four, rock"), r.stdout)
        let again = try CLI.run(["gestures", "train", "--landmarks", Self.csv, "--epochs", "100", "--threads", "4",
                                 "--out", folder + "/g2.task"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try ModelAsset.readFile(folder + "/g.task"), try ModelAsset.readFile(folder + "/g2.task"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).sorted(), ["g.task", "g2.task"])

        let info = try CLI.run(["model", "info",
                                folder + "/g.task:hand_gesture_recognizer.task:custom_gesture_classifier.tflite"])
        XCTAssertEqual(info.status, 0, info.stderr)
        for line in ["inputs:\n  0: serving_default_hand_embedding:0 [1, 128] float32",
                     "outputs:\n  0: StatefulPartitionedCall:0 [1, 4] float32", "name: HandGestureRecognition",
                     "input 0 embedding", "output 0 scores", "appended files: labels.txt (19 bytes)"] {
            XCTAssertTrue(info.stdout.contains(line), "\(line) in\n\(info.stdout)")
        }

        let e = try CLI.run(["gestures", "evaluate", folder + "/g.task", "--landmarks", Self.csv, "--json"])
        XCTAssertEqual(e.status, 0, e.stderr)
        let report = try JSONSerialization.jsonObject(with: Data(e.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(report?["labels"] as? [String], ["None", "call", "four", "rock"])
        XCTAssertEqual(report?["total"] as? Int, 32)
        XCTAssertGreaterThanOrEqual(report?["accuracy"] as? Double ?? 0, 0.9)

        let g = try CLI.run(["gestures", "--model", folder + "/g.task",
                             CLI.shared + "/testdata/gesture_training/rock/026fd791-8f64-4fae-8cb0-0e01dc4362ce.jpg"])
        XCTAssertEqual(g.status, 0, g.stderr)
        XCTAssertTrue(g.stdout.contains(", rock "), g.stdout)
    }

    func testBadInputFailsBeforeWritingAnything() throws {
        let folder = try temporaryFolder()
        // No background folder.
        try FileManager.default.createDirectory(atPath: folder + "/data/call", withIntermediateDirectories: true)
        let r = try CLI.run(["gestures", "train", folder + "/data", "--out", folder + "/g.task"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("no background label"), r.stderr)
        // An output folder that does not exist: refused before the dataset pass.
        let o = try CLI.run(["gestures", "train", folder + "/data", "--out", folder + "/missing/g.task"])
        XCTAssertEqual(o.status, 1)
        XCTAssertTrue(o.stderr.contains("--out \(folder)/missing/g.task: no such folder \(folder)/missing"), o.stderr)
        // Fewer samples than a batch.
        let b = try CLI.run(["gestures", "train", "--landmarks", Self.csv, "--batch-size", "64", "--out",
                             folder + "/g.task"])
        XCTAssertEqual(b.status, 1)
        XCTAssertTrue(b.stderr.contains("32 training samples (of 32, validation split 0.0) are fewer than a batch "
                                        + "of 64"), b.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["data"])
        // The subcommands' help; an image named like one is given as ./train.
        let h = try CLI.run(["gestures", "train", "--help"])
        XCTAssertTrue(h.stdout.hasPrefix("usage: vision gestures train"), h.stdout)
        let i = try CLI.run(["gestures", "./train"])
        XCTAssertEqual(i.status, 1)
        XCTAssertTrue(i.stderr.contains("train"), i.stderr)
    }
}
