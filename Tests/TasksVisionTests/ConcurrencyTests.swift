import Dispatch
import Foundation
@testable import TasksVision
import XCTest

/// Tasks used from several threads: separate instances in parallel, live-stream frames
/// sent from several threads at once, and a task released with a frame in flight.
final class ConcurrencyTests: XCTestCase {
    let facePhotos = ["face_frontal_1", "faces_group_2", "faces_two_1", "face_tilted_1"]
    let handPhotos = ["hand_open_palm_1", "hands_two_1", "hand_thumb_up_1"]

    func image(_ name: String) throws -> MPImage { try TestImages.load(Paths.images + "/\(name).png") }

    func faceOptions(_ mode: RunningMode = .image) throws -> FaceDetectorOptions {
        let o = FaceDetectorOptions()
        o.baseOptions.modelAssetPath = try Paths.model("blaze_face_short_range.tflite")
        o.runningMode = mode
        return o
    }

    func handOptions(_ mode: RunningMode = .image) throws -> HandLandmarkerOptions {
        let o = HandLandmarkerOptions()
        o.baseOptions.modelAssetPath = try Paths.model("hand_landmarker.task")
        o.numHands = 2
        o.runningMode = mode
        return o
    }

    /// Four face detectors and three hand landmarkers, each on its own thread, give
    /// bit-identical results to the same calls made one after another.
    func testInstancesInParallelMatchSerialResults() throws {
        let faces = try facePhotos.map(image)
        let hands = try handPhotos.map(image)
        let serialFaces = try faces.map { try FaceDetector(options: try faceOptions()).detect(image: $0) }
        let serialHands = try hands.map { try HandLandmarker(options: try handOptions()).detect(image: $0) }
        XCTAssertTrue(serialFaces.allSatisfy { !$0.detections.isEmpty }
                      && serialHands.allSatisfy { !$0.landmarks.isEmpty })

        let faceDetectors = try faces.map { _ in try FaceDetector(options: try faceOptions()) }
        let handLandmarkers = try hands.map { _ in try HandLandmarker(options: try handOptions()) }
        let lock = NSLock()
        var mismatches: [String] = []
        let rounds = 5
        DispatchQueue.concurrentPerform(iterations: faces.count + hands.count) { i in
            for _ in 0..<rounds {
                let same: Bool
                if i < faces.count {
                    same = (try? faceDetectors[i].detect(image: faces[i])) == serialFaces[i]
                } else {
                    let h = i - faces.count
                    same = (try? handLandmarkers[h].detect(image: hands[h])) == serialHands[h]
                }
                if !same { lock.lock(); mismatches.append("instance \(i)"); lock.unlock() }
            }
        }
        XCTAssertEqual(mismatches, [], "parallel instances must reproduce the serial results")
    }

    /// detectAsync from four threads at once: each call is accepted, dropped or refused for
    /// its timestamp; accepted frames are delivered exactly once, in timestamp order, on
    /// the task's queue, each with the result of its own image.
    func testLiveStreamFramesFromSeveralThreads() throws {
        let photos = try ["face_frontal_1", "faces_group_1"].map(image)
        let expected = try photos.map { try FaceDetector(options: try faceOptions()).detect(image: $0).detections }
        XCTAssertNotEqual(expected[0].count, expected[1].count)
        let o = try faceOptions(.liveStream)
        let lock = NSLock()
        var delivered: [(Int, Bool)] = []
        o.resultCallback = { result, timestamp in
            let detections = (try? result.get())?.detections
            lock.lock(); delivered.append((timestamp, detections == expected[timestamp % 2])); lock.unlock()
        }
        let detector = try FaceDetector(options: o)
        var clock = 0
        var accepted: [Int] = [], dropped = 0, refused = 0, otherErrors: [String] = []
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<60 {
                lock.lock(); clock += 1; let t = clock; lock.unlock()
                do {
                    let ok = try detector.detectAsync(image: photos[t % 2], timestampInMilliseconds: t)
                    lock.lock(); if ok { accepted.append(t) } else { dropped += 1 }; lock.unlock()
                } catch VisionTaskError.nonMonotonicTimestamp {
                    lock.lock(); refused += 1; lock.unlock()
                } catch {
                    lock.lock(); otherErrors.append("\(error)"); lock.unlock()
                }
            }
        }
        detector.waitForPendingResults()
        lock.lock(); defer { lock.unlock() }
        XCTAssertEqual(otherErrors, [])
        XCTAssertEqual(accepted.count + dropped + refused, 240)
        XCTAssertGreaterThan(accepted.count, 0)
        XCTAssertGreaterThan(dropped, 0, "frames arriving while one is in flight are dropped, not queued")
        XCTAssertEqual(delivered.map(\.0), accepted.sorted(),
                       "every accepted frame is delivered once, in timestamp order")
        XCTAssertTrue(delivered.allSatisfy(\.1), "each result belongs to its own frame")
    }

    /// Releasing a live-stream task while its frame is being processed: the frame holds the
    /// task until it is delivered, then the task goes away.
    func testReleasingTaskWithFrameInFlight() throws {
        let face = try image("face_frontal_1"), hand = try image("hand_thumb_up_1")
        for kind in ["faces", "hands", "gestures"] {
            let delivered = expectation(description: "\(kind) result")
            weak var weakTask: AnyObject?
            do {
                switch kind {
                case "faces":
                    let o = try faceOptions(.liveStream)
                    o.resultCallback = { result, _ in
                        XCTAssertEqual((try? result.get())?.detections.count, 1); delivered.fulfill()
                    }
                    let task = try FaceDetector(options: o)
                    weakTask = task
                    XCTAssertTrue(try task.detectAsync(image: face, timestampInMilliseconds: 1))
                case "hands":
                    let o = try handOptions(.liveStream)
                    o.resultCallback = { result, _ in
                        XCTAssertEqual((try? result.get())?.landmarks.count, 1); delivered.fulfill()
                    }
                    let task = try HandLandmarker(options: o)
                    weakTask = task
                    XCTAssertTrue(try task.detectAsync(image: hand, timestampInMilliseconds: 1))
                default:
                    let o = GestureRecognizerOptions()
                    o.baseOptions.modelAssetPath = try Paths.model("gesture_recognizer.task")
                    o.runningMode = .liveStream
                    o.resultCallback = { result, _ in
                        XCTAssertEqual((try? result.get())?.gestures.first?.first?.categoryName, "Thumb_Up");
                        delivered.fulfill()
                    }
                    let task = try GestureRecognizer(options: o)
                    weakTask = task
                    XCTAssertTrue(try task.recognizeAsync(image: hand, timestampInMilliseconds: 1))
                }
            }
            wait(for: [delivered], timeout: 30)
            // The queue lets go of the task just after delivering.
            let deadline = Date().addingTimeInterval(5)
            while weakTask != nil && Date() < deadline { usleep(1000) }
            XCTAssertNil(weakTask, "\(kind): the task is freed once its last frame is delivered")
        }
    }
}
