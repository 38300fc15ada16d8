import Foundation
@testable import TasksVision
import XCTest

/// Regions of interest give the cropped image's results in the whole image's coordinates, and
/// HandDetector gives the palms the hand landmarker uses.
final class RegionAndPalmTests: XCTestCase {
    /// The stored pixels of `r` (whole pixels) as an image of their own.
    func crop(_ image: MPImage, x: Int, y: Int, width: Int, height: Int) throws -> MPImage {
        let bpp = image.pixelFormat.bytesPerPixel
        var pixels: [UInt8] = []
        image.withBytes { src in
            for row in y..<(y + height) {
                let start = row * image.bytesPerRow + x * bpp
                pixels += src[start..<(start + width * bpp)]
            }
        }
        return try MPImage(pixels: pixels, width: width, height: height, pixelFormat: image.pixelFormat,
                           orientation: image.orientation)
    }

    /// hands_two_1 is 612 x 408: the left half, [0, 0.5] x [0, 1], is 306 x 408 whole pixels.
    let leftHalf = CGRect(x: 0, y: 0, width: 0.5, height: 1)

    func map(_ v: Float, offset: Int, size: Int, full: Int) -> Float { (Float(offset) + v * Float(size)) / Float(full) }

    func testHandRegionEqualsTheCroppedRun() throws {
        let image = try TestImages.load(Paths.images + "/hands_two_1.png")
        let cropped = try crop(image, x: 0, y: 0, width: 306, height: 408)
        for mode in [RunningMode.image, .video] {
            let options = HandLandmarkerOptions()
            options.baseOptions.modelAssetPath = try Paths.model("hand_landmarker.task")
            options.numHands = 2
            options.runningMode = mode
            let a = try HandLandmarker(options: options), b = try HandLandmarker(options: options)
            for t in 0..<3 {
                let roi = ImageProcessingOptions(regionOfInterest: leftHalf)
                let inRegion = mode == .image ? try a.detect(image: image, imageProcessingOptions: roi)
                    : try a.detect(videoFrame: image, timestampInMilliseconds: t, imageProcessingOptions: roi)
                let alone = mode == .image ? try b.detect(image: cropped)
                    : try b.detect(videoFrame: cropped, timestampInMilliseconds: t)
                XCTAssertEqual(inRegion.landmarks.count, 1, "one hand in the left half")
                XCTAssertEqual(inRegion.landmarks.count, alone.landmarks.count)
                for (h, g) in zip(inRegion.landmarks, alone.landmarks) {
                    for (p, q) in zip(h, g) {
                        XCTAssertEqual(p.x, map(q.x, offset: 0, size: 306, full: 612))
                        XCTAssertEqual(p.y, map(q.y, offset: 0, size: 408, full: 408))
                        XCTAssertEqual(p.z, q.z * 306 / 612)
                    }
                }
                XCTAssertEqual(inRegion.worldLandmarks, alone.worldLandmarks)
                XCTAssertEqual(inRegion.handedness, alone.handedness)
            }
        }
    }

    func testGestureRegionEqualsTheCroppedRun() throws {
        let image = try TestImages.load(Paths.images + "/hands_two_1.png")
        let recognizer = try GestureRecognizer(modelPath: try Paths.model("gesture_recognizer.task"))
        let a = try recognizer.recognize(image: image, imageProcessingOptions: .init(regionOfInterest: leftHalf))
        let b = try recognizer.recognize(image: try crop(image, x: 0, y: 0, width: 306, height: 408))
        XCTAssertEqual(a.gestures, b.gestures)
        XCTAssertEqual(a.landmarks.count, 1)
        XCTAssertEqual(a.landmarks.joined().map(\.x),
                       b.landmarks.joined().map { map($0.x, offset: 0, size: 306, full: 612) })
    }

    func testFaceAndPoseRegionsEqualTheCroppedRun() throws {
        // faces_two_1 is 1280 x 853; the region [0.5, 1] x [0, 1] is x 640..<1280.
        let faces = try TestImages.load(Paths.images + "/faces_two_1.png")
        let detector = try FaceDetector(modelPath: try Paths.model("blaze_face_short_range.tflite"))
        let region = try detector.detect(
            image: faces, imageProcessingOptions: .init(regionOfInterest: CGRect(x: 0.5, y: 0, width: 0.5, height: 1)))
        let alone = try detector.detect(image: try crop(faces, x: 640, y: 0, width: 640, height: 853))
        XCTAssertEqual(region.detections.count, 1)
        XCTAssertEqual(region.detections.count, alone.detections.count)
        for (d, e) in zip(region.detections, alone.detections) {
            XCTAssertEqual(d.boundingBox, e.boundingBox.offsetBy(dx: 640, dy: 0))
            XCTAssertEqual(d.categories, e.categories)
            for (k, l) in zip(d.keypoints ?? [], e.keypoints ?? []) {
                XCTAssertEqual(Float(k.location.x), map(Float(l.location.x), offset: 640, size: 640, full: 1280))
            }
        }
        // Pose, both shapes: pose_yoga_1 is 1000 x 667, region x 250..<750.
        let pose = try TestImages.load(Paths.images + "/pose_yoga_1.png")
        let roi = CGRect(x: 0.25, y: 0, width: 0.5, height: 1)
        let landmarker = try PoseLandmarker(modelPath: try Paths.model("pose_landmarker_lite.task"))
        let p = try landmarker.detect(image: pose, imageProcessingOptions: .init(regionOfInterest: roi))
        let q = try landmarker.detect(image: try crop(pose, x: 250, y: 0, width: 500, height: 667))
        XCTAssertEqual(p.landmarks.count, q.landmarks.count)
        for (a, b) in zip(p.landmarks.joined(), q.landmarks.joined()) {
            XCTAssertEqual(a.x, map(b.x, offset: 250, size: 500, full: 1000))
            XCTAssertEqual(a.visibility, b.visibility)
        }
        let options = PoseDetectorOptions()
        options.detectorMode = .singleImage
        options.modelAssetPath = try Paths.model("pose_landmarker_lite.task")
        let mlkit = PoseDetector.poseDetector(options: options)
        let whole = VisionImage(image: pose)
        whole.regionOfInterest = roi
        let r = try mlkit.results(in: whole),
            s = try mlkit.results(in: VisionImage(image: try crop(pose, x: 250, y: 0, width: 500, height: 667)))
        XCTAssertEqual(r.count, s.count)
        for (a, b) in zip(r.flatMap(\.landmarks), s.flatMap(\.landmarks)) {
            XCTAssertEqual(a.position.x, b.position.x + 250)
            XCTAssertEqual(a.position.y, b.position.y)
        }
    }

    func testTurnedImageRegion() throws {
        // Displayed turned right, hands_two_1 is 408 x 612; its top half is the stored left half.
        let image = try TestImages.load(Paths.images + "/hands_two_1.png", orientation: .right)
        let landmarker = try HandLandmarker(modelPath: try Paths.model("hand_landmarker.task"))
        let a = try landmarker.detect(
            image: image, imageProcessingOptions: .init(regionOfInterest: CGRect(x: 0, y: 0, width: 1, height: 0.5)))
        let b = try landmarker.detect(image: try crop(image, x: 0, y: 0, width: 306, height: 408))
        XCTAssertEqual(a.landmarks.count, b.landmarks.count)
        XCTAssertFalse(a.landmarks.isEmpty)
        for (p, q) in zip(a.landmarks.joined(), b.landmarks.joined()) {
            XCTAssertEqual(p.x, map(q.x, offset: 0, size: 408, full: 408))
            XCTAssertEqual(p.y, map(q.y, offset: 0, size: 306, full: 612))
        }
        XCTAssertThrowsError(try landmarker.detect(
            image: image, imageProcessingOptions: .init(regionOfInterest: CGRect(x: -0.1, y: 0, width: 1, height: 1))))
    }

    func testHandDetectorGivesTheLandmarkersPalms() throws {
        let landmarker = try HandLandmarker(modelPath: try Paths.model("hand_landmarker.task"))
        let options = HandDetectorOptions()
        options.baseOptions.modelAssetPath = try Paths.model("hand_landmarker.task")
        options.numHands = 2
        let detector = try HandDetector(options: options)
        let fromTflite = try HandDetector(modelPath: try Paths.model("hand_detector.tflite"))
        var palms = 0
        for file in ["hands_two_1.png", "hand_open_palm_1.png", "hand_victory_1.png", "negative_coffee_1.png"] {
            for o in [ImageOrientation.up, .right] {
                let image = try TestImages.load(Paths.images + "/" + file, orientation: o)
                landmarker.pipeline.settings.numHands = 2
                let inside = landmarker.pipeline.detectHandRects(image)
                let found = detector.palms(image)
                XCTAssertEqual(found.map(\.rect), inside, file)
                let result = try detector.detect(image: image)
                XCTAssertEqual(result.detections.count, inside.count)
                XCTAssertEqual(result.handRectangles.count, inside.count)
                XCTAssertTrue(result.detections.allSatisfy {
                    $0.keypoints?.count == 7 && $0.categories[0].score >= 0.5
                })
                XCTAssertEqual(try fromTflite.detect(image: image).detections.first, result.detections.first)
                if o == .up { XCTAssertEqual(result.handRectangles, inside) }
                palms += inside.count
            }
        }
        XCTAssertGreaterThanOrEqual(palms, 6)
        // A turned image's rectangle is the upright one's, turned: same size in pixels.
        let up = try detector.detect(image: try TestImages.load(Paths.images + "/hand_open_palm_1.png"))
        let turned = try detector.detect(image: try TestImages.load(Paths.images + "/hand_open_palm_1.png",
                                                                    orientation: .right))
        if let a = up.handRectangles.first, let b = turned.handRectangles.first {
            XCTAssertEqual(a.width * 928, b.width * 960, accuracy: 0.02 * a.width * 928)
            XCTAssertEqual(b.xCenter, 1 - a.yCenter, accuracy: 0.02)
        } else {
            XCTFail("no palm in hand_open_palm_1")
        }
    }
}
