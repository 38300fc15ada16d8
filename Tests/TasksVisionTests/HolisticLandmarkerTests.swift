import Foundation
@testable import TasksVision
import XCTest

/// HolisticLandmarker where it goes beyond MediaPipe, and its errors. (Its results against MediaPipe's:
/// HolisticLandmarkerParityTests.)
final class HolisticLandmarkerTests: XCTestCase {
    func options(_ mode: RunningMode = .image) throws -> HolisticLandmarkerOptions {
        let o = HolisticLandmarkerOptions()
        o.baseOptions.modelAssetPath = try Paths.model("holistic_landmarker_assembled.task")
        o.runningMode = mode
        return o
    }

    func photo(_ name: String) throws -> MPImage { try TestImages.load(Paths.images + "/" + name) }

    /// MediaPipe's video mode fails on a frame of another size with the mask on; here the new mask passes through.
    func testVideoFramesOfChangingSizeKeepGoing() throws {
        let o = try options(.video)
        o.outputPoseSegmentationMasks = true
        let landmarker = try HolisticLandmarker(options: o)
        var masks: [Mask] = []
        for (i, name) in ["pose_standing_1.png", "pose_dance_1.png", "pose_standing_1.png"].enumerated() {
            let image = try photo(name)
            let r = try landmarker.detect(videoFrame: image, timestampInMilliseconds: i * 33)
            let mask = try XCTUnwrap(r.poseSegmentationMask, name)
            XCTAssertEqual([mask.width, mask.height], [image.width, image.height], name)
            masks.append(mask)
        }
        // The first frame passes through; the third, of the first one's size again, is smoothed with the first one's
        // mask (MediaPipe's loopback would hand it the second frame's, of another size).
        let alone = try HolisticLandmarker(options: { let o = try options(); o.outputPoseSegmentationMasks = true
                                                      return o }()).detect(image: try photo("pose_standing_1.png"))
        XCTAssertEqual(masks[0], alone.poseSegmentationMask, "the first frame passes through")
        XCTAssertNotEqual(masks[2], masks[0], "tracked from the second frame, smoothed with the first's mask")
    }

    /// Blendshapes in every running mode (MediaPipe iOS throws on `outputFaceBlendshapes`).
    func testBlendshapesInEveryMode() throws {
        let image = try photo("face_frontal_1.png")
        for mode in [RunningMode.image, .video, .liveStream] {
            let o = try options(mode)
            o.outputFaceBlendshapes = true
            let done = XCTestExpectation(description: "live result")
            var live: HolisticLandmarkerResult?
            if mode == .liveStream {
                o.resultCallback = { result, _ in live = try? result.get(); done.fulfill() }
            }
            let landmarker = try HolisticLandmarker(options: o)
            let r: HolisticLandmarkerResult?
            switch mode {
            case .image: r = try landmarker.detect(image: image)
            case .video: r = try landmarker.detect(videoFrame: image, timestampInMilliseconds: 0)
            case .liveStream:
                XCTAssertTrue(try landmarker.detectAsync(image: image, timestampInMilliseconds: 0))
                wait(for: [done], timeout: 30)
                landmarker.waitForPendingResults()
                r = live
            }
            let shapes = try XCTUnwrap(r?.faceBlendshapes, "\(mode)")
            XCTAssertEqual(shapes.categories.map(\.categoryName), HolisticLandmarker.blendshapeNames, "\(mode)")
            XCTAssertEqual(r?.poseWorldLandmarks.count, 33, "\(mode): world landmarks always given")
        }
    }

    /// The head pose as `vision face-landmarks` gives it: the face landmarker's geometry pipeline on the holistic
    /// face (found from a slightly other region, so within a few degrees of the face landmarker's).
    func testHeadPoseAsTheFaceLandmarkerGivesIt() throws {
        let o = try options()
        o.outputFacialTransformationMatrixes = true
        o.faceGeometryModelAssetPath = try Paths.model("face_landmarker.task")
        let holistic = try HolisticLandmarker(options: o).detect(image: try photo("face_frontal_1.png"))
        let f = FaceLandmarkerOptions()
        f.baseOptions.modelAssetPath = try Paths.model("face_landmarker.task")
        f.outputFacialTransformationMatrixes = true
        let face = try FaceLandmarker(options: f).detect(image: try photo("face_frontal_1.png"))
        let ours = try XCTUnwrap(holistic.headPose), theirs = try XCTUnwrap(face.headPoses.first)
        XCTAssertEqual(ours.yaw, theirs.yaw, accuracy: 2)
        XCTAssertEqual(ours.pitch, theirs.pitch, accuracy: 2)
        XCTAssertEqual(ours.roll, theirs.roll, accuracy: 2)
        XCTAssertEqual(holistic.facialTransformationMatrix?.rows, 4)
        // Without the option there is none, and no geometry is needed.
        XCTAssertNil(try HolisticLandmarker(options: try options()).detect(image: try photo("face_frontal_1.png"))
            .facialTransformationMatrix)
    }

    /// The same bits at any thread count.
    func testResultsDoNotDependOnThreads() throws {
        let image = try photo("pose_standing_1.png")
        var results: [HolisticLandmarkerResult] = []
        for threads in [1, 2] {
            let o = try options()
            o.baseOptions.threads = threads
            o.outputFaceBlendshapes = true
            o.outputPoseSegmentationMasks = true
            results.append(try HolisticLandmarker(options: o).detect(image: image))
        }
        XCTAssertEqual(results[0], results[1])
    }

    /// An oriented image is processed as displayed: its result equals the turned pixels' result.
    func testOrientedImageEqualsItsTurnedPixels() throws {
        let image = try photo("pose_dance_1.png").withOrientation(.leftMirrored)
        let landmarker = try HolisticLandmarker(options: try options())
        XCTAssertEqual(try landmarker.detect(image: image), try landmarker.detect(image: image.upright()))
    }

    /// Tiny, flat, long and oriented images in image and video mode, the mask on: no failure, finite values, masks
    /// of the displayed size; nothing found in a flat image.
    func testOddImages() throws {
        let images: [MPImage] = [
            try MPImage(pixels: [128], width: 1, height: 1, pixelFormat: .gray8),
            try MPImage(pixels: [UInt8](repeating: 0, count: 2 * 3 * 4), width: 2, height: 3, pixelFormat: .rgba8,
                        orientation: .leftMirrored),
            try MPImage(pixels: [UInt8](repeating: 255, count: 640 * 480), width: 640, height: 480, pixelFormat: .gray8,
                        orientation: .right),
            try MPImage(pixels: [UInt8](repeating: 200, count: 3000 * 10), width: 3000, height: 10,
                        pixelFormat: .gray8),
        ]
        for mode in [RunningMode.image, .video] {
            let o = try options(mode)
            o.outputPoseSegmentationMasks = true
            o.outputFaceBlendshapes = true
            let landmarker = try HolisticLandmarker(options: o)
            for (i, image) in images.enumerated() {
                let r = mode == .image ? try landmarker.detect(image: image)
                    : try landmarker.detect(videoFrame: image, timestampInMilliseconds: i)
                let all = r.faceLandmarks + r.poseLandmarks + r.leftHandLandmarks + r.rightHandLandmarks
                XCTAssertTrue(all.allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }, "\(mode) \(i)")
                XCTAssertTrue(r.poseLandmarks.isEmpty, "\(mode) \(i): a flat image has no person")
                if let mask = r.poseSegmentationMask {
                    XCTAssertEqual([mask.width, mask.height], [image.width, image.height])
                }
            }
        }
        // The same photo as BGRA gives the RGB photo's result.
        let rgb = try photo("pose_dance_1.png")
        var bgra = [UInt8](), source = rgb.withBytes { Array($0) }
        for p in stride(from: 0, to: source.count, by: 3) { bgra += [source[p + 2], source[p + 1], source[p], 255] }
        source = []
        let image = try MPImage(pixels: bgra, width: rgb.width, height: rgb.height, pixelFormat: .bgra8)
        let landmarker = try HolisticLandmarker(options: try options())
        XCTAssertEqual(try landmarker.detect(image: image), try landmarker.detect(image: rgb))
    }

    /// The JSON form round-trips (the mask and timestamp aside), and the iOS initializer builds the same result.
    func testResultCodingAndInitializer() throws {
        let o = try options()
        o.outputFaceBlendshapes = true
        let r = try HolisticLandmarker(options: o).detect(image: try photo("pose_standing_1.png"))
        let decoded = try JSONDecoder().decode(HolisticLandmarkerResult.self, from: try JSONEncoder().encode(r))
        XCTAssertEqual(decoded, r)
        let built = HolisticLandmarkerResult(
            faceLandmarks: r.faceLandmarks, faceBlendshapes: r.faceBlendshapes, poseLandmarks: r.poseLandmarks,
            poseWorldLandmarks: r.poseWorldLandmarks, poseSegmentationMask: nil, leftHandLandmarks: r.leftHandLandmarks,
            leftHandWorldLandmarks: r.leftHandWorldLandmarks, rightHandLandmarks: r.rightHandLandmarks,
            rightHandWorldLandmarks: r.rightHandWorldLandmarks, timestampInMilliseconds: 0)
        XCTAssertEqual(built, r)
    }

    func testPythonNamesOfTheOptions() throws {
        let o = HolisticLandmarkerOptions()
        o.minFaceLandmarksConfidence = 0.6
        o.minPoseLandmarksConfidence = 0.7
        o.outputSegmentationMask = true
        XCTAssertEqual(o.minFacePresenceConfidence, 0.6)
        XCTAssertEqual(o.minPosePresenceConfidence, 0.7)
        XCTAssertTrue(o.outputPoseSegmentationMasks)
        // MediaPipe's defaults (MPPHolisticLandmarkerOptions.m, Python 1.2.3).
        let d = HolisticLandmarkerOptions()
        XCTAssertEqual([d.minFaceDetectionConfidence, d.minFaceSuppressionThreshold, d.minFacePresenceConfidence,
                        d.minPoseDetectionConfidence, d.minPoseSuppressionThreshold, d.minPosePresenceConfidence,
                        d.minHandLandmarksConfidence], [0.5, 0.3, 0.5, 0.5, 0.3, 0.5, 0.5])
    }

    func testErrorsNameWhatIsWrong() throws {
        let wrongBundle = HolisticLandmarkerOptions()
        wrongBundle.baseOptions.modelAssetPath = try Paths.model("pose_landmarker_full.task")
        XCTAssertThrowsError(try HolisticLandmarker(options: wrongBundle)) { e in
            XCTAssertTrue("\(e)".contains("has no hand_landmarks_detector.tflite (a holistic landmarker bundle holds "),
                          "\(e)")
        }
        let o = try options()
        o.minHandLandmarksConfidence = 1.5
        XCTAssertThrowsError(try HolisticLandmarker(options: o)) { e in
            XCTAssertTrue("\(e)".contains("minHandLandmarksConfidence must be in [0, 1], got 1.5"), "\(e)")
        }
        // A folder of the members without face_blendshapes.tflite serves, but not for blendshapes.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("holistic-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try ModelSource(path: try Paths.model("holistic_landmarker_assembled.task"))
        for member in HolisticLandmarker.bundleMembers {
            try Data(try source.data(member)).write(to: URL(fileURLWithPath: folder + "/" + member))
        }
        let f = HolisticLandmarkerOptions()
        f.baseOptions.modelAssetPath = folder
        XCTAssertEqual(try HolisticLandmarker(options: f).detect(image: try photo("pose_standing_1.png"))
            .poseLandmarks.count, 33)
        f.outputFaceBlendshapes = true
        XCTAssertThrowsError(try HolisticLandmarker(options: f)) { e in
            XCTAssertTrue("\(e)".contains("has no face_blendshapes.tflite, which outputFaceBlendshapes needs"), "\(e)")
        }
        // The head pose needs the face geometry, from the bundle or faceGeometryModelAssetPath.
        let g = try options()
        g.outputFacialTransformationMatrixes = true
        g.faceGeometryModelAssetPath = try Paths.model("hand_landmarker.task")
        XCTAssertThrowsError(try HolisticLandmarker(options: g)) { e in
            XCTAssertTrue("\(e)".contains("has no geometry_pipeline_metadata_landmarks.binarypb"), "\(e)")
        }
    }
}
