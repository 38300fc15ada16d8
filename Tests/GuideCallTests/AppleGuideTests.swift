// The guides' Apple-only samples run on Apple platforms (the macOS and iOS jobs of .github/workflows/ci.yml run them):
// a photo as an app has it, in a 32BGRA CVPixelBuffer, the CMSampleBuffer a camera delivers and (iOS) a UIImage,
// through each guide's `prepare` and its sample app's per-frame method, against the same pixels given as bytes. On
// Linux this file type-checks against the stand-ins (tools/apple_standins.sh) and is not run.
#if canImport(CoreMedia)
import CoreMedia
import TasksVision
import TasksVisionImageIO
import XCTest
#if canImport(UIKit)
import UIKit
#endif

/// A photo as Apple's image types hold it.
struct ApplePhoto {
    /// The pixels as bytes, opaque RGBA.
    let rgba: MPImage
    /// The same pixels in a 32BGRA pixel buffer.
    let pixelBuffer: CVPixelBuffer
    /// The pixel buffer as a camera delivers it.
    let sampleBuffer: CMSampleBuffer
    /// The file.
    let path: String

    init(_ name: String) throws {
        path = photos + "/" + name
        let decoded = try ImageFile.read(path)
        let (width, height, channels) = (decoded.width, decoded.height, decoded.channels)
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        for i in 0..<(width * height) {
            for c in 0..<3 { rgba[i * 4 + c] = decoded.pixels[i * channels + (channels >= 3 ? c : 0)] }
        }
        self.rgba = try MPImage(pixels: rgba, width: width, height: height, pixelFormat: .rgba8)

        var made: CVPixelBuffer?
        let created = CVPixelBufferCreate(kCFAllocatorDefault, width, height, kCVPixelFormatType_32BGRA, nil, &made)
        pixelBuffer = try XCTUnwrap(created == kCVReturnSuccess ? made : nil, "CVPixelBufferCreate gave \(created)")
        CVPixelBufferLockBaseAddress(pixelBuffer, [])
        let base = try XCTUnwrap(CVPixelBufferGetBaseAddress(pixelBuffer))
        let stride = CVPixelBufferGetBytesPerRow(pixelBuffer)
        for y in 0..<height {
            let row = (base + y * stride).bindMemory(to: UInt8.self, capacity: width * 4)
            for x in 0..<width {
                let i = (y * width + x) * 4
                (row[x * 4], row[x * 4 + 1], row[x * 4 + 2], row[x * 4 + 3]) =
                    (rgba[i + 2], rgba[i + 1], rgba[i], 255)
            }
        }
        CVPixelBufferUnlockBaseAddress(pixelBuffer, [])

        var format: CMVideoFormatDescription?
        CMVideoFormatDescriptionCreateForImageBuffer(allocator: kCFAllocatorDefault, imageBuffer: pixelBuffer,
                                                     formatDescriptionOut: &format)
        var timing = CMSampleTimingInfo(duration: .invalid, presentationTimeStamp: .zero, decodeTimeStamp: .invalid)
        var sample: CMSampleBuffer?
        CMSampleBufferCreateReadyWithImageBuffer(allocator: kCFAllocatorDefault, imageBuffer: pixelBuffer,
                                                 formatDescription: try XCTUnwrap(format), sampleTiming: &timing,
                                                 sampleBufferOut: &sample)
        sampleBuffer = try XCTUnwrap(sample)
    }

    #if canImport(UIKit)
    /// The file decoded by UIKit.
    func uiImage() throws -> UIImage { try XCTUnwrap(UIImage(contentsOfFile: path)) }
    #endif
}

final class AppleGuideTests: XCTestCase {
    func testMPImageKeepsItsSourceAndOrientation() throws {
        let photo = try ApplePhoto("faces_two_1.png")
        let fromPixelBuffer = try FaceDetectorGuide.prepare(pixelBuffer: photo.pixelBuffer)
        XCTAssertTrue(fromPixelBuffer.pixelBuffer === photo.pixelBuffer)
        XCTAssertEqual(fromPixelBuffer.orientation, .up)
        XCTAssertNil(fromPixelBuffer.sampleBuffer)
        let fromSampleBuffer = try FaceDetectorGuide.prepare(sampleBuffer: photo.sampleBuffer)
        XCTAssertTrue(fromSampleBuffer.sampleBuffer === photo.sampleBuffer)
        XCTAssertNil(fromSampleBuffer.pixelBuffer)
        let turned = try MPImage(sampleBuffer: photo.sampleBuffer, orientation: .right)
        XCTAssertEqual(turned.orientation, .right)
        XCTAssertEqual(turned.width, photo.rgba.height)
        #if canImport(UIKit)
        let uiImage = try photo.uiImage()
        let fromUIImage = try FaceDetectorGuide.prepare(image: uiImage)
        XCTAssertEqual(fromUIImage.imageSourceType, .image)
        XCTAssertTrue(fromUIImage.image === uiImage)
        XCTAssertEqual(fromUIImage.orientation, uiImage.imageOrientation)
        XCTAssertNil(fromUIImage.pixelBuffer)
        XCTAssertEqual(fromPixelBuffer.imageSourceType, .pixelBuffer)
        XCTAssertEqual(fromSampleBuffer.imageSourceType, .sampleBuffer)
        XCTAssertNil(fromSampleBuffer.image)
        XCTAssertEqual(photo.rgba.imageSourceType, .pixels)
        #endif
    }

    /// A pixel format MediaPipe's vision tasks do not read is refused with its error code.
    func testUnsupportedPixelFormatIsRefused() throws {
        var made: CVPixelBuffer?
        CVPixelBufferCreate(kCFAllocatorDefault, 8, 8, kCVPixelFormatType_OneComponent32Float, nil, &made)
        let floats = try XCTUnwrap(made)
        XCTAssertThrowsError(try MPImage(pixelBuffer: floats)) { error in
            XCTAssertEqual((error as NSError).code, 3)
            XCTAssertTrue("\(error)".contains("kCVPixelFormatType_32BGRA"), "\(error)")
        }
    }

    func testFaceDetectorGuideOnEveryAppleImage() throws {
        let photo = try ApplePhoto("faces_two_1.png")
        let faceDetector = try FaceDetector(modelPath: "blaze_face_short_range.tflite")
        let expected = try FaceDetectorGuide.runImage(faceDetector: faceDetector, image: photo.rgba)
        XCTAssertEqual(expected.detections.count, 2)
        for image in [try FaceDetectorGuide.prepare(pixelBuffer: photo.pixelBuffer),
                      try FaceDetectorGuide.prepare(sampleBuffer: photo.sampleBuffer)] {
            XCTAssertEqual(try FaceDetectorGuide.runImage(faceDetector: faceDetector, image: image), expected)
        }
        #if canImport(UIKit)
        // UIKit decodes the file itself (and may convert its colours): the same faces, boxes within 2 pixels.
        let service = FaceDetectorGuide.FaceDetectorService(faceDetector: faceDetector)
        let fromUIImage = try XCTUnwrap(service.detect(image: try photo.uiImage())?.faceDetectorResults.first ?? nil)
        XCTAssertEqual(fromUIImage.detections.count, expected.detections.count)
        for (a, b) in zip(fromUIImage.detections, expected.detections) {
            XCTAssertEqual(a.boundingBox.minX, b.boundingBox.minX, accuracy: 2)
            XCTAssertEqual(a.boundingBox.minY, b.boundingBox.minY, accuracy: 2)
        }
        #endif
    }

    func testFaceLandmarkerGuideAndItsOverlay() throws {
        let photo = try ApplePhoto("face_frontal_1.png")
        let faceLandmarker = try FaceLandmarker(modelPath: "face_landmarker.task")
        let expected = try FaceLandmarkerGuide.runImage(faceLandmarker: faceLandmarker, image: photo.rgba)
        let image = try FaceLandmarkerGuide.prepare(pixelBuffer: photo.pixelBuffer)
        let result = try FaceLandmarkerGuide.runImage(faceLandmarker: faceLandmarker, image: image)
        XCTAssertEqual(result, expected)
        #if canImport(UIKit)
        let landmarks = try XCTUnwrap(result.faceLandmarks.first)
        let lines = FaceLandmarkerGuide.faceOverlayLines(faceLandmarks: landmarks,
                                                         originalImageSize: CGSize(width: 100, height: 100),
                                                         orientation: .up)
        XCTAssertEqual(lines.map(\.count), [36, 8, 8, 16, 16, 40])
        #endif
    }

    func testHandLandmarkerGuideOnACameraFrame() throws {
        let photo = try ApplePhoto("hand_open_palm_1.png")
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = "hand_landmarker.task"
        options.runningMode = .video
        let handLandmarker = try HandLandmarker(options: options)
        let image = try HandLandmarkerGuide.prepare(sampleBuffer: photo.sampleBuffer)
        let result = try HandLandmarkerGuide.runVideo(handLandmarker: handLandmarker, image: image, timestamp: 0)
        let expected = try HandLandmarker(options: options).detect(videoFrame: photo.rgba, timestampInMilliseconds: 0)
        XCTAssertEqual(result, expected)
        #if canImport(UIKit)
        let landmarks = try XCTUnwrap(result.landmarks.first)
        let lines = HandLandmarkerGuide.handOverlayLines(handLandmarks: landmarks,
                                                         originalImageSize: CGSize(width: 100, height: 100),
                                                         orientation: .right)
        XCTAssertEqual(lines.count, 21)
        #endif
    }

    func testGestureRecognizerGuideOnAPixelBuffer() throws {
        let photo = try ApplePhoto("hand_open_palm_1.png")
        let gestureRecognizer = try GestureRecognizer(modelPath: "gesture_recognizer.task")
        let image = try GestureRecognizerGuide.prepare(pixelBuffer: photo.pixelBuffer)
        let result = try GestureRecognizerGuide.runImage(gestureRecognizer: gestureRecognizer, image: image)
        XCTAssertEqual(result, try gestureRecognizer.recognize(image: photo.rgba))
        XCTAssertEqual(result.gestures.first?.first?.categoryName, "Open_Palm")
    }

    func testPoseLandmarkerGuideOnACameraFrame() throws {
        let photo = try ApplePhoto("pose_standing_1.png")
        let poseLandmarker = try PoseLandmarker(modelPath: "pose_landmarker_lite.task")
        let image = try PoseLandmarkerGuide.prepare(sampleBuffer: photo.sampleBuffer)
        let result = try PoseLandmarkerGuide.runImage(poseLandmarker: poseLandmarker, image: image)
        XCTAssertEqual(result, try poseLandmarker.detect(image: photo.rgba))
        XCTAssertEqual(result.landmarks.first?.count, 33)
    }

    func testImageSegmenterGuideOnAPixelBuffer() throws {
        let photo = try ApplePhoto("pose_standing_1.png")
        let imageSegmenter = try ImageSegmenter(modelPath: "selfie_segmenter.tflite")
        let image = try ImageSegmenterGuide.prepare(pixelBuffer: photo.pixelBuffer)
        let result = try ImageSegmenterGuide.runImage(imageSegmenter: imageSegmenter, image: image)
        XCTAssertEqual(result, try imageSegmenter.segment(image: photo.rgba))
        XCTAssertNotNil(result.confidenceMasks?.first)
    }

    func testImageClassifierAndEmbedderGuidesOnCameraFrames() throws {
        let photo = try ApplePhoto("../google/burger.jpg")
        let imageClassifier = try ImageClassifier(modelPath: "efficientnet_lite0.tflite")
        let classes = try ImageClassifierGuide.runImage(
            imageClassifier: imageClassifier, image: try ImageClassifierGuide.prepare(pixelBuffer: photo.pixelBuffer))
        XCTAssertEqual(classes, try imageClassifier.classify(image: photo.rgba))
        XCTAssertEqual(classes.classificationResult.classifications.first?.categories.first?.categoryName,
                       "cheeseburger")

        let imageEmbedder = try ImageEmbedder(modelPath: "efficientnet_lite0_float32.tflite")
        let embedding = try ImageEmbedderGuide.runImage(
            imageEmbedder: imageEmbedder, image: try ImageEmbedderGuide.prepare(sampleBuffer: photo.sampleBuffer))
        XCTAssertEqual(embedding, try imageEmbedder.embed(image: photo.rgba))
    }

    #if canImport(UIKit)
    func testHolisticLandmarkerServiceOnACameraFrame() throws {
        let photo = try ApplePhoto("pose_standing_1.png")
        let processor = HolisticLandmarkerResultProcessor()
        let live = try HolisticLandmarkerGuide.create(modelPath: "holistic_landmarker.task", runningMode: .liveStream,
                                                      liveStreamDelegate: processor)
        HolisticLandmarkerGuide.HolisticLandmarkerService(holisticLandmarker: live)
            .detectAsync(sampleBuffer: photo.sampleBuffer, orientation: .up, timeStamps: 0)
        wait(for: [processor.done], timeout: 30)
        XCTAssertEqual(processor.poseLandmarks, 33)

        let still = try HolisticLandmarkerGuide.create(modelPath: "holistic_landmarker.task", runningMode: .image,
                                                       liveStreamDelegate: nil)
        let bundle = HolisticLandmarkerGuide.HolisticLandmarkerService(holisticLandmarker: still)
            .detect(image: try photo.uiImage())
        XCTAssertEqual(bundle?.holisticLandmarkerResults.first??.poseLandmarks.count, 33)
    }
    #endif
    func testObjectDetectorGuideOnEveryAppleImage() throws {
        let photo = try ApplePhoto("../google/burger.jpg")
        let options = ObjectDetectorOptions()
        options.baseOptions.modelAssetPath = "efficientdet_lite0.tflite"
        options.maxResults = 5
        let objectDetector = try ObjectDetector(options: options)
        let expected = try ObjectDetectorGuide.runImage(objectDetector: objectDetector, image: photo.rgba)
        XCTAssertEqual(expected.detections.first?.categories.first?.categoryName, "sandwich")
        for image in [try ObjectDetectorGuide.prepare(pixelBuffer: photo.pixelBuffer),
                      try ObjectDetectorGuide.prepare(sampleBuffer: photo.sampleBuffer)] {
            XCTAssertEqual(try ObjectDetectorGuide.runImage(objectDetector: objectDetector, image: image), expected)
        }
        #if canImport(UIKit)
        // UIKit decodes the JPEG itself (its IDCT and colours may differ from ours): the same first object, its box
        // within a few pixels.
        let service = ObjectDetectorGuide.ObjectDetectorService(objectDetector: objectDetector)
        let fromUIImage = try XCTUnwrap(service.detect(image: try photo.uiImage())?.objectDetectorResults.first ?? nil)
        let (a, b) = (try XCTUnwrap(fromUIImage.detections.first), try XCTUnwrap(expected.detections.first))
        XCTAssertEqual(a.categories.first?.categoryName, b.categories.first?.categoryName)
        XCTAssertEqual(a.boundingBox.minX, b.boundingBox.minX, accuracy: 4)
        XCTAssertEqual(a.boundingBox.minY, b.boundingBox.minY, accuracy: 4)
        #endif
    }

    func testMLKitGuidesOnACameraFrame() throws {
        let photo = try ApplePhoto("pose_standing_1.png")
        let expected = MLKitPoseDetectionGuide.processSynchronously(
            poseDetector: MLKitPoseDetectionGuide.createAccurate(), image: VisionImage(image: photo.rgba))
        XCTAssertEqual(expected.count, 1)
        let fromBuffer = VisionImage(buffer: photo.sampleBuffer)
        XCTAssertEqual(fromBuffer.orientation, .up)
        XCTAssertEqual(MLKitPoseDetectionGuide.processSynchronously(
            poseDetector: MLKitPoseDetectionGuide.createAccurate(), image: fromBuffer), expected)

        let segmenter = MLKitSelfieSegmentationGuide.create()
        let mask = try XCTUnwrap(MLKitSelfieSegmentationGuide.processSynchronously(segmenter: segmenter,
                                                                                    image: fromBuffer))
        XCTAssertEqual(MLKitSelfieSegmentationGuide.foregroundConfidences(mask: mask), mask.confidences)
        XCTAssertTrue(mask.buffer === mask.buffer)
    }

    #if canImport(UIKit)
    @MainActor
    func testMLKitGuideOnAUIImageAndTheDevicesOrientation() throws {
        let photo = try ApplePhoto("pose_standing_1.png")
        let uiImage = try photo.uiImage()
        let fromUIImage = MLKitPoseDetectionGuide.prepare(image: uiImage)
        XCTAssertEqual(fromUIImage.orientation, uiImage.imageOrientation)
        XCTAssertEqual(MLKitPoseDetectionGuide.processSynchronously(
            poseDetector: MLKitPoseDetectionGuide.createAccurate(), image: fromUIImage).count, 1)
        XCTAssertEqual(MLKitPoseDetectionGuide.imageOrientation(deviceOrientation: .portrait, cameraPosition: .front),
                       .leftMirrored)
        let fromCamera = MLKitPoseDetectionGuide.prepare(sampleBuffer: photo.sampleBuffer, cameraPosition: .back)
        XCTAssertEqual(fromCamera.orientation, MLKitPoseDetectionGuide.imageOrientation(
            deviceOrientation: UIDevice.current.orientation, cameraPosition: .back))
        XCTAssertEqual(fromCamera.image.pixelWidth, photo.rgba.pixelWidth)
    }

    /// A UIImage without pixels gives its error from the detection, as in ML Kit.
    func testVisionImageOfAnImageWithoutPixelsFailsAtDetection() throws {
        let empty = VisionImage(image: UIImage())
        XCTAssertThrowsError(try MLKitPoseDetectionGuide.createBase().results(in: empty)) { error in
            XCTAssertTrue("\(error)".contains("CGImage"), "\(error)")
        }
    }
    #endif
}
#endif
