import Foundation
import TasksVision
import TasksVisionImageIO
import XCTest

// The calls the MediaPipe Tasks iOS guides (face detector, face landmarker, hand landmarker, gesture
// recognizer, pose landmarker) and ML Kit's iOS pose detection guide show, transcribed with the public
// import only (no @testable), so the API's shape cannot drift from theirs. What differs from the
// guides is only what Linux lacks: `UIImage` becomes `MPImage(contentsOfFile:)`, and
// `Bundle.main.path(forResource:ofType:)` becomes `models.path(forResource:ofType:)`, which also
// gives a `String?` (the installed model's name, found as `ModelLocator` describes). Guides/ holds the guides'
// samples as written, Apple-only ones included (GuideSampleTests and AppleGuideTests run them).

/// Stands in for `Bundle.main` in the guides' model look-up.
struct ModelFiles {
    func path(forResource name: String, ofType type: String) -> String? { name + "." + type }
}

let models = ModelFiles()
let photos = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/testdata/images").path

class FaceDetectorResultProcessor: NSObject, FaceDetectorLiveStreamDelegate {
    let done = XCTestExpectation(description: "face result")
    var faces = -1

    func faceDetector(
        _ faceDetector: FaceDetector,
        didFinishDetection result: FaceDetectorResult?,
        timestampInMilliseconds: Int,
        error: Error?) {
        // Process the face detection result or errors here.
        faces = result?.detections.count ?? -1
        done.fulfill()
    }
}

class FaceLandmarkerResultProcessor: NSObject, FaceLandmarkerLiveStreamDelegate {
    let done = XCTestExpectation(description: "face landmarker result")
    var faces = -1

    func faceLandmarker(
        _ faceLandmarker: FaceLandmarker,
        didFinishDetection result: FaceLandmarkerResult?,
        timestampInMilliseconds: Int,
        error: Error?) {
        // Process the face landmarker result or errors here.
        faces = result?.faceLandmarks.count ?? -1
        done.fulfill()
    }
}

class HandLandmarkerResultProcessor: NSObject, HandLandmarkerLiveStreamDelegate {
    let done = XCTestExpectation(description: "hand result")
    var hands = -1

    func handLandmarker(
        _ handLandmarker: HandLandmarker,
        didFinishDetection result: HandLandmarkerResult?,
        timestampInMilliseconds: Int,
        error: Error?) {
        // Process the hand landmarker result or errors here.
        hands = result?.landmarks.count ?? -1
        done.fulfill()
    }
}

class GestureRecognizerResultProcessor: NSObject, GestureRecognizerLiveStreamDelegate {
    let done = XCTestExpectation(description: "gesture result")
    var gesture: String?

    func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer,
        didFinishRecognition result: GestureRecognizerResult?,
        timestampInMilliseconds: Int,
        error: Error?) {
        // Process the gesture recognizer result or errors here.
        gesture = result?.gestures.first?.first?.categoryName
        done.fulfill()
    }
}

final class GuideCallTests: XCTestCase {
    func photo(_ name: String) throws -> MPImage { try MPImage(contentsOfFile: photos + "/" + name) }

    func testFaceDetectorGuide() throws {
        let modelPath = models.path(
            forResource: "blaze_face_short_range",
            ofType: "tflite")

        let options = FaceDetectorOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .liveStream

        // Assign an object of the class to the `faceDetectorLiveStreamDelegate` property.
        let processor = FaceDetectorResultProcessor()
        options.faceDetectorLiveStreamDelegate = processor

        let faceDetector = try FaceDetector(options: options)
        let image = try photo("faces_two_1.png")
        let timestamp = 0
        try faceDetector.detectAsync(
            image: image,
            timestampInMilliseconds: timestamp)
        wait(for: [processor.done], timeout: 30)
        XCTAssertEqual(processor.faces, 2)

        options.runningMode = .image
        options.faceDetectorLiveStreamDelegate = nil
        let imageDetector = try FaceDetector(options: options)
        let result = try imageDetector.detect(image: image)
        XCTAssertEqual(result.detections.count, 2)
        let box: CGRect = result.detections[0].boundingBox
        let nose: CGPoint? = result.detections[0].keypoints?[2].location
        XCTAssertTrue(box.width > 100 && (nose?.x ?? -1) > 0)
    }

    func testFaceLandmarkerGuide() throws {
        let modelPath = models.path(forResource: "face_landmarker",
                                    ofType: "task")
        let (minFaceDetectionConfidence, minFacePresenceConfidence, minTrackingConfidence): (Float, Float, Float)
            = (0.5, 0.5, 0.5)
        let numFaces = 1

        let options = FaceLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .liveStream
        options.minFaceDetectionConfidence = minFaceDetectionConfidence
        options.minFacePresenceConfidence = minFacePresenceConfidence
        options.minTrackingConfidence = minTrackingConfidence
        options.numFaces = numFaces

        // Assign an object of the class to the `faceLandmarkerLiveStreamDelegate` property.
        let processor = FaceLandmarkerResultProcessor()
        options.faceLandmarkerLiveStreamDelegate = processor

        let faceLandmarker = try FaceLandmarker(options: options)
        let image = try photo("face_frontal_1.png")
        try faceLandmarker.detectAsync(image: image, timestampInMilliseconds: 1)
        wait(for: [processor.done], timeout: 30)
        XCTAssertEqual(processor.faces, 1)

        options.runningMode = .image
        options.faceLandmarkerLiveStreamDelegate = nil
        let result = try FaceLandmarker(options: options).detect(image: image)
        XCTAssertEqual(result.faceLandmarks.first?.count, 478)
        let connections: [Connection] = FaceLandmarker.faceOvalConnections()
        XCTAssertEqual(connections.count, 36)
    }

    func testHandLandmarkerGuide() throws {
        let modelPath = models.path(
            forResource: "hand_landmarker",
            ofType: "task")
        let (minHandDetectionConfidence, minHandPresenceConfidence, minHandTrackingConfidence): (Float, Float, Float)
            = (0.5, 0.5, 0.5)
        let numHands = 2

        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .liveStream
        options.minHandDetectionConfidence = minHandDetectionConfidence
        options.minHandPresenceConfidence = minHandPresenceConfidence
        options.minTrackingConfidence = minHandTrackingConfidence
        options.numHands = numHands

        // Assign an object of the class to the `handLandmarkerLiveStreamDelegate` property.
        let processor = HandLandmarkerResultProcessor()
        options.handLandmarkerLiveStreamDelegate = processor

        let handLandmarker = try HandLandmarker(options: options)
        let image = try photo("hand_open_palm_1.png")
        try handLandmarker.detectAsync(image: image, timestampInMilliseconds: 1)
        wait(for: [processor.done], timeout: 30)
        XCTAssertEqual(processor.hands, 1)

        options.runningMode = .image
        options.handLandmarkerLiveStreamDelegate = nil
        let result = try HandLandmarker(options: options).detect(image: image)
        XCTAssertEqual(result.landmarks.first?.count, 21)
        XCTAssertEqual(result.handedness.first?.first?.categoryName.map { ["Left", "Right"].contains($0) }, true)
        let connections: [Connection] = HandLandmarker.handConnections
        XCTAssertEqual(connections.count, 21)
    }

    func testGestureRecognizerGuide() throws {
        let modelPath = models.path(forResource: "gesture_recognizer", ofType: "task")

        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .liveStream
        options.minHandDetectionConfidence = 0.5
        options.minHandPresenceConfidence = 0.5
        options.minTrackingConfidence = 0.5
        options.numHands = 1
        options.cannedGesturesClassifierOptions = ClassifierOptions()
        options.cannedGesturesClassifierOptions?.scoreThreshold = 0.3

        let processor = GestureRecognizerResultProcessor()
        options.gestureRecognizerLiveStreamDelegate = processor

        let gestureRecognizer = try GestureRecognizer(options: options)
        let image = try photo("hand_open_palm_1.png")
        let timestamp = 0
        try gestureRecognizer.recognizeAsync(
            image: image,
            timestampInMilliseconds: timestamp)
        wait(for: [processor.done], timeout: 30)
        XCTAssertEqual(processor.gesture, "Open_Palm")

        options.runningMode = .video
        options.gestureRecognizerLiveStreamDelegate = nil
        let video = try GestureRecognizer(options: options)
        let result = try video.recognize(videoFrame: image, timestampInMilliseconds: timestamp)
        XCTAssertEqual(result.gestures.first?.first?.categoryName, "Open_Palm")
    }

    func testPoseLandmarkerGuide() throws {
        let modelPath = models.path(forResource: "pose_landmarker_lite",
                                    ofType: "task")
        let (minPoseDetectionConfidence, minPosePresenceConfidence, minTrackingConfidence): (Float, Float, Float)
            = (0.5, 0.5, 0.5)
        let numPoses = 1

        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .image
        options.minPoseDetectionConfidence = minPoseDetectionConfidence
        options.minPosePresenceConfidence = minPosePresenceConfidence
        options.minTrackingConfidence = minTrackingConfidence
        options.numPoses = numPoses

        let poseLandmarker = try PoseLandmarker(options: options)
        let image = try photo("pose_standing_1.png")
        let result = try poseLandmarker.detect(image: image)
        XCTAssertEqual(result.landmarks.first?.count, 33)
        XCTAssertEqual(PoseLandmarker.poseLandmarks.count, 35)
    }

    func testMLKitPoseDetectionGuide() throws {
        // Base pose detector with streaming, when depending on the PoseDetection SDK
        let options = PoseDetectorOptions()
        options.detectorMode = .stream

        let poseDetector = PoseDetector.poseDetector(options: options)

        let image = VisionImage(image: try photo("pose_standing_1.png"))
        let visionImage = image
        visionImage.orientation = .up

        var results: [Pose]
        do {
            results = try poseDetector.results(in: visionImage)
        } catch let error {
            XCTFail("Failed to detect pose with error: \(error.localizedDescription).")
            return
        }
        XCTAssertFalse(results.isEmpty, "Pose detector returned no results.")

        let finished = expectation(description: "completion")
        poseDetector.process(image) { detectedPoses, error in
            defer { finished.fulfill() }
            guard error == nil else {
                XCTFail("\(String(describing: error))")
                return
            }
            guard let detectedPoses = detectedPoses, !detectedPoses.isEmpty else {
                XCTFail("No pose detected.")
                return
            }
            // Success. Get pose landmarks here.
            for pose in detectedPoses {
                let leftAnkleLandmark = pose.landmark(ofType: .leftAnkle)
                if leftAnkleLandmark.inFrameLikelihood > 0.5 {
                    let position = leftAnkleLandmark.position
                    XCTAssertTrue(position.x > 0 && position.y > 0)
                }
            }
        }
        wait(for: [finished], timeout: 30)

        // Accurate pose detector on static images, when depending on the PoseDetectionAccurate SDK
        let accurate = AccuratePoseDetectorOptions()
        accurate.detectorMode = .singleImage
        let accurateDetector = PoseDetector.poseDetector(options: accurate)
        XCTAssertEqual(try accurateDetector.results(in: image).count, 1)
    }

    /// The guide's angle helper compiles against our point type (ML Kit's positions are CGFloat).
    func testMLKitAngleHelper() {
        func angle(firstLandmark: PoseLandmark, midLandmark: PoseLandmark, lastLandmark: PoseLandmark) -> CGFloat {
            let radians: CGFloat =
                atan2(lastLandmark.position.y - midLandmark.position.y,
                      lastLandmark.position.x - midLandmark.position.x) -
                atan2(firstLandmark.position.y - midLandmark.position.y,
                      firstLandmark.position.x - midLandmark.position.x)
            var degrees = radians * 180.0 / .pi
            degrees = abs(degrees)  // Angle should never be negative
            if degrees > 180.0 {
                degrees = 360.0 - degrees  // Always get the acute representation of the angle
            }
            return degrees
        }
        let a = PoseLandmark(type: .leftShoulder, position: Vision3DPoint(x: 0, y: 0, z: 0), inFrameLikelihood: 1)
        let b = PoseLandmark(type: .leftElbow, position: Vision3DPoint(x: 1, y: 0, z: 0), inFrameLikelihood: 1)
        let c = PoseLandmark(type: .leftWrist, position: Vision3DPoint(x: 1, y: 1, z: 0), inFrameLikelihood: 1)
        XCTAssertEqual(angle(firstLandmark: a, midLandmark: b, lastLandmark: c), 90, accuracy: 1e-9)
    }
}
