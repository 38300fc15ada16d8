import Foundation
@testable import TasksVision
import XCTest

final class RunningModeTests: XCTestCase {
    func faceImage() throws -> MPImage { try TestImages.load(Paths.images + "/face_frontal_1.png") }

    func options(_ mode: RunningMode) throws -> FaceDetectorOptions {
        let o = FaceDetectorOptions()
        o.baseOptions.modelAssetPath = try Paths.model("blaze_face_short_range.tflite")
        o.runningMode = mode
        return o
    }

    func testMethodsOfOtherModesAreRefused() throws {
        let image = try faceImage()
        let imageMode = try FaceDetector(options: try options(.image))
        XCTAssertThrowsError(try imageMode.detect(videoFrame: image, timestampInMilliseconds: 0)) { e in
            XCTAssertEqual(e as? VisionTaskError,
                           .wrongRunningMode(called: "detect(videoFrame:timestampInMilliseconds:)", mode: .image))
        }
        XCTAssertThrowsError(try imageMode.detectAsync(image: image, timestampInMilliseconds: 0))
        let video = try FaceDetector(options: try options(.video))
        XCTAssertThrowsError(try video.detect(image: image)) { e in XCTAssertTrue("\(e)".contains("video"), "\(e)") }
        XCTAssertEqual(try imageMode.detect(image: image).detections.count, 1, "still usable after refused calls")
    }

    func testVideoTimestampsMustIncrease() throws {
        let image = try faceImage()
        let video = try FaceDetector(options: try options(.video))
        XCTAssertEqual(try video.detect(videoFrame: image, timestampInMilliseconds: 100).timestampInMilliseconds, 100)
        XCTAssertThrowsError(try video.detect(videoFrame: image, timestampInMilliseconds: 100)) { e in
            XCTAssertEqual(e as? VisionTaskError, .nonMonotonicTimestamp(received: 100, previous: 100))
        }
        XCTAssertThrowsError(try video.detect(videoFrame: image, timestampInMilliseconds: 50))
        XCTAssertEqual(try video.detect(videoFrame: image, timestampInMilliseconds: 133).detections.count, 1)
    }

    func testOptionsAreValidated() throws {
        var o = try options(.image)
        o.minDetectionConfidence = 1.5
        XCTAssertThrowsError(try FaceDetector(options: o)) { e in
            XCTAssertTrue("\(e)".contains("minDetectionConfidence"), "\(e)")
        }
        o = try options(.image); o.minSuppressionThreshold = -0.1
        XCTAssertThrowsError(try FaceDetector(options: o)) { e in
            XCTAssertTrue("\(e)".contains("minSuppressionThreshold"), "\(e)")
        }
        o = try options(.liveStream)
        XCTAssertThrowsError(try FaceDetector(options: o)) { e in XCTAssertTrue("\(e)".contains("liveStream"), "\(e)") }
        o = try options(.image); o.resultCallback = { _, _ in }
        XCTAssertThrowsError(try FaceDetector(options: o))
        o = try options(.image); o.baseOptions.modelAssetPath = "/nonexistent.tflite"
        XCTAssertThrowsError(try FaceDetector(options: o)) { e in
            XCTAssertTrue("\(e)".contains("/nonexistent.tflite"), "\(e)")
        }
        o = try options(.image); o.baseOptions.modelAssetPath = try Paths.model("hand_landmark_full.tflite")
        XCTAssertThrowsError(try FaceDetector(options: o)) { e in XCTAssertTrue("\(e)".contains("BlazeFace"), "\(e)") }
    }

    func testLiveStreamDeliversInOrderOnItsQueueAndDropsBusyFrames() throws {
        let image = try faceImage()
        let o = try options(.liveStream)
        let lock = NSLock()
        var delivered: [Int] = []
        let done = expectation(description: "results")
        done.assertForOverFulfill = false
        o.resultCallback = { result, timestamp in
            XCTAssertEqual((try? result.get())?.detections.count, 1)
            XCTAssertFalse(Thread.isMainThread)
            lock.lock(); delivered.append(timestamp); lock.unlock()
            done.fulfill()
        }
        let detector = try FaceDetector(options: o)
        var accepted: [Int] = []
        for t in 0..<20 {
            if try detector.detectAsync(image: image, timestampInMilliseconds: t * 10) { accepted.append(t * 10) }
        }
        XCTAssertThrowsError(try detector.detectAsync(image: image, timestampInMilliseconds: 0),
                             "timestamps must increase in live stream too")
        detector.waitForPendingResults()
        wait(for: [done], timeout: 10)
        lock.lock(); let got = delivered; lock.unlock()
        XCTAssertEqual(got, accepted, "every accepted frame is delivered, in order")
        XCTAssertLessThan(accepted.count, 20, "frames sent while one is in flight are dropped")
        XCTAssertEqual(accepted.first, 0)
    }

    final class Receiver: FaceDetectorLiveStreamDelegate {
        var timestamps: [Int] = []
        func faceDetector(_ faceDetector: FaceDetector, didFinishDetection result: FaceDetectorResult?,
                          timestampInMilliseconds: Int, error: Error?) {
            timestamps.append(timestampInMilliseconds)
        }
    }

    func testLiveStreamDelegateAndAsyncStream() async throws {
        let image = try faceImage()
        let receiver = Receiver()
        let o = try options(.liveStream)
        o.faceDetectorLiveStreamDelegate = receiver
        let detector = try FaceDetector(options: o)
        let stream = detector.liveResults
        XCTAssertTrue(try detector.detectAsync(image: image, timestampInMilliseconds: 5))
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next()
        XCTAssertEqual(first?.timestampInMilliseconds, 5)
        XCTAssertEqual(first?.detections.count, 1)
        detector.waitForPendingResults()
        XCTAssertEqual(receiver.timestamps, [5])
    }

    func testAsyncDetect() async throws {
        let detector = try FaceDetector(modelPath: try Paths.model("blaze_face_short_range.tflite"))
        let result = try await detector.detect(image: try faceImage())
        XCTAssertEqual(result.detections.count, 1)
    }

    func testBadImagesAreRefusedWithTheirCause() {
        XCTAssertThrowsError(try MPImage(pixels: [], width: 0, height: 5, pixelFormat: .rgb8)) { e in
            XCTAssertTrue("\(e)".contains("0x5"), "\(e)")
        }
        XCTAssertThrowsError(try MPImage(pixels: [UInt8](repeating: 0, count: 30), width: 4, height: 3,
                                         pixelFormat: .rgb8, bytesPerRow: 8)) { e in
            XCTAssertTrue("\(e)".contains("bytesPerRow 8"), "\(e)")
        }
        XCTAssertThrowsError(try MPImage(pixels: [UInt8](repeating: 0, count: 10), width: 4, height: 3,
                                         pixelFormat: .rgba8)) { e in
            XCTAssertTrue("\(e)".contains("10 bytes"), "\(e)")
        }
    }

    func testPixelFormatsAgree() throws {
        // The same photo as RGB, RGBA, BGRA (and padded rows) gives the same faces.
        let rgb = try faceImage()
        let detector = try FaceDetector(modelPath: try Paths.model("blaze_face_short_range.tflite"))
        let reference = try detector.detect(image: rgb)
        var rgba = [UInt8](), bgra = [UInt8]()
        let w = rgb.pixelWidth, h = rgb.pixelHeight
        rgb.withBytes { b in
            for y in 0..<h {
                for x in 0..<w {
                    let p = y * w * 3 + x * 3
                    rgba += [b[p], b[p + 1], b[p + 2], 255]
                    bgra += [b[p + 2], b[p + 1], b[p], 255]
                }
                rgba += [0, 0, 0, 0]  // 4 bytes of row padding
            }
        }
        XCTAssertEqual(try detector.detect(image: try MPImage(pixels: rgba, width: w, height: h, pixelFormat: .rgba8,
                                                              bytesPerRow: w * 4 + 4)), reference)
        XCTAssertEqual(try detector.detect(image: try MPImage(pixels: bgra, width: w, height: h, pixelFormat: .bgra8)),
                       reference)
        let borrowed = try rgb.withBytes {
            try detector.detect(image: try MPImage(borrowing: $0, width: w, height: h, pixelFormat: .rgb8))
        }
        XCTAssertEqual(borrowed, reference)
    }

    func testMirroredOrientationMirrorsResults() throws {
        let detector = try FaceDetector(modelPath: try Paths.model("blaze_face_short_range.tflite"))
        let up = try detector.detect(image: try faceImage())
        let mirrored = try detector.detect(image: try faceImage().withOrientation(.upMirrored))
        XCTAssertEqual(mirrored.detections.count, 1)
        let a = up.detections[0].boundingBox, b = mirrored.detections[0].boundingBox
        XCTAssertEqual(b.midX, 820 - a.midX, accuracy: 0.05 * a.width)
        XCTAssertEqual(b.minY, a.minY, accuracy: 0.05 * a.height)
        // In the mirrored view the model's right eye (keypoint 0) is the person's left eye, mirrored.
        XCTAssertEqual(mirrored.detections[0].keypoints?[0].location.x ?? 0,
                       1 - (up.detections[0].keypoints?[1].location.x ?? 0),
                       accuracy: 0.02)
    }
}

final class HandRunningModeTests: XCTestCase {
    func testHandTasksFollowTheRunningModeRules() throws {
        let image = try TestImages.load(Paths.images + "/hands_two_1.png")
        let o = HandLandmarkerOptions()
        o.baseOptions.modelAssetPath = try Paths.model("hand_landmarker.task")
        o.runningMode = .video
        let video = try HandLandmarker(options: o)
        XCTAssertThrowsError(try video.detect(image: image))
        _ = try video.detect(videoFrame: image, timestampInMilliseconds: 10)
        XCTAssertThrowsError(try video.detect(videoFrame: image, timestampInMilliseconds: 10)) { e in
            XCTAssertEqual(e as? VisionTaskError, .nonMonotonicTimestamp(received: 10, previous: 10))
        }
        o.numHands = -1
        XCTAssertThrowsError(try HandLandmarker(options: o)) { e in XCTAssertTrue("\(e)".contains("numHands"), "\(e)") }

        let g = GestureRecognizerOptions()
        g.baseOptions.modelAssetPath = try Paths.model("gesture_recognizer.task")
        g.numHands = 2
        g.runningMode = .liveStream
        let lock = NSLock()
        var got: [(Int, Int)] = []
        g.resultCallback = { r, t in lock.lock(); got.append((t, (try? r.get())?.gestures.count ?? -1)); lock.unlock() }
        let live = try GestureRecognizer(options: g)
        XCTAssertThrowsError(try live.recognize(image: image)) { e in
            XCTAssertTrue("\(e)".contains("liveStream"), "\(e)")
        }
        var accepted = 0
        for t in 0..<5 where try live.recognizeAsync(image: image, timestampInMilliseconds: t) { accepted += 1 }
        live.waitForPendingResults()
        lock.lock(); defer { lock.unlock() }
        XCTAssertEqual(got.count, accepted)
        XCTAssertEqual(got.map(\.0), got.map(\.0).sorted())
        XCTAssertTrue(got.allSatisfy { $0.1 == 2 })
    }

    func testSeparateModelFilesInAFolder() throws {
        // The bundle's members as plain files in a folder load the same as the bundle.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hands-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.copyItem(atPath: try Paths.model("hand_detector.tflite"),
                                         toPath: dir + "/hand_detector.tflite")
        try FileManager.default.copyItem(atPath: try Paths.model("hand_landmark_full.tflite"),
                                         toPath: dir + "/hand_landmarks_detector.tflite")
        let image = try TestImages.load(Paths.images + "/hand_open_palm_1.png")
        let a = try HandLandmarker(modelPath: dir).detect(image: image)
        let b = try HandLandmarker(modelPath: try Paths.model("hand_landmarker.task")).detect(image: image)
        XCTAssertEqual(a, b)
    }

    func testOrientationGivesDisplayedCoordinates() throws {
        let landmarker = try HandLandmarker(modelPath: try Paths.model("hand_landmarker.task"))
        let up = try landmarker.detect(image: try TestImages.load(Paths.images + "/hand_open_palm_1.png"))
        let right = try landmarker.detect(image: try TestImages.load(Paths.images + "/hand_open_palm_1.png",
                                                                     orientation: .right))
        XCTAssertEqual(up.landmarks.count, 1); XCTAssertEqual(right.landmarks.count, 1)
        // The wrist of the turned image is where the orientation maps the upright wrist.
        let w = up.landmarks[0][0], wr = right.landmarks[0][0]
        let mapped = ImageOrientation.right.displayPoint(fromStored: (x: w.x, y: w.y))
        XCTAssertEqual(wr.x, mapped.x, accuracy: 0.03)
        XCTAssertEqual(wr.y, mapped.y, accuracy: 0.03)
    }
}
