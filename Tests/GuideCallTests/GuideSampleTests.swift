import Foundation
import TasksVision
import TasksVisionImageIO
import XCTest

/// The guides' cross-platform samples (Guides/) run: each guide's task creation as written, which finds no model in
/// the test bundle and must fail as MediaPipe's does there, and its run blocks on tasks of the installed models.
final class GuideSampleTests: XCTestCase {
    func photo(_ name: String) throws -> MPImage { try MPImage(contentsOfFile: photos + "/" + name) }

    /// `Bundle.main.path(forResource:ofType:)` gives nil without the model in the app bundle; MediaPipe then refuses
    /// the unset path with its ExternalFile text, and so must the guides' code here.
    func testGuidesCreateTasksAsMediaPipeDoesWithoutTheModelInTheBundle() {
        let external = "INVALID_ARGUMENT: ExternalFile must specify at least one of 'file_content', 'file_name', "
            + "'file_pointer_meta' or 'file_descriptor_meta'."
        let creations: [(String, () throws -> Any)] = [
            ("face detector", { try FaceDetectorGuide.createImage() }),
            ("face detector video", { try FaceDetectorGuide.createVideo() }),
            ("face detector live", { try FaceDetectorGuide.createLiveStream() }),
            ("face landmarker", { try FaceLandmarkerGuide.createImage(minFaceDetectionConfidence: 0.5,
                                                                       minFacePresenceConfidence: 0.5,
                                                                       minTrackingConfidence: 0.5, numFaces: 1) }),
            ("hand landmarker", { try HandLandmarkerGuide.createVideo(minHandDetectionConfidence: 0.5,
                                                                       minHandPresenceConfidence: 0.5,
                                                                       minHandTrackingConfidence: 0.5, numHands: 2) }),
            ("gesture recognizer", { try GestureRecognizerGuide.createLiveStream(minHandDetectionConfidence: 0.5,
                                                                                  minHandPresenceConfidence: 0.5,
                                                                                  minHandTrackingConfidence: 0.5,
                                                                                  numHands: 1) }),
            ("pose landmarker", { try PoseLandmarkerGuide.createImage(minPoseDetectionConfidence: 0.5,
                                                                       minPosePresenceConfidence: 0.5,
                                                                       minTrackingConfidence: 0.5, numPoses: 1) }),
            ("image segmenter", { try ImageSegmenterGuide.createLiveStream() }),
            ("image classifier", { try ImageClassifierGuide.createImage() }),
            ("image classifier video", { try ImageClassifierGuide.createVideo() }),
            ("image classifier live", { try ImageClassifierGuide.createLiveStream() }),
            ("image embedder", { try ImageEmbedderGuide.createImage() }),
            ("image embedder video", { try ImageEmbedderGuide.createVideo() }),
            ("image embedder live", { try ImageEmbedderGuide.createLiveStream() }),
            ("holistic landmarker", { try HolisticLandmarkerGuide.create(modelPath: nil, runningMode: .image,
                                                                         liveStreamDelegate: nil) }),
            ("object detector", { try ObjectDetectorGuide.createImage() }),
            ("object detector video", { try ObjectDetectorGuide.createVideo() }),
            ("object detector live", { try ObjectDetectorGuide.createLiveStream() }),
        ]
        for (name, create) in creations {
            XCTAssertThrowsError(try create(), name) { error in
                XCTAssertEqual(error.localizedDescription, external, name)
                XCTAssertEqual((error as NSError).code, 3, name)
            }
        }
    }

    func testGuidesRunBlocksOnEveryRunningMode() throws {
        let faces = try photo("faces_two_1.png")
        let video = FaceDetectorOptions()
        video.baseOptions.modelAssetPath = "blaze_face_short_range.tflite"
        video.runningMode = .video
        let detector = try FaceDetector(modelPath: "blaze_face_short_range.tflite")
        let image = try FaceDetectorGuide.runImage(faceDetector: detector, image: faces)
        XCTAssertEqual(image.detections.count, 2)
        XCTAssertEqual(try FaceDetectorGuide.runVideo(faceDetector: try FaceDetector(options: video), image: faces,
                                                      timestamp: 0), image)
        let live = FaceDetectorOptions()
        live.baseOptions.modelAssetPath = "blaze_face_short_range.tflite"
        live.runningMode = .liveStream
        let processor = FaceDetectorGuide.FaceDetectorResultProcessor()
        live.faceDetectorLiveStreamDelegate = processor
        XCTAssertNoThrow(try FaceDetectorGuide.runLiveStream(faceDetector: try FaceDetector(options: live),
                                                             image: faces, timestamp: 0))

        let face = try photo("face_frontal_1.png")
        let faceLandmarker = try FaceLandmarker(modelPath: "face_landmarker.task")
        let mesh = try FaceLandmarkerGuide.runImage(faceLandmarker: faceLandmarker, image: face)
        XCTAssertEqual(mesh.faceLandmarks.first?.count, 478)

        let palm = try photo("hand_open_palm_1.png")
        let handLandmarker = try HandLandmarker(modelPath: "hand_landmarker.task")
        let hands = try HandLandmarkerGuide.runImage(handLandmarker: handLandmarker, image: palm)
        XCTAssertEqual(hands.landmarks.first?.count, 21)
        let gestures = try GestureRecognizerGuide.runImage(
            gestureRecognizer: try GestureRecognizer(modelPath: "gesture_recognizer.task"), image: palm)
        XCTAssertEqual(gestures.gestures.first?.first?.categoryName, "Open_Palm")

        let person = try photo("pose_standing_1.png")
        let poseLandmarker = try PoseLandmarker(modelPath: "pose_landmarker_lite.task")
        let pose = try PoseLandmarkerGuide.runImage(poseLandmarker: poseLandmarker, image: person)
        XCTAssertEqual(pose.landmarks.first?.count, 33)
        let imageSegmenter = try ImageSegmenter(modelPath: "selfie_segmenter.tflite")
        let masks = try ImageSegmenterGuide.runImage(imageSegmenter: imageSegmenter, image: person)
        XCTAssertEqual(masks.confidenceMasks?.first?.width, person.width)

        let burger = try MPImage(contentsOfFile: photos + "/../google/burger.jpg")
        let options = ImageClassifierOptions()
        options.baseOptions.modelAssetPath = "efficientnet_lite0.tflite"
        options.maxResults = 5
        let classes = try ImageClassifierGuide.runImage(imageClassifier: try ImageClassifier(options: options),
                                                        image: burger)
        XCTAssertEqual(classes.classificationResult.classifications.first?.categories.first?.categoryName,
                       "cheeseburger")
        options.runningMode = .video
        XCTAssertEqual(try ImageClassifierGuide.runVideo(imageClassifier: try ImageClassifier(options: options),
                                                         image: burger, timestamp: 0).classificationResult
                           .classifications, classes.classificationResult.classifications)

        let embedder = try ImageEmbedder(modelPath: "efficientnet_lite0_float32.tflite")
        let embedding = try ImageEmbedderGuide.runImage(imageEmbedder: embedder, image: burger)
        let crop = try ImageEmbedderGuide.runImage(
            imageEmbedder: embedder, image: try MPImage(contentsOfFile: photos + "/../google/burger_crop.jpg"))
        let other = try ImageEmbedderGuide.runImage(imageEmbedder: embedder, image: person)
        let near = try ImageEmbedderGuide.similarity(result: embedding, otherResult: crop).doubleValue
        let far = try ImageEmbedderGuide.similarity(result: embedding, otherResult: other).doubleValue
        XCTAssertGreaterThan(near, far, "the burger's crop is nearer the burger than a person is")
        XCTAssertEqual(try ImageEmbedderGuide.similarity(result: embedding, otherResult: embedding).doubleValue,
                       1, accuracy: 1e-6)

        let holistic = try HolisticLandmarkerGuide.create(modelPath: "holistic_landmarker.task", runningMode: .image,
                                                          liveStreamDelegate: nil)
        XCTAssertEqual(try holistic.detect(image: person).poseLandmarks.count, 33)
    }

    /// The object detector guide's options (at most 5 objects) on Google's burger.jpg, in each running mode.
    func testObjectDetectorGuideRunsInEveryMode() throws {
        let burger = try MPImage(contentsOfFile: photos + "/../google/burger.jpg")
        func objectOptions(_ mode: RunningMode) -> ObjectDetectorOptions {
            let options = ObjectDetectorOptions()
            options.baseOptions.modelAssetPath = "efficientdet_lite0.tflite"
            options.runningMode = mode
            options.maxResults = 5
            return options
        }
        let objectDetector = try ObjectDetector(options: objectOptions(.image))
        let objects = try ObjectDetectorGuide.runImage(objectDetector: objectDetector, image: burger)
        XCTAssertEqual(objects.detections.count, 5)
        XCTAssertEqual(objects.detections.first?.categories.first?.categoryName, "sandwich")
        let frame = try ObjectDetectorGuide.runVideo(objectDetector: try ObjectDetector(options: objectOptions(.video)),
                                                     image: burger, timestamp: 0)
        XCTAssertEqual(frame.detections, objects.detections)
        XCTAssertEqual(frame.trackingIds?.count, 5)
        let live = objectOptions(.liveStream)
        let objectProcessor = ObjectDetectorGuide.ObjectDetectorResultProcessor()
        live.objectDetectorLiveStreamDelegate = objectProcessor
        XCTAssertNoThrow(try ObjectDetectorGuide.runLiveStream(objectDetector: try ObjectDetector(options: live),
                                                               image: burger, timestamp: 0))
    }

    func testMLKitGuidesProcessBothWays() throws {
        let image = VisionImage(image: try photo("pose_standing_1.png"))
        let poses = MLKitPoseDetectionGuide.processSynchronously(poseDetector: MLKitPoseDetectionGuide.createAccurate(),
                                                                 image: image)
        XCTAssertEqual(poses.count, 1)
        XCTAssertEqual(MLKitPoseDetectionGuide.leftAnklePositions(detectedPoses: poses).count, 1)
        let hip = MLKitPoseDetectionGuide.rightHipAngle(pose: try XCTUnwrap(poses.first))
        XCTAssertTrue(hip > 120 && hip <= 180, "a standing person's hip angle, \(hip)")

        let done = expectation(description: "completion")
        MLKitPoseDetectionGuide.processAsynchronously(poseDetector: MLKitPoseDetectionGuide.createBase(),
                                                      image: image) { detected in
            XCTAssertEqual(detected.count, 1)
            done.fulfill()
        }
        wait(for: [done], timeout: 60)

        let segmenter = MLKitSelfieSegmentationGuide.create()
        let mask = try XCTUnwrap(MLKitSelfieSegmentationGuide.processSynchronously(segmenter: segmenter, image: image))
        XCTAssertEqual(mask.width, 256)
        let segmented = expectation(description: "segmentation")
        MLKitSelfieSegmentationGuide.processAsynchronously(segmenter: segmenter, image: image) { asynchronous in
            XCTAssertEqual(asynchronous, mask)
            segmented.fulfill()
        }
        wait(for: [segmented], timeout: 60)
    }
}
