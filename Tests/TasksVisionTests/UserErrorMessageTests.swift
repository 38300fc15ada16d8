import Foundation
@testable import TasksVision
import XCTest

/// Every error a caller of the task API can cause, each checked for a message that names
/// its cause (the option, the image property, the model member, the method).
final class UserErrorMessageTests: XCTestCase {
    /// Asserts that `body` throws and that the message holds every fragment.
    func expect(_ fragments: [String], _ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) {
        do {
            try body()
            XCTFail("no error; expected one naming \(fragments)", file: file, line: line)
        } catch {
            let message = "\(error)"
            for f in fragments {
                XCTAssertTrue(message.contains(f), "'\(message)' does not name '\(f)'", file: file, line: line)
            }
        }
    }

    func blankImage() throws -> MPImage {
        try MPImage(pixels: [UInt8](repeating: 0, count: 64 * 64 * 4), width: 64, height: 64, pixelFormat: .rgba8,
                    orientation: .up)
    }

    /// Every task throws one type: model-file errors of the format reader arrive as `VisionTaskError`.
    func testOneErrorType() throws {
        let garbage = FileManager.default.temporaryDirectory
            .appendingPathComponent("garbage-\(UUID().uuidString).tflite")
        try Data("not a model".utf8).write(to: garbage)
        defer { try? FileManager.default.removeItem(at: garbage) }
        let attempts: [() throws -> Void] = [
            { _ = try FaceDetector(modelPath: garbage.path) },
            { _ = try HandLandmarker(modelPath: "/no/such/hand_landmarker.task") },
            { _ = try GestureRecognizer(modelPath: garbage.path) },
            { _ = try PoseLandmarker(modelPath: garbage.path) },
            { _ = try PoseDetector.poseDetector(
                options: { let o = PoseDetectorOptions(); o.modelAssetPath = garbage.path; return o }())
                .results(in: VisionImage(image: try self.blankImage())) },
        ]
        for attempt in attempts {
            XCTAssertThrowsError(try attempt()) { error in
                guard let e = error as? VisionTaskError else { return XCTFail("\(type(of: error)): \(error)") }
                XCTAssertTrue("\(e)".contains("garbage-") || "\(e)".contains("/no/such/hand_landmarker.task"), "\(e)")
                XCTAssertEqual((error as NSError).localizedDescription, e.description)
            }
        }
    }

    func testOptionErrors() throws {
        let face = try Paths.model("blaze_face_short_range.tflite")
        let hands = try Paths.model("hand_landmarker.task")
        let gestures = try Paths.model("gesture_recognizer.task")
        let pose = try Paths.model("pose_landmarker_lite.task")

        expect(["baseOptions.modelAssetPath", "empty"]) { _ = try FaceDetector(options: FaceDetectorOptions()) }
        expect(["baseOptions.threads", "0"]) {
            let o = FaceDetectorOptions(); o.baseOptions.modelAssetPath = face; o.baseOptions.threads = 0
            _ = try FaceDetector(options: o)
        }
        expect(["numHands", "-1"]) {
            let o = HandLandmarkerOptions(); o.baseOptions.modelAssetPath = hands; o.numHands = -1
            _ = try HandLandmarker(options: o)
        }
        expect(["minHandPresenceConfidence", "2"]) {
            let o = HandLandmarkerOptions(); o.baseOptions.modelAssetPath = hands; o.minHandPresenceConfidence = 2
            _ = try HandLandmarker(options: o)
        }
        expect(["minTrackingConfidence", "nan"]) {
            let o = HandLandmarkerOptions(); o.baseOptions.modelAssetPath = hands; o.minTrackingConfidence = .nan
            _ = try HandLandmarker(options: o)
        }
        expect(["liveStream", "resultCallback"]) {
            let o = HandLandmarkerOptions(); o.baseOptions.modelAssetPath = hands; o.runningMode = .liveStream
            _ = try HandLandmarker(options: o)
        }
        expect(["resultCallback", "only allowed in the liveStream"]) {
            let o = GestureRecognizerOptions(); o.baseOptions.modelAssetPath = gestures; o.resultCallback = { _, _ in }
            _ = try GestureRecognizer(options: o)
        }
        expect(["maxResults", "-3"]) {
            let o = GestureRecognizerOptions(); o.baseOptions.modelAssetPath = gestures
            o.customGesturesClassifierOptions = ClassifierOptions(maxResults: -3)
            _ = try GestureRecognizer(options: o)
        }
        expect(["scoreThreshold", "finite"]) {
            let o = GestureRecognizerOptions(); o.baseOptions.modelAssetPath = gestures
            o.cannedGesturesClassifierOptions = ClassifierOptions(scoreThreshold: .infinity)
            _ = try GestureRecognizer(options: o)
        }
        expect(["numPoses", "0"]) {
            let o = PoseLandmarkerOptions(); o.baseOptions.modelAssetPath = pose; o.numPoses = 0
            _ = try PoseLandmarker(options: o)
        }
        expect(["minPoseDetectionConfidence", "-0.5"]) {
            let o = PoseLandmarkerOptions(); o.baseOptions.modelAssetPath = pose; o.minPoseDetectionConfidence = -0.5
            _ = try PoseLandmarker(options: o)
        }
        expect(["threads", "65"]) {
            let o = PoseDetectorOptions(); o.modelAssetPath = pose; o.threads = 65
            _ = try PoseDetector.poseDetector(options: o).results(in: VisionImage(image: try blankImage()))
        }
    }

    func testModelErrors() throws {
        let face = try Paths.model("blaze_face_short_range.tflite")
        let hands = try Paths.model("hand_landmarker.task")
        let pose = try Paths.model("pose_landmarker_lite.task")
        expect(["/no/such/model.task"]) {
            let o = HandLandmarkerOptions(); o.baseOptions.modelAssetPath = "/no/such/model.task"
            _ = try HandLandmarker(options: o)
        }
        expect(["pose_landmarker_lite.task", "hand_detector.tflite"]) {
            let o = HandLandmarkerOptions(); o.baseOptions.modelAssetPath = pose
            _ = try HandLandmarker(options: o)
        }
        expect(["hand_landmarker.task", "pose_detector.tflite"]) {
            let o = PoseDetectorOptions(); o.modelAssetPath = hands
            _ = try PoseDetector.poseDetector(options: o).results(in: VisionImage(image: try blankImage()))
        }
        expect(["hand_landmarker.task", "gesture_embedder.tflite", "hand_gesture_recognizer.task"]) {
            let o = GestureRecognizerOptions(); o.baseOptions.modelAssetPath = hands
            _ = try GestureRecognizer(options: o)
        }
        expect(["BlazeFace"]) {
            let o = FaceDetectorOptions(); o.baseOptions.modelAssetPath = try Paths.model("pose_detection.tflite")
            _ = try FaceDetector(options: o)
        }
        expect(["hand_detector.tflite", "palm detector"]) {
            // A folder whose hand_detector.tflite is a face model.
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
                "tv-wrong-hands-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            try FileManager.default.copyItem(atPath: face,
                                             toPath: dir.appendingPathComponent("hand_detector.tflite").path)
            try FileManager.default.copyItem(atPath: try Paths.model("hand_landmark_lite.tflite"),
                                             toPath: dir.appendingPathComponent("hand_landmarks_detector.tflite").path)
            let o = HandLandmarkerOptions(); o.baseOptions.modelAssetPath = dir.path
            _ = try HandLandmarker(options: o)
        }
        // A quantized model where a float stage reads its tensors: refused at load, naming the tensor and type.
        let int8 = try ModelResources(path: try Paths.model("efficientnet_lite0.tflite"), threads: 1)
        XCTAssertThrowsError(try int8.requireFloat32("the hand landmarker")) {
            XCTAssertEqual("\($0)", "invalid model: \(int8.name): input 'images' is uint8; the hand landmarker takes "
                           + "float32 models")
        }
        XCTAssertNoThrow(try ModelResources(path: face, threads: 1).requireFloat32("the face detector"))
    }

    func testImageAndCallErrors() throws {
        expect(["-4x3", "positive"]) { _ = try MPImage(pixels: [], width: -4, height: 3, pixelFormat: .gray8) }
        expect(["100000x100000", "width 100000", "65536 pixels a side"]) {
            _ = try MPImage(pixels: [], width: 100_000, height: 100_000, pixelFormat: .gray8)
        }
        // A tall, thin image is refused for its side, not for a pixel count it does not reach.
        expect(["3x100000", "height 100000", "65536 pixels a side"]) {
            _ = try MPImage(pixels: [UInt8](repeating: 0, count: 300_000), width: 3, height: 100_000,
                            pixelFormat: .gray8)
        }
        expect(["60000x60000", "larger than the supported 268435456 pixels"]) {
            _ = try MPImage(pixels: [], width: 60_000, height: 60_000, pixelFormat: .gray8)
        }
        expect(["bytesPerRow 10", "rgba8"]) {
            _ = try MPImage(pixels: [UInt8](repeating: 0, count: 64), width: 4, height: 2, pixelFormat: .rgba8,
                            bytesPerRow: 10)
        }
        expect(["31 bytes", "32"]) {
            _ = try MPImage(pixels: [UInt8](repeating: 0, count: 31), width: 4, height: 2, pixelFormat: .rgba8)
        }

        let o = HandLandmarkerOptions()
        o.baseOptions.modelAssetPath = try Paths.model("hand_landmarker.task")
        o.runningMode = .video
        let landmarker = try HandLandmarker(options: o)
        let image = try TestImages.load(Paths.images + "/hand_thumb_up_1.png")
        expect(["detect(image:)", "video"]) { _ = try landmarker.detect(image: image) }
        expect(["detectAsync", "video"]) { _ = try landmarker.detectAsync(image: image, timestampInMilliseconds: 1) }
        let first = try landmarker.detect(videoFrame: image, timestampInMilliseconds: 100)
        expect(["timestamp 100", "previous one, 100"]) {
            _ = try landmarker.detect(videoFrame: image, timestampInMilliseconds: 100)
        }
        // Still usable after the failed calls.
        XCTAssertEqual(try landmarker.detect(videoFrame: image, timestampInMilliseconds: 133).landmarks.count,
                       first.landmarks.count)

        let stream = PoseDetectorOptions()
        stream.modelAssetPath = try Paths.model("pose_landmarker_lite.task")
        stream.detectorMode = .stream
        let poseDetector = PoseDetector.poseDetector(options: stream)
        _ = try poseDetector.results(in: VisionImage(image: image), timestampInMilliseconds: 50)
        expect(["timestamp 40", "50"]) {
            _ = try poseDetector.results(in: VisionImage(image: image), timestampInMilliseconds: 40)
        }
    }
}
