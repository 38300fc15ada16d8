import Foundation
import TasksVision
@testable import TasksVisionPoseClassification
import XCTest

/// The Java semantics the port reproduces, the plain alternatives, and bad input.
final class PoseClassificationUnitTests: XCTestCase {
    func testJavaFloatParsing() {
        XCTAssertEqual(JavaFloatParser.parse("1251.0012"), 1251.0012)
        XCTAssertEqual(JavaFloatParser.parse(" -0.5f\t"), -0.5)
        XCTAssertEqual(JavaFloatParser.parse("1e3D"), 1000)
        XCTAssertEqual(JavaFloatParser.parse(".5"), 0.5)
        XCTAssertEqual(JavaFloatParser.parse("5."), 5)
        XCTAssertEqual(JavaFloatParser.parse("0x1.8p1"), 3)
        XCTAssertEqual(JavaFloatParser.parse("-Infinity"), -.infinity)
        XCTAssertEqual(JavaFloatParser.parse("1e999"), .infinity)
        XCTAssertEqual(JavaFloatParser.parse("1e-999"), 0)
        XCTAssertTrue(JavaFloatParser.parse("NaN")?.isNaN ?? false)
        for bad in ["", " ", ".", "e5", "1e", "1e+", "0x1.8", "NaNf", "Infinityf", "1.5ff", "inf", "nan", "1,5", "--1",
                    "0x", "1 2", "\u{A0}1"] {
            XCTAssertNil(JavaFloatParser.parse(bad), bad)
        }
    }

    func testLinesEndAsBufferedReaderEndsThem() {
        XCTAssertEqual(PoseSampleFile.lines("a\r\nb\rc\nd"), ["a", "b", "c", "d"])
        XCTAssertEqual(PoseSampleFile.lines("a\n\nb\r\n"), ["a", "", "b"])
        XCTAssertEqual(PoseSampleFile.lines("\r\r\n"), ["", ""])
        XCTAssertEqual(PoseSampleFile.split("a,,b,", ","), ["a", "", "b", ""])
    }

    func testJavaStringHashAndHashMapOrder() {
        XCTAssertEqual(Java.hashCode("Aa"), Java.hashCode("BB"))
        XCTAssertEqual(Java.hashCode("pushups_down"), -883_715_997)
        var order = JavaHashOrder()
        for k in ["squats_up", "pushups_up", "squats_down", "pushups_down"] { order.insert(k) }
        // What jshell prints for a java.util.HashMap of these four keys.
        XCTAssertEqual(order.iterationOrder, ["pushups_down", "squats_down", "pushups_up", "squats_up"])
        var colliding = JavaHashOrder()
        for k in ["BB", "Aa"] { colliding.insert(k) }
        XCTAssertEqual(colliding.iterationOrder, ["BB", "Aa"])
    }

    func testJavaMaxMinAndCompare() {
        XCTAssertEqual(Java.max(-0.0, 0.0).sign, .plus)
        XCTAssertEqual(Java.min(0.0, -0.0).sign, .minus)
        XCTAssertTrue(Java.max(1, .nan).isNaN)
        XCTAssertTrue(Java.min(.nan, 1).isNaN)
        XCTAssertEqual(Java.compare(.nan, .infinity), 1)
        XCTAssertEqual(Java.compare(-0.0, 0.0), -1)
        XCTAssertEqual(Java.toInt(0.999), 0)
        XCTAssertEqual(Java.toInt(-1.5), -1)
        XCTAssertEqual(Java.toInt(.nan), 0)
        XCTAssertEqual(Java.toInt(1e20), Int32.max)
    }

    func testFdLibmHypotOnEdges() {
        XCTAssertEqual(FdLibm.hypot(3, 4), 5)
        XCTAssertEqual(FdLibm.hypot(0, -2), 2)
        XCTAssertEqual(FdLibm.hypot(.infinity, .nan), .infinity)
        XCTAssertTrue(FdLibm.hypot(.nan, 1).isNaN)
        XCTAssertEqual(FdLibm.hypot(1e300, 1e300), 1.4142135623730952e300)
        XCTAssertEqual(FdLibm.hypot(1e-300, 1e-300), 1.4142135623730951e-300)
    }

    func testTruncatingMaxAndThePlainRule() {
        var r = ClassificationResult()
        r.putClassConfidence("pushups_up", 5)
        r.putClassConfidence("squats_up", 5.9)
        let first = r.allClasses[0], second = r.allClasses[1]
        XCTAssertEqual(Set([first, second]), ["pushups_up", "squats_up"])
        // ML Kit's: the later class leads only by at least 1.0, so the first in Java order stays on top.
        XCTAssertEqual(r.maxConfidenceClass(), first)
        XCTAssertEqual(r.maxConfidenceClass(rule: .highest), "squats_up")
        XCTAssertNil(ClassificationResult().maxConfidenceClass())
    }

    func testRepetitionCounterAndTheCountingOptions() throws {
        var c = RepetitionCounter(className: "a")
        var r = ClassificationResult()
        for v: Float in [5, 7, 5, 3.9, 7, 4, 3] {
            r.putClassConfidence("a", v)
            c.addClassificationResult(r)
        }
        XCTAssertEqual(c.numRepeats, 2)

        // Two classes leaving their pose in the same frame: ML Kit counts only the first.
        let file = try Reference.samples()
        let classifier = try PoseClassifier(samples: file.samples)
        let smoothing = try EMASmoothing(windowSize: 1)
        func run(_ counting: RepetitionCounting) throws -> [Int] {
            var p = try PoseClassifierProcessor(classifier: classifier, isStreamMode: true,
                                                repetitionClasses: ["squats_down", "pushups_down"],
                                                enterThreshold: 0.5, exitThreshold: 0.5, smoothing: smoothing,
                                                repetitionCounting: counting)
            let squat = file.samples.firstIndex { $0.className == "squats_down" } ?? 0
            let pushup = file.samples.firstIndex { $0.className == "pushups_down" } ?? 0
            let up = file.samples.firstIndex { $0.className == "squats_up" } ?? 0
            var t: Int64 = 0
            for i in [squat, pushup, up] {
                t += 33
                _ = try p.process(landmarks: file.landmarks[i], timestampInMilliseconds: t)
            }
            return p.repetitionCounters.map(\.numRepeats)
        }
        XCTAssertEqual(try run(.mlKit), [1, 0])
        XCTAssertEqual(try run(.everyCounter), [1, 1])
    }

    func testSmoothingResetsAfterTheGap() throws {
        var s = try EMASmoothing()
        var a = ClassificationResult(), b = ClassificationResult()
        a.putClassConfidence("x", 10)
        b.putClassConfidence("y", 10)
        _ = s.smoothedResult(a, timestampInMilliseconds: 1000)
        let near = s.smoothedResult(b, timestampInMilliseconds: 1100)
        XCTAssertEqual(near.classConfidence("x"), 0.8 / 1.8 * 10, accuracy: 1e-5)
        let far = s.smoothedResult(a, timestampInMilliseconds: 1201)
        XCTAssertEqual(far.allClasses, ["x"])
        XCTAssertEqual(far.classConfidence("x"), 10)
    }

    func testJavaPercentTwoF() {
        XCTAssertEqual(PoseClassifierProcessor.javaFixed2(0.7), "0.70")
        XCTAssertEqual(PoseClassifierProcessor.javaFixed2(0.125), "0.13")
        XCTAssertEqual(PoseClassifierProcessor.javaFixed2(1), "1.00")
        // What jshell prints for String.format("%.2f", 0.005f), and for 0.015f and 0.045f.
        XCTAssertEqual(PoseClassifierProcessor.javaFixed2(0.005), "0.00")
        XCTAssertEqual(PoseClassifierProcessor.javaFixed2(0.015), "0.01")
        XCTAssertEqual(PoseClassifierProcessor.javaFixed2(0.045), "0.05")
        XCTAssertEqual(PoseClassifierProcessor.javaFixed2(-0.0), "-0.00")
    }

    func testJointAngle() {
        let mid = PointF3D(x: 0, y: 0, z: 0)
        XCTAssertEqual(PoseAngle.angle(first: PointF3D(x: 1, y: 0, z: 0), mid: mid, last: PointF3D(x: 0, y: 1, z: 5)),
                       90, accuracy: 1e-12)
        XCTAssertEqual(PoseAngle.angle(first: PointF3D(x: 1, y: 0.01, z: 0), mid: mid,
                                       last: PointF3D(x: 1, y: -0.01, z: 0)), 1.1459, accuracy: 1e-3)
        XCTAssertEqual(PoseAngle.angle(first: PointF3D(x: -1, y: 0.001, z: 0), mid: mid,
                                       last: PointF3D(x: -1, y: -0.001, z: 0)), 0.1146, accuracy: 1e-3)
    }

    func testBadInput() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pose-cls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        XCTAssertThrowsError(try PoseSampleFile(contentsOfFile: dir + "/missing.csv")) {
            XCTAssertEqual("\($0)", "\(dir)/missing.csv: cannot read pose samples (no such file)")
        }
        try Data("a,b,1,2,3\nname,class,\(Array(repeating: "1", count: 98).joined(separator: ",")),x\n".utf8)
            .write(to: URL(fileURLWithPath: dir + "/bad.csv"))
        XCTAssertThrowsError(try PoseSampleFile(contentsOfFile: dir + "/bad.csv")) {
            XCTAssertEqual("\($0)", "\(dir)/bad.csv: no valid pose sample row "
                + "(line 1: Invalid number of tokens for PoseSample)")
        }
        // Java names the first value of the landmark whose value is bad.
        let file = PoseSampleFile(data: try Data(contentsOf: URL(fileURLWithPath: dir + "/bad.csv")))
        XCTAssertEqual(file.skipped.map(\.description), ["line 1: Invalid number of tokens for PoseSample",
                                                         "line 2: Invalid value 1 for landmark position."])
        XCTAssertThrowsError(try PoseClassifier(samples: [], maxDistanceTopK: 0))
        XCTAssertThrowsError(try EMASmoothing(windowSize: 0))
        XCTAssertThrowsError(try PoseClassifier(samples: []).classify([PointF3D(x: 0, y: 0, z: 0)])) {
            XCTAssertEqual($0 as? PoseClassificationError, .landmarkCount(1))
        }
        XCTAssertEqual(try PoseClassifier(samples: []).classify([]).allClasses, [])
    }

    /// Inputs the FuzzPoseSampleFile target found (Tests/Fixtures/fuzz/FuzzPoseSampleFile): each reads
    /// to samples and skipped rows, and classifies, without a crash.
    func testFuzzFindings() throws {
        let dir = Reference.root + "/Tests/Fixtures/fuzz/FuzzPoseSampleFile"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] {
            let file = PoseSampleFile(data: try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)))
            if let classifier = try? PoseClassifier(samples: file.samples) {
                for l in file.landmarks.prefix(4) { _ = try classifier.classify(l).maxConfidenceClass() }
            }
        }
    }
}

/// ML Kit's `Pose` and MediaPipe's `PoseLandmarkerResult` as inputs.
final class PoseInputTests: XCTestCase {
    /// The library example of docs/pose-classification.md, on a pose made of a squat sample's landmarks.
    func testDocumentationExample() throws {
        let file = try Reference.samples()
        let squat = try XCTUnwrap(file.samples.firstIndex { $0.className == "squats_down" })
        let pose = Pose(landmarks: PoseLandmarkType.allCases.map { t in
            let p = file.landmarks[squat][t.index]
            return PoseLandmark(type: t, position: Vision3DPoint(x: CGFloat(p.x), y: CGFloat(p.y), z: CGFloat(p.z)),
                                inFrameLikelihood: 1)
        })

        let samples = try PoseSampleFile(contentsOfFile: Reference.samplesCSV)   // ML Kit's CSV format
        let classifier = try PoseClassifier(samples: samples.samples)
        var processor = try PoseClassifierProcessor(classifier: classifier, isStreamMode: true)
        let frame = processor.process(pose, timestampInMilliseconds: 1_000)

        XCTAssertEqual(frame.topClass, "squats_down")
        XCTAssertEqual(frame.topConfidenceText, "1.00")
        XCTAssertEqual(frame.repetitions.map(\.className), ["pushups_down", "squats_down"])
        XCTAssertEqual(frame.repetitions.map(\.count), [0, 0])
        XCTAssertEqual(frame.lines, ["", "squats_down : 1.00 confidence"])
    }

    func testPoseAndLandmarkerResultGiveTheSampleLandmarks() throws {
        let file = try Reference.samples()
        let classifier = try PoseClassifier(samples: file.samples)
        let points = file.landmarks[17]
        let pose = Pose(landmarks: PoseLandmarkType.allCases.map { t in
            let p = points[t.index]
            return PoseLandmark(type: t, position: Vision3DPoint(x: CGFloat(p.x), y: CGFloat(p.y), z: CGFloat(p.z)),
                                inFrameLikelihood: 1)
        })
        XCTAssertEqual(PointF3D.landmarks(of: pose), points)
        XCTAssertEqual(classifier.classify(pose), try classifier.classify(points))
        XCTAssertEqual(classifier.classify(Pose(landmarks: [])).allClasses, [])

        // Normalized landmarks: x and z times the width, y times the height, in double, rounded to float.
        let width = 1280, height = 720
        let normalized = points.map { NormalizedLandmark(x: $0.x / 1280, y: $0.y / 720, z: $0.z / 1280) }
        let result = PoseLandmarkerResult(landmarks: [normalized], worldLandmarks: [], timestampInMilliseconds: 66)
        let pixels = PointF3D.landmarks(of: normalized, imageWidth: width, imageHeight: height)
        XCTAssertEqual(pixels[5], PointF3D(x: Float(Double(normalized[5].x) * 1280),
                                           y: Float(Double(normalized[5].y) * 720),
                                           z: Float(Double(normalized[5].z) * 1280)))
        XCTAssertEqual(try classifier.classify(result, imageWidth: width, imageHeight: height),
                       try classifier.classify(pixels))
        var processor = try PoseClassifierProcessor(classifier: classifier, isStreamMode: false)
        let frame = try processor.process(result, imageWidth: width, imageHeight: height)
        XCTAssertEqual(frame.topClass, file.samples[17].className)
        XCTAssertEqual(frame.lines, ["\(file.samples[17].className) : 1.00 confidence"])
    }
}

/// The Colab's outlier search, leaving each sample out.
final class PoseSampleOutlierTests: XCTestCase {
    func testOutliersOfTheQuickstartSamples() throws {
        let file = try Reference.samples()
        let classifier = try PoseClassifier(samples: file.samples)
        let outliers = try classifier.outliers(landmarks: file.landmarks)
        XCTAssertFalse(outliers.isEmpty)
        XCTAssertLessThan(outliers.count, 80)
        let flagged = Set(outliers.map(\.index))
        for o in outliers {
            XCTAssertNotEqual(o.topClasses, [o.sample.className], o.sample.name)
            // The same counts as a classifier over the other samples alone.
            var rest = file.samples
            rest.remove(at: o.index)
            XCTAssertEqual(try PoseClassifier(samples: rest).classify(file.landmarks[o.index]), o.classification)
        }
        for i in stride(from: 0, to: file.samples.count, by: 97) where !flagged.contains(i) {
            var rest = file.samples
            rest.remove(at: i)
            let r = try PoseClassifier(samples: rest).classify(file.landmarks[i])
            let most = r.confidences.values.max()
            XCTAssertEqual(r.allClasses.filter { r.classConfidence($0) == most }, [file.samples[i].className])
        }
        XCTAssertThrowsError(try classifier.outliers(landmarks: []))
    }
}
