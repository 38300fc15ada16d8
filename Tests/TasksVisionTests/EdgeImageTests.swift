import Foundation
@testable import TasksVision
import XCTest

/// Odd images never crash and give finite results.
final class EdgeImageTests: XCTestCase {
    func testTinyGrayAndFlatImages() throws {
        let face = try FaceDetector(modelPath: try Paths.model("blaze_face_short_range.tflite"))
        let hands = try HandLandmarker(modelPath: try Paths.model("hand_landmarker.task"))
        let pose = try PoseLandmarker(modelPath: try Paths.model("pose_landmarker_lite.task"))
        let images: [MPImage] = [
            try MPImage(pixels: [128], width: 1, height: 1, pixelFormat: .gray8),
            try MPImage(pixels: [UInt8](repeating: 0, count: 2 * 3 * 4), width: 2, height: 3, pixelFormat: .rgba8,
                        orientation: .leftMirrored),
            try MPImage(pixels: [UInt8](repeating: 0, count: 64 * 48 * 3), width: 64, height: 48, pixelFormat: .rgb8),
            try MPImage(pixels: [UInt8](repeating: 255, count: 640 * 480), width: 640, height: 480, pixelFormat: .gray8,
                        orientation: .right),
            try MPImage(pixels: [UInt8](repeating: 200, count: 3000 * 10), width: 3000, height: 10,
                        pixelFormat: .gray8),
        ]
        for image in images {
            for d in try face.detect(image: image).detections {
                XCTAssertTrue(d.boundingBox.width.isFinite && d.categories[0].score.isFinite)
            }
            for l in try hands.detect(image: image).landmarks.joined() { XCTAssertTrue(l.x.isFinite && l.y.isFinite) }
            for l in try pose.detect(image: image).landmarks.joined() { XCTAssertTrue(l.x.isFinite && l.y.isFinite) }
        }
    }

    /// All-black and all-white frames in every orientation, and a 10000x10000 frame, through
    /// every task (video mode too): no crash, no NaN, nothing found in a flat image.
    func testFlatFramesInEveryOrientationAndAHugeFrame() throws {
        let face = try FaceDetector(modelPath: try Paths.model("blaze_face_short_range.tflite"))
        let ho = HandLandmarkerOptions()
        ho.baseOptions.modelAssetPath = try Paths.model("hand_landmarker.task")
        ho.runningMode = .video
        ho.numHands = 2
        let hands = try HandLandmarker(options: ho)
        let go = GestureRecognizerOptions()
        go.baseOptions.modelAssetPath = try Paths.model("gesture_recognizer.task")
        let gestures = try GestureRecognizer(options: go)
        let po = PoseDetectorOptions()
        po.modelAssetPath = try Paths.model("pose_landmarker_lite.task")
        po.detectorMode = .stream
        let pose = PoseDetector.poseDetector(options: po)
        var t = 0
        func check(_ image: MPImage, _ what: String) throws {
            t += 33
            XCTAssertEqual(try face.detect(image: image).detections.count, 0, what)
            let h = try hands.detect(videoFrame: image, timestampInMilliseconds: t)
            XCTAssertEqual(h.landmarks.count, 0, what)
            XCTAssertEqual(try gestures.recognize(image: image).gestures.count, 0, what)
            for p in try pose.results(in: VisionImage(image: image), timestampInMilliseconds: t) {
                XCTAssertTrue(p.landmarks.allSatisfy {
                    $0.position.x.isFinite && $0.position.y.isFinite && $0.inFrameLikelihood.isFinite
                }, what)
            }
        }
        for value: UInt8 in [0, 255] {
            for orientation in ImageOrientation.allCases {
                let image = try MPImage(pixels: [UInt8](repeating: value, count: 320 * 240 * 4), width: 320,
                                        height: 240,
                                        pixelFormat: .bgra8, orientation: orientation)
                try check(image, "\(value) \(orientation)")
            }
        }
        let huge = try MPImage(pixels: [UInt8](repeating: 255, count: 10_000 * 10_000), width: 10_000, height: 10_000,
                               pixelFormat: .gray8)
        try check(huge, "10000x10000")
    }

    func testGrayPhotoFindsTheFace() throws {
        let rgb = try TestImages.load(Paths.images + "/face_frontal_1.png")
        var gray = [UInt8]()
        rgb.withBytes { b in
            for i in 0..<(rgb.pixelWidth * rgb.pixelHeight) {
                let r = Int(b[3 * i]) * 299, g = Int(b[3 * i + 1]) * 587, bl = Int(b[3 * i + 2]) * 114
                gray.append(UInt8((r + g + bl) / 1000))
            }
        }
        let image = try MPImage(pixels: gray, width: rgb.pixelWidth, height: rgb.pixelHeight, pixelFormat: .gray8)
        XCTAssertEqual(try FaceDetector(modelPath: try Paths.model("blaze_face_short_range.tflite"))
                        .detect(image: image).detections.count, 1)
    }
}
