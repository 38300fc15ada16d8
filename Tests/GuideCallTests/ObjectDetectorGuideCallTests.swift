import Foundation
import TasksVision
import TasksVisionImageIO
import XCTest

// The calls MediaPipe's object detection guide for iOS shows (ai.google.dev/edge/mediapipe/solutions/vision/
// object_detector/ios: create the task, configuration options, run the task in each running mode, the live
// stream delegate), transcribed as GuideCallTests.swift does: the public import only, `UIImage` replaced by
// `MPImage(contentsOfFile:)` and `Bundle.main` by `models`. The guide's "model" is efficientdet_lite0.

class ObjectDetectorResultProcessor: NSObject, ObjectDetectorLiveStreamDelegate {
    let done = XCTestExpectation(description: "object result")
    var labels: [String] = []

    func objectDetector(
        _ objectDetector: ObjectDetector,
        didFinishDetection objectDetectionResult: ObjectDetectorResult?,
        timestampInMilliseconds: Int,
        error: Error?) {
        // Process the detection result or errors here.
        labels = objectDetectionResult?.detections.compactMap { $0.categories.first?.categoryName } ?? []
        done.fulfill()
    }
}

final class ObjectDetectorGuideCallTests: XCTestCase {
    let burger = photos + "/../google/burger.jpg"

    func testObjectDetectorGuideImageMode() throws {
        let modelPath = models.path(forResource: "efficientdet_lite0",
                                    ofType: "tflite")

        let options = ObjectDetectorOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .image
        options.maxResults = 5

        let objectDetector = try ObjectDetector(options: options)

        let image = try MPImage(contentsOfFile: burger)
        let result = try objectDetector.detect(image: image)
        XCTAssertEqual(result.detections.count, 5)
        let detection: Detection = result.detections[0]
        let box: CGRect = detection.boundingBox
        let category: ResultCategory = detection.categories[0]
        XCTAssertEqual(category.categoryName, "sandwich")
        XCTAssertGreaterThan(category.score, 0.7)
        XCTAssertTrue(box.width > 300 && box.height > 200, "\(box)")
    }

    func testObjectDetectorGuideVideoMode() throws {
        let modelPath = models.path(forResource: "efficientdet_lite0", ofType: "tflite")
        let options = ObjectDetectorOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .video
        options.maxResults = 5

        let objectDetector = try ObjectDetector(options: options)
        let image = try MPImage(contentsOfFile: burger)
        let timestamp = 33
        let result = try objectDetector.detect(videoFrame: image, timestampInMilliseconds: timestamp)
        XCTAssertEqual(result.detections.first?.categories.first?.categoryName, "sandwich")
    }

    func testObjectDetectorGuideLiveStreamAndOptions() throws {
        let modelPath = models.path(forResource: "efficientdet_lite0", ofType: "tflite")

        let options = ObjectDetectorOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .liveStream
        options.maxResults = 5
        // The guide's configuration options.
        options.displayNamesLocale = "en"
        options.scoreThreshold = 0.3
        options.categoryAllowlist = ["sandwich", "carrot"]

        // Set `processor` as the delegate.
        let processor = ObjectDetectorResultProcessor()
        options.objectDetectorLiveStreamDelegate = processor

        let objectDetector = try ObjectDetector(options: options)
        let image = try MPImage(contentsOfFile: burger)
        let timestamp = 0
        try objectDetector.detectAsync(image: image, timestampInMilliseconds: timestamp)
        wait(for: [processor.done], timeout: 30)
        XCTAssertEqual(processor.labels.first, "sandwich")
        XCTAssertTrue(processor.labels.allSatisfy { ["sandwich", "carrot"].contains($0) }, "\(processor.labels)")
    }
}
