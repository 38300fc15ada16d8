import Foundation
import TasksVision
import TasksVisionFormat
@testable import TasksVisionTraining
import XCTest

final class GestureDatasetTests: XCTestCase {
    static let base = TrainingTestPaths.models + "/gesture_recognizer.task"
    static let handLandmarker = base + ":hand_landmarker.task"

    /// Model Maker's test data: a hand in 32 of the 40 photos at detection confidence 0.7, labels
    /// none, call, four, rock; the hands are those of the committed landmarks CSV.
    func testFolderPassFindsModelMakersHands() throws {
        let start = Date()
        let (dataset, report) = try GestureDataset.fromFolder(TrainingTestPaths.gestureTraining,
                                                              handLandmarker: Self.handLandmarker)
        print(String(format: "dataset pass over gesture_training: %.2f s (%d images)",
                     Date().timeIntervalSince(start), report.images))
        XCTAssertEqual(report.images, 40)
        XCTAssertEqual(dataset.samples.count, 32)
        XCTAssertEqual(report.withoutHand.count, 8)
        XCTAssertEqual(report.unreadable, [])
        XCTAssertEqual(report.droppedLabels, [])
        XCTAssertEqual(dataset.labels, ["none", "call", "four", "rock"])
        XCTAssertEqual(dataset.counts, [9, 6, 8, 9])
        let csv = try GestureLandmarksCSV.dataset(path: TrainingTestPaths.fixtures
                                                  + "/training/gesture_training_landmarks.csv")
        XCTAssertEqual(dataset.samples.map(\.source), csv.samples.map(\.source))
        var worst: Float = 0
        for (a, b) in zip(dataset.samples, csv.samples) {
            XCTAssertEqual(a.label, b.label)
            XCTAssertEqual(a.hand.handedness, b.hand.handedness)
            for (p, q) in zip(a.hand.landmarks + a.hand.worldLandmarks, b.hand.landmarks + b.hand.worldLandmarks) {
                let d = p - q
                worst = max(worst, abs(d.x), abs(d.y), abs(d.z))
            }
        }
        XCTAssertLessThan(worst, 1e-3)
        // Any thread count finds the same hands, bit for bit.
        let threaded = try GestureDataset.fromFolder(TrainingTestPaths.gestureTraining,
                                                     handLandmarker: Self.handLandmarker, threads: 3).dataset
        XCTAssertEqual(threaded, dataset)
    }

    func testCSVReadsBackTheSame() throws {
        let csv = try GestureLandmarksCSV.dataset(path: TrainingTestPaths.fixtures
                                                  + "/training/gesture_training_landmarks.csv")
        let again = try GestureLandmarksCSV.dataset(text: GestureLandmarksCSV.text(csv), name: "again")
        XCTAssertEqual(again, csv)
        // Quoted fields survive.
        var hand = csv.samples[0].hand
        hand.handedness = "Right"
        let odd = try GestureDataset(labels: ["None", "a,\"b\""], samples: [
            .init(label: 0, hand: hand, source: "x,y\nz"), .init(label: 1, hand: hand, source: "plain"),
        ])
        XCTAssertEqual(try GestureLandmarksCSV.dataset(text: GestureLandmarksCSV.text(odd), name: "odd"), odd)
        XCTAssertThrowsError(try GestureLandmarksCSV.dataset(text: "label,x\n", name: "bad.csv")) {
            XCTAssertTrue("\($0)".contains("bad.csv: the first line is not the landmarks CSV header"), "\($0)")
        }
        let short = GestureLandmarksCSV.header.joined(separator: ",") + "\nnone,s,1,1,Left,0.5,1,2\n"
        XCTAssertThrowsError(try GestureLandmarksCSV.dataset(text: short, name: "short.csv")) {
            XCTAssertTrue("\($0)".contains("short.csv line 2 has 8 fields, expected 132"), "\($0)")
        }
    }

    /// Mutated CSV text (bytes deleted, repeated, replaced by separators, quotes, digits) either
    /// reads or is refused with an error; it never crashes.
    func testMutatedCSVNeverCrashes() throws {
        let path = TrainingTestPaths.fixtures + "/training/gesture_training_landmarks.csv"
        let text = Array(try XCTUnwrap(FileManager.default.contents(atPath: path)))
        var state: UInt64 = 7
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % n
        }
        let inserts = Array(",\"\n\r-e.9 x".utf8)
        var read = 0, refused = 0
        for _ in 0..<300 {
            var bytes = Array(text.prefix(text.count / 8 + next(text.count / 8)))
            for _ in 0..<(1 + next(6)) {
                let at = next(bytes.count)
                switch next(3) {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(inserts[next(inserts.count)], at: at)
                default: bytes[at] = inserts[next(inserts.count)]
                }
            }
            do {
                _ = try GestureLandmarksCSV.dataset(text: String(decoding: bytes, as: UTF8.self), name: "mutated")
                read += 1
            } catch is TrainingError {
                refused += 1
            }
        }
        XCTAssertEqual(read + refused, 300)
        XCTAssertGreaterThan(refused, 0)
    }

    /// A temporary dataset of links to real photos, plus what the test adds.
    func makeFolder(_ layout: [String: [String]]) throws -> String {
        let root = NSTemporaryDirectory() + "/gesture_dataset_\(getpid())_\(UUID().uuidString)"
        for (label, files) in layout {
            try FileManager.default.createDirectory(atPath: root + "/" + label, withIntermediateDirectories: true)
            for (i, source) in files.enumerated() {
                let target = root + "/" + label + "/\(i)_" + URL(fileURLWithPath: source).lastPathComponent
                if source == "garbage" {
                    try Data("not an image".utf8).write(to: URL(fileURLWithPath: target + ".jpg"))
                } else {
                    try FileManager.default.createSymbolicLink(atPath: target, withDestinationPath: source)
                }
            }
        }
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        return root
    }

    func testBadFoldersAreReported() throws {
        let csv = try GestureLandmarksCSV.dataset(path: TrainingTestPaths.fixtures
                                                  + "/training/gesture_training_landmarks.csv")
        func photos(_ label: String) -> [String] {
            csv.samples.filter { csv.labels[$0.label] == label }.prefix(2)
                .map { TrainingTestPaths.gestureTraining + "/" + $0.source }
        }
        let noHand = TrainingTestPaths.shared + "/testdata/images/negative_coffee_1.png"
        // No background folder.
        let noNone = try makeFolder(["call": photos("call"), "rock": photos("rock")])
        XCTAssertThrowsError(try GestureDataset.fromFolder(noNone, handLandmarker: Self.handLandmarker)) {
            XCTAssertTrue("\($0)".contains("no background label"), "\($0)")
        }
        // An unreadable image is skipped, a label without hands is left out, the rest goes on.
        let mixed = try makeFolder(["None": photos("none"), "call": photos("call") + ["garbage"],
                                    "rock": [noHand]])
        let (dataset, report) = try GestureDataset.fromFolder(mixed, handLandmarker: Self.handLandmarker)
        XCTAssertEqual(dataset.labels, ["None", "call"])
        XCTAssertEqual(dataset.counts, [2, 2])
        XCTAssertEqual(report.unreadable.count, 1)
        XCTAssertTrue(report.unreadable.first?.path.hasSuffix("garbage.jpg") ?? false)
        XCTAssertEqual(report.withoutHand.count, 1)
        XCTAssertEqual(report.droppedLabels, ["rock"])
        // Fewer samples than a batch.
        var options = GestureTrainingOptions()
        options.batchSize = 8
        let base = try GestureRecognizerBundle.Base(path: Self.base)
        let embedder = try base.gestureEmbedder()
        XCTAssertThrowsError(try GestureClassifierTrainer(options: options).train(dataset, embedder: embedder)) {
            XCTAssertTrue("\($0)".contains("4 training samples (of 4, validation split 0.0) are fewer than a batch "
                                           + "of 8"), "\($0)")
        }
        // Not a folder at all.
        XCTAssertThrowsError(try GestureDataset.fromFolder(noHand, handLandmarker: Self.handLandmarker)) {
            XCTAssertTrue("\($0)".contains("is not a folder"), "\($0)")
        }
    }

    /// A bundle goes to a temporary name and is renamed: a path that cannot be written leaves nothing.
    func testUnwritableOutputLeavesNothing() throws {
        let base = try GestureRecognizerBundle.Base(path: Self.base)
        var random = TrainingRandom(seed: 1)
        let classifier = GestureClassifier(labels: ["None", "a"], head: GestureClassifierHead(
            inputSize: 128, hiddenWidths: [], classes: 2, random: &random))
        XCTAssertThrowsError(try GestureRecognizerBundle.write(base: base, classifier: classifier,
                                                               to: "/nonexistent_folder/g.task")) {
            XCTAssertEqual("\($0)",
                           "/nonexistent_folder/g.task: cannot write: folder /nonexistent_folder does not exist")
        }
        let folder = NSTemporaryDirectory() + "/gesture_out_\(getpid())"
        try FileManager.default.createDirectory(atPath: folder + "/g.task", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        XCTAssertThrowsError(try GestureRecognizerBundle.write(base: base, classifier: classifier,
                                                               to: folder + "/g.task"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["g.task"])
        try GestureRecognizerBundle.write(base: base, classifier: classifier, to: folder + "/ok.task")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).sorted(), ["g.task", "ok.task"])
        let bundle = try TaskBundle(path: folder + "/ok.task")
        XCTAssertEqual(bundle.memberNames, ["hand_landmarker.task", "hand_gesture_recognizer.task"])
        XCTAssertEqual(try bundle.bundle("hand_gesture_recognizer.task").memberNames,
                       ["gesture_embedder.tflite", "canned_gesture_classifier.tflite",
                        "custom_gesture_classifier.tflite"])
        XCTAssertNoThrow(try GestureRecognizer(modelPath: folder + "/ok.task"))
    }

    /// Model Maker's features differ from the runtime's on non-square photos: the aspect correction.
    func testRuntimeAndModelMakerFeaturesDiffer() throws {
        let csv = try GestureLandmarksCSV.dataset(path: TrainingTestPaths.fixtures
                                                  + "/training/gesture_training_landmarks.csv")
        let embedder = try GestureRecognizerBundle.Base(path: Self.base).gestureEmbedder()
        var worst: Float = 0
        for s in csv.samples {
            let a = try embedder.embedding(s.hand, features: .runtime)
            let b = try embedder.embedding(s.hand, features: .modelMaker)
            let norm = a.map { $0 * $0 }.reduce(0, +).squareRoot()
            let diff = zip(a, b).map { ($0 - $1) * ($0 - $1) }.reduce(0, +).squareRoot()
            worst = max(worst, diff / norm)
        }
        print("runtime vs Model Maker embeddings on gesture_training: up to \(worst) relative (L2)")
        XCTAssertGreaterThan(worst, 0.05)
        var square = csv.samples[0].hand
        square.imageWidth = 500; square.imageHeight = 500
        square.handednessScore = square.handedness == "Right" ? square.handednessScore : 1 - square.handednessScore
        square.handedness = "Right"
        XCTAssertEqual(try embedder.embedding(square, features: .runtime),
                       try embedder.embedding(square, features: .modelMaker))
    }
}
