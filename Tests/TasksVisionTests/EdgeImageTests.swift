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
            try MPImage(pixels: [UInt8](repeating: 0, count: 2 * 3 * 4), width: 2, height: 3, pixelFormat: .rgba8, orientation: .leftMirrored),
            try MPImage(pixels: [UInt8](repeating: 0, count: 64 * 48 * 3), width: 64, height: 48, pixelFormat: .rgb8),
            try MPImage(pixels: [UInt8](repeating: 255, count: 640 * 480), width: 640, height: 480, pixelFormat: .gray8, orientation: .right),
            try MPImage(pixels: [UInt8](repeating: 200, count: 3000 * 10), width: 3000, height: 10, pixelFormat: .gray8),
        ]
        for image in images {
            for d in try face.detect(image: image).detections {
                XCTAssertTrue(d.boundingBox.width.isFinite && d.categories[0].score.isFinite)
            }
            for l in try hands.detect(image: image).landmarks.joined() { XCTAssertTrue(l.x.isFinite && l.y.isFinite) }
            for l in try pose.detect(image: image).landmarks.joined() { XCTAssertTrue(l.x.isFinite && l.y.isFinite) }
        }
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
        XCTAssertEqual(try FaceDetector(modelPath: try Paths.model("blaze_face_short_range.tflite")).detect(image: image).detections.count, 1)
    }
}
