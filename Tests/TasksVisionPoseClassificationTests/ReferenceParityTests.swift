import Foundation
@testable import TasksVisionPoseClassification
import XCTest

/// Bit-for-bit parity with ML Kit's Java classes on the cases of tools/reference_pose_classification.sh.
final class ReferenceParityTests: XCTestCase {
    func testEverySampleEmbeddingMatchesJava() throws {
        let file = try Reference.samples()
        let rows = try Reference.rows("embeddings.txt")
        XCTAssertEqual(file.samples.count, 812)
        XCTAssertEqual(rows.count, file.samples.count)
        var equal = 0
        for (sample, row) in zip(file.samples, rows) {
            XCTAssertEqual(sample.name, row[0])
            XCTAssertEqual(sample.className, row[1])
            if Reference.text(sample.embedding) == row[2] { equal += 1 } else { XCTFail("embedding of \(row[0])") }
        }
        XCTAssertEqual(equal, 812)
    }

    func testEverySampleClassifiedAgainstTheFullSetMatchesJava() throws {
        let file = try Reference.samples()
        let classifier = try PoseClassifier(samples: file.samples)
        let rows = try Reference.rows("classify_samples.txt")
        XCTAssertEqual(rows.count, 812)
        for row in rows {
            guard let i = Int(row[0]) else { return XCTFail("bad row \(row)") }
            let r = try classifier.classify(file.landmarks[i])
            XCTAssertEqual(Reference.text(r), row[1], "sample \(i)")
            XCTAssertEqual(r.maxConfidenceClass() ?? "-", row[2], "sample \(i)")
        }
    }

    func testPerturbedPosesMatchJava() throws {
        let file = try Reference.samples()
        let classifier = try PoseClassifier(samples: file.samples)
        let rows = try Reference.rows("perturbed.txt")
        XCTAssertEqual(rows.count, 240)
        for (n, row) in rows.enumerated() {
            let r = try classifier.classify(Reference.points(row[0]))
            XCTAssertEqual(Reference.text(r), row[1], "case \(n)")
            XCTAssertEqual(r.maxConfidenceClass() ?? "-", row[2], "case \(n)")
        }
    }

    /// Duplicates under other labels (distances tie), labels with colliding Java hash codes, many
    /// classes (HashMap resizes), other k and axis weights.
    func testTiedSampleSetsMatchJava() throws {
        let file = try Reference.samples()
        var classifier: PoseClassifier?
        var sets = 0, queries = 0
        for row in try Reference.rows("ties.txt") {
            if row[0] == "set" {
                let w = Reference.points(row[3])[0]
                let samples = try row[4].split(separator: ";").map { entry -> PoseSample in
                    let parts = entry.split(separator: ":", maxSplits: 1)
                    let i = Int(parts[0]) ?? 0
                    return try PoseSample(name: file.samples[i].name, className: String(parts[1]),
                                          landmarks: file.landmarks[i])
                }
                classifier = try PoseClassifier(samples: samples, maxDistanceTopK: Int(row[1]) ?? 0,
                                                meanDistanceTopK: Int(row[2]) ?? 0, axesWeights: w)
                sets += 1
                continue
            }
            guard let classifier else { return XCTFail("query before a set") }
            let r = try classifier.classify(Reference.points(row[0]))
            XCTAssertEqual(Reference.text(r), row[1], "set \(sets) query \(queries)")
            XCTAssertEqual(r.maxConfidenceClass() ?? "-", row[2], "set \(sets) query \(queries)")
            queries += 1
        }
        XCTAssertEqual(sets, 6)
        XCTAssertGreaterThan(queries, 600)
    }

    /// A frame stream through the processor: raw counts, smoothed values, top class, repetitions and
    /// ML Kit's text lines in stream mode, and the text lines in single-image mode.
    func checkStream(_ fixture: String, minimumFrames: Int) throws {
        let path = Reference.fixtures + "/" + fixture
        guard FileManager.default.fileExists(atPath: path) else { return XCTFail("missing \(path)") }
        let file = try Reference.samples()
        let classifier = try PoseClassifier(samples: file.samples)
        var stream = try PoseClassifierProcessor(classifier: classifier, isStreamMode: true)
        var image = try PoseClassifierProcessor(classifier: classifier, isStreamMode: false)
        var smoothing = try EMASmoothing()
        let rows = try Reference.rows(fixture)
        XCTAssertGreaterThanOrEqual(rows.count, minimumFrames)
        var equalFrames = 0
        for (n, row) in rows.enumerated() {
            guard let t = Int64(row[0]) else { return XCTFail("bad row \(n)") }
            let landmarks = Reference.points(row[1])
            let raw = try classifier.classify(landmarks)
            let smoothed = smoothing.smoothedResult(raw, timestampInMilliseconds: t)
            let s = try stream.process(landmarks: landmarks, timestampInMilliseconds: t)
            let i = try image.process(landmarks: landmarks, timestampInMilliseconds: t)
            let reps = s.repetitions.map { "\($0.count)" }.joined(separator: ",")
            let got = [row[0], row[1], Reference.text(raw), Reference.text(smoothed), s.topClass ?? "-", reps,
                       s.lines.joined(separator: "|"), i.lines.joined(separator: "|")]
            XCTAssertEqual(Reference.text(s.result), row[3], "frame \(n)")
            XCTAssertEqual(got, row, "frame \(n)")
            if got == row { equalFrames += 1 }
        }
        XCTAssertEqual(equalFrames, rows.count)
    }

    func testWorkoutStreamMatchesJava() throws { try checkStream("stream.txt", minimumFrames: 700) }

    func testRealFramesMatchJava() throws { try checkStream("real_frames.txt", minimumFrames: 40) }

    /// The same video at 8 frames a second: every frame 125 ms after the last, so the smoothing restarts.
    func testRealFramesFarApartMatchJava() throws { try checkStream("real_frames_8fps.txt", minimumFrames: 40) }
}
