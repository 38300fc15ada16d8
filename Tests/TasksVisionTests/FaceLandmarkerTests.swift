import Foundation
@testable import TasksVision
import TasksVisionFormat
import XCTest

/// FaceLandmarker's bundles, errors and what it gives beyond MediaPipe (tongue_out, track IDs, smoothing
/// of several faces, head pose), each against an independent computation.
final class FaceLandmarkerTests: XCTestCase {
    func options(_ model: String = "face_landmarker.task") throws -> FaceLandmarkerOptions {
        let o = FaceLandmarkerOptions()
        o.baseOptions.modelAssetPath = try Paths.model(model)
        return o
    }

    func image(_ name: String) throws -> MPImage { try TestImages.load(Paths.images + "/" + name) }

    /// The official bundle starts with two zero bytes before `PK`; the zip reader counts them in.
    func testOfficialBundleWithLeadingZeroBytesOpens() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: try Paths.model("face_landmarker.task")))
        XCTAssertEqual(Array(data.prefix(4)), [0, 0, 0x50, 0x4B])
        let bundle = try TaskBundle(path: try Paths.model("face_landmarker.task"))
        for name in ["face_detector.tflite", "face_landmarks_detector.tflite", "face_blendshapes.tflite",
                     "geometry_pipeline_metadata_landmarks.binarypb"] {
            XCTAssertTrue(bundle.contains(name), name)
        }
    }

    /// Google's test bundle holds the same weights: the same landmarks to float rounding.
    func testBothBundlesGiveTheSameLandmarks() throws {
        let a = try FaceLandmarker(options: try options()).detect(image: try image("face_frontal_1.png"))
        let b = try FaceLandmarker(options: try options("face_landmarker_v2_with_blendshapes.task"))
            .detect(image: try image("face_frontal_1.png"))
        XCTAssertEqual(a.faceLandmarks.count, 1)
        XCTAssertEqual(b.faceLandmarks.count, 1)
        guard let fa = a.faceLandmarks.first, let fb = b.faceLandmarks.first else { return }
        XCTAssertEqual(fa.count, 478)
        let worst = zip(fa, fb).map { max(abs($0.x - $1.x), abs($0.y - $1.y), abs($0.z - $1.z)) }.max() ?? 1
        XCTAssertLessThan(worst, 1e-3)
    }

    func testNumFacesBelowOneIsRefused() throws {
        let o = try options()
        o.numFaces = 0
        XCTAssertThrowsError(try FaceLandmarker(options: o)) { e in
            XCTAssertEqual((e as NSError).code, TasksErrorCode.invalidArgumentError.rawValue)
            XCTAssertTrue("\(e)".contains("numFaces must be at least 1, got 0"), "\(e)")
        }
    }

    func testBundleWithoutFaceModelsIsRefused() throws {
        XCTAssertThrowsError(try FaceLandmarker(options: try options("hand_landmarker.task"))) { e in
            XCTAssertTrue("\(e)".contains("has no face_detector.tflite"), "\(e)")
        }
    }

    /// A folder with the detector and landmark models only: landmarks work, blendshapes are refused with
    /// MediaPipe's text, matrices with ours.
    func testBlendshapesAskedOfBundleWithoutThemAreRefused() throws {
        let bundle = try TaskBundle(path: try Paths.model("face_landmarker.task"))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("face-nobs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["face_detector.tflite", "face_landmarks_detector.tflite"] {
            try Data(try bundle.member(name)).write(to: dir.appendingPathComponent(name))
        }
        let o = FaceLandmarkerOptions()
        o.baseOptions.modelAssetPath = dir.path
        XCTAssertEqual(try FaceLandmarker(options: o).detect(image: try image("face_frontal_1.png")).faceLandmarks.count,
                       1)
        o.outputFaceBlendshapes = true
        XCTAssertThrowsError(try FaceLandmarker(options: o)) { e in
            XCTAssertEqual((e as NSError).code, TasksErrorCode.invalidArgumentError.rawValue)
            XCTAssertEqual((e as NSError).localizedDescription, FacePipeline.missingBlendshapesText)
        }
        o.outputFaceBlendshapes = false
        o.outputFacialTransformationMatrixes = true
        XCTAssertThrowsError(try FaceLandmarker(options: o)) { e in
            XCTAssertTrue("\(e)".contains("geometry_pipeline_metadata_landmarks.binarypb"), "\(e)")
        }
    }

    /// tongue_out and presence against ai-edge-litert running the landmark model on OpenCV's crop of the
    /// same rect (tools/reference_face_landmarks.py, tongue_out.json).
    func testTongueOutMatchesLiteRTOnTheSameCrop() throws {
        struct Check: Decodable { let file: String; let rect: [Float]; let presence: Float; let tongueOut: Float }
        struct Fixture: Decodable { let results: [Check] }
        let fx = try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: URL(
            fileURLWithPath: Paths.fixtures + "/face_landmarks/tongue_out.json")))
        XCTAssertGreaterThanOrEqual(fx.results.count, 3)
        let landmarker = try FaceLandmarker(options: try options())
        for c in fx.results {
            let rect = NormalizedRect(xCenter: c.rect[0], yCenter: c.rect[1], width: c.rect[2], height: c.rect[3],
                                      rotation: c.rect[4])
            guard let face = landmarker.pipeline.run(try image(c.file), rect: rect) else { return XCTFail(c.file) }
            XCTAssertEqual(face.tongueOut, c.tongueOut, accuracy: 2e-3, c.file)
            XCTAssertEqual(face.presence, c.presence, accuracy: 1e-3, c.file)
        }
        let o = try options()
        o.outputTongueOut = true
        let r = try FaceLandmarker(options: o).detect(image: try image("face_frontal_1.png"))
        XCTAssertEqual(r.tongueOutScores?.count, 1)
        XCTAssertNil(try FaceLandmarker(options: try options()).detect(image: try image("face_frontal_1.png"))
            .tongueOutScores)
    }

    /// Track IDs: two faces keep theirs while tracked; after a frame without faces, new IDs are given.
    func testTrackingIdsFollowFacesAndAreNeverReused() throws {
        let o = try options()
        o.numFaces = 2
        o.runningMode = .video
        let landmarker = try FaceLandmarker(options: o)
        let two = try image("faces_two_1.png"), none = try image("negative_coffee_1.png")
        var ids: [[Int]] = []
        var centres: [[Float]] = []
        for (t, frame) in [two, two, two, none, two, two].enumerated() {
            let r = try landmarker.detect(videoFrame: frame, timestampInMilliseconds: t * 33)
            ids.append(r.trackingIds ?? [-1])
            centres.append(r.faceLandmarks.map { $0[1].x })
        }
        XCTAssertEqual(ids, [[1, 2], [1, 2], [1, 2], [], [3, 4], [3, 4]])
        // The same ID stays on the same face (by its nose tip's x).
        for t in [1, 2, 5] {
            for k in 0..<2 { XCTAssertEqual(centres[t][k], centres[t == 5 ? 4 : 0][k], accuracy: 0.02) }
        }
        XCTAssertNil(try FaceLandmarker(options: try options()).detect(image: two).trackingIds)
    }

    /// `smoothAllFaces`: each face equals its raw landmarks run alone through the face smoothing filters.
    func testSmoothingOfSeveralFacesEqualsEachFaceSmoothedAlone() throws {
        let source = try image("faces_two_1.png")
        var frames: [MPImage] = []
        for shift in [0, 6, 12, 20] {
            frames.append(try FaceLandmarkerParityTests.syntheticFrame(source, affine: [1, 0, Double(shift), 0, 1, 0],
                                                                      width: 1200, height: 853))
        }
        func run(_ smooth: Bool) throws -> [FaceLandmarkerResult] {
            let o = try options()
            o.numFaces = 2
            o.runningMode = .video
            o.smoothAllFaces = smooth
            let l = try FaceLandmarker(options: o)
            return try frames.enumerated().map { try l.detect(videoFrame: $1, timestampInMilliseconds: $0 * 33) }
        }
        let raw = try run(false), smoothed = try run(true)
        var filters: [Int: [OneEuroFilter]] = [:]
        var moved: Float = 0
        for (t, (r, s)) in zip(raw, smoothed).enumerated() {
            XCTAssertEqual(r.trackingIds, s.trackingIds)
            XCTAssertEqual(r.faceLandmarks.count, 2)
            for (k, id) in (r.trackingIds ?? []).enumerated() {
                var f = filters[id] ?? []
                let expected = FaceLandmarkSmoothing.smooth(r.faceLandmarks[k], filters: &f, imageWidth: 1200,
                                                            imageHeight: 853,
                                                            timestampNanoseconds: Int64(t * 33) * 1_000_000)
                filters[id] = f
                XCTAssertEqual(s.faceLandmarks[k], expected, "frame \(t) face \(id)")
                moved = max(moved, zip(s.faceLandmarks[k], r.faceLandmarks[k]).map { abs($0.x - $1.x) }.max() ?? 0)
            }
        }
        XCTAssertGreaterThan(moved, 0, "smoothing changed nothing")
    }

    /// HeadPose reads back the angles a rotation was composed of (R = Ry(yaw) Rx(pitch) Rz(roll)).
    func testHeadPoseRecoversComposedAngles() {
        func rotation(yaw: Double, pitch: Double, roll: Double) -> [Float] {
            let (a, b, c) = (yaw * .pi / 180, pitch * .pi / 180, roll * .pi / 180)
            let ry: [[Double]] = [[cos(a), 0, sin(a)], [0, 1, 0], [-sin(a), 0, cos(a)]]
            let rx: [[Double]] = [[1, 0, 0], [0, cos(b), -sin(b)], [0, sin(b), cos(b)]]
            let rz: [[Double]] = [[cos(c), -sin(c), 0], [sin(c), cos(c), 0], [0, 0, 1]]
            func mul(_ p: [[Double]], _ q: [[Double]]) -> [[Double]] {
                (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + p[i][$1] * q[$1][j] } } }
            }
            let r = mul(mul(ry, rx), rz)
            // Scaled by 1.7 and translated, which the pose must ignore.
            var m = [Float](repeating: 0, count: 16)
            for i in 0..<3 {
                for j in 0..<3 { m[i * 4 + j] = Float(r[i][j] * 1.7) }
                m[i * 4 + 3] = Float(i) * 10
            }
            m[15] = 1
            return m
        }
        for (yaw, pitch, roll) in [(0.0, 0.0, 0.0), (30, -10, 5), (-45, 20, -60), (10, 80, 170)] {
            guard let p = HeadPose(rowMajor: rotation(yaw: yaw, pitch: pitch, roll: roll)) else { return XCTFail() }
            XCTAssertEqual(p.yaw, Float(yaw), accuracy: 1e-3)
            XCTAssertEqual(p.pitch, Float(pitch), accuracy: 1e-3)
            XCTAssertEqual(p.roll, Float(roll), accuracy: 1e-3)
        }
        XCTAssertNil(HeadPose(rowMajor: [Float](repeating: 0, count: 16)))
    }

    func testTransformMatrixIsRowMajor() throws {
        let m = try XCTUnwrap(TransformMatrix(data: (0..<16).map(Float.init), rows: 4, columns: 4))
        XCTAssertEqual(m.value(atRow: 0, column: 3), 3)
        XCTAssertEqual(m.value(atRow: 3, column: 0), 12)
        XCTAssertTrue(m.value(atRow: 4, column: 0).isNaN)
        XCTAssertNil(TransformMatrix(data: [1, 2, 3], rows: 2, columns: 2))
    }

    func testConnectionsHaveMediaPipesSizes() {
        XCTAssertEqual(FaceLandmarker.lipsConnections().count, 40)
        XCTAssertEqual(FaceLandmarker.leftEyeConnections().count, 16)
        XCTAssertEqual(FaceLandmarker.leftEyebrowConnections().count, 8)
        XCTAssertEqual(FaceLandmarker.leftIrisConnections().count, 4)
        XCTAssertEqual(FaceLandmarker.rightIrisConnections().first, Connection(start: 469, end: 470))
        XCTAssertEqual(FaceLandmarker.faceOvalConnections().count, 36)
        XCTAssertEqual(FaceLandmarker.contoursConnections().count, 40 + 16 + 8 + 4 + 16 + 8 + 4 + 36)
        XCTAssertEqual(FaceLandmarker.tesselationConnections().count, 2556)
        let all = FaceLandmarker.faceConnections().flatMap { [$0.start, $0.end] }
        XCTAssertEqual(all.max(), 477)
        XCTAssertEqual(all.min(), 0)
    }

    /// Head pose against the virtual camera's known roll (6 degrees a frame, video_synthetic_roll.json):
    /// the face turns counter-clockwise in the frames, so its roll grows by the camera's, while yaw and
    /// pitch stay put.
    func testHeadPoseFollowsTheCamerasRoll() throws {
        let fx = try FaceLandmarkerParityTests.fixture("video_synthetic_roll.json")
        guard let source = fx.source, let w = fx.width, let h = fx.height else { return XCTFail("fixture fields") }
        let photo = try image(source)
        let o = try options()
        o.outputFacialTransformationMatrixes = true
        let landmarker = try FaceLandmarker(options: o)
        var first: HeadPose?
        // Up to a quarter turn: past it the upright-trained detector loses the face in image mode.
        for (i, e) in fx.results.enumerated() where 6 * i <= 90 {
            guard let m = e.affine else { return XCTFail("frame \(i)") }
            let frame = try FaceLandmarkerParityTests.syntheticFrame(photo, affine: m, width: w, height: h)
            guard let pose = try landmarker.detect(image: frame).headPoses.first else { return XCTFail("frame \(i)") }
            guard let p0 = first else { first = pose; continue }
            var droll = pose.roll - p0.roll
            if droll > 180 { droll -= 360 } else if droll < -180 { droll += 360 }
            XCTAssertEqual(droll, Float(6 * i), accuracy: 3, "frame \(i): roll")
            XCTAssertEqual(pose.yaw, p0.yaw, accuracy: 5, "frame \(i): yaw")
            XCTAssertEqual(pose.pitch, p0.pitch, accuracy: 5, "frame \(i): pitch")
        }
    }
}
