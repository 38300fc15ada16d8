import Foundation
import TasksVision
import TasksVisionImageIO
import XCTest

// The calls of the MediaPipe Tasks iOS guides for the image classifier and the image embedder
// (ai.google.dev/edge/mediapipe/solutions/vision/image_classifier/ios, .../image_embedder/ios), transcribed as
// GuideCallTests.swift transcribes the others: only the import, `UIImage` (`MPImage(contentsOfFile:)`) and
// `Bundle.main` (`models`) differ. The guides' "model" is a model of ours.

// Class that conforms to the `ImageClassifierLiveStreamDelegate` protocol and
// implements the method that the image classifier calls once it
// finishes performing classification on each input frame.
class ImageClassifierResultProcessor: NSObject, ImageClassifierLiveStreamDelegate {
    let done = XCTestExpectation(description: "classifier result")
    var top: String?

    func imageClassifier(
        _ imageClassifier: ImageClassifier,
        didFinishClassification result: ImageClassifierResult?,
        timestampInMilliseconds: Int,
        error: Error?) {
        // Process the image classifier result or errors here.
        top = result?.classificationResult.classifications.first?.categories.first?.categoryName
        done.fulfill()
    }
}

// Class that conforms to the `ImageEmbedderLiveStreamDelegate` protocol and
// implements the method that the image embedder calls once it finishes
// embedding each input frame.
class ImageEmbedderResultProcessor: NSObject, ImageEmbedderLiveStreamDelegate {
    let done = XCTestExpectation(description: "embedder result")
    var count = -1

    func imageEmbedder(
        _ imageEmbedder: ImageEmbedder,
        didFinishEmbedding result: ImageEmbedderResult?,
        timestampInMilliseconds: Int,
        error: Error?) {
        // Process the image embedder result or errors here.
        count = result?.embeddingResult.embeddings.first?.quantizedEmbedding?.count ?? -1
        done.fulfill()
    }
}

final class ClassifierEmbedderGuideCallTests: XCTestCase {
    let burger = photos + "/../google/burger.jpg"

    func testImageClassifierGuide() throws {
        // Image
        let modelPath = models.path(forResource: "efficientnet_lite0",
                                    ofType: "tflite")

        let options = ImageClassifierOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .image
        options.maxResults = 5

        let imageClassifier = try ImageClassifier(options: options)
        let image = try MPImage(contentsOfFile: burger)
        let result = try imageClassifier.classify(image: image)
        XCTAssertEqual(result.classificationResult.classifications.first?.categories.count, 5)
        XCTAssertEqual(result.classificationResult.classifications.first?.categories.first?.categoryName,
                       "cheeseburger")

        // Video
        options.runningMode = .video
        let videoClassifier = try ImageClassifier(options: options)
        let timestamp = 33
        let videoResult = try videoClassifier.classify(
          videoFrame: image,
          timestampInMilliseconds: timestamp)
        XCTAssertEqual(videoResult, ImageClassifierResult(classificationResult: ClassificationResult(
            classifications: result.classificationResult.classifications, timestampInMilliseconds: timestamp),
            timestampInMilliseconds: timestamp))

        // Livestream
        let liveModelPath = models.path(
          forResource: "efficientnet_lite0",
          ofType: "tflite")

        let liveOptions = ImageClassifierOptions()
        liveOptions.baseOptions.modelAssetPath = liveModelPath
        liveOptions.runningMode = .liveStream
        liveOptions.maxResults = 5

        // Assign an object of the class to the `imageClassifierLiveStreamDelegate`
        // property.
        let processor = ImageClassifierResultProcessor()
        liveOptions.imageClassifierLiveStreamDelegate = processor

        let liveClassifier = try ImageClassifier(options: liveOptions)
        try liveClassifier.classifyAsync(
          image: image,
          timestampInMilliseconds: timestamp)
        wait(for: [processor.done], timeout: 30)
        XCTAssertEqual(processor.top, "cheeseburger")

        // The default options: `ImageClassifier(modelPath:)`, every category.
        let all = try ImageClassifier(modelPath: modelPath ?? "").classify(image: image)
        XCTAssertEqual(all.classificationResult.classifications.first?.categories.count, 1000)
    }

    func testImageEmbedderGuide() throws {
        // Image
        let modelPath = models.path(
          forResource: "efficientnet_lite0_float32",
          ofType: "tflite")

        let options = ImageEmbedderOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.quantize = true
        options.l2Normalize = true

        let imageEmbedder = try ImageEmbedder(options: options)
        let image = try MPImage(contentsOfFile: burger)
        let result = try imageEmbedder.embed(image: image)
        let other = try MPImage(contentsOfFile: photos + "/../google/burger_crop.jpg")
        let otherResult = try imageEmbedder.embed(image: other)

        let similarity = try ImageEmbedder.cosineSimilarity(
          embedding1: result.embeddingResult.embeddings[0],
          embedding2: otherResult.embeddingResult.embeddings[0])
        XCTAssertGreaterThan(similarity.doubleValue, 0.9)

        // Video
        options.runningMode = .video
        let videoEmbedder = try ImageEmbedder(options: options)
        let timestamp = 66
        let videoResult = try videoEmbedder.embed(
          videoFrame: image,
          timestampInMilliseconds: timestamp)
        XCTAssertEqual(videoResult.embeddingResult.embeddings, result.embeddingResult.embeddings)

        // Livestream
        let liveOptions = ImageEmbedderOptions()
        liveOptions.baseOptions.modelAssetPath = modelPath
        liveOptions.runningMode = .liveStream
        liveOptions.quantize = true
        liveOptions.l2Normalize = true

        // Assign an object of the class to the `imageEmbedderLiveStreamDelegate`
        // property.
        let processor = ImageEmbedderResultProcessor()
        liveOptions.imageEmbedderLiveStreamDelegate = processor

        let liveEmbedder = try ImageEmbedder(options: liveOptions)
        try liveEmbedder.embedAsync(
          image: image,
          timestampInMilliseconds: timestamp)
        wait(for: [processor.done], timeout: 30)
        XCTAssertEqual(processor.count, 1000)
    }
}
