// The image embedder guide for iOS (ai.google.dev/edge/mediapipe/solutions/vision/image_embedder/ios), its Swift
// samples as written. Only the import differs; free variables are parameters, and each sample returns what it made
// (see FaceDetectorGuide.swift). ClassifierEmbedderGuideCallTests.swift runs the same calls on installed models.
import Foundation
import TasksVision

enum ImageEmbedderGuide {
    // Create the task, Swift, Image.
    static func createImage() throws -> ImageEmbedder {
        let modelPath = Bundle.main.path(
          forResource: "model",
          ofType: "tflite")

        let options = ImageEmbedderOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.quantize = true
        options.l2Normalize = true

        let imageEmbedder = try ImageEmbedder(options: options)
        return imageEmbedder
    }

    // Create the task, Swift, Video.
    static func createVideo() throws -> ImageEmbedder {
        let modelPath = Bundle.main.path(
          forResource: "model",
          ofType: "tflite")

        let options = ImageEmbedderOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .video
        options.quantize = true
        options.l2Normalize = true

        let imageEmbedder = try ImageEmbedder(options: options)
        return imageEmbedder
    }

    // Create the task, Swift, Livestream.

    // Class that conforms to the `ImageEmbedderLiveStreamDelegate` protocol and
    // implements the method that the image embedder calls once it finishes
    // embedding each input frame.
    class ImageEmbedderResultProcessor: NSObject, ImageEmbedderLiveStreamDelegate {

      func imageEmbedder(
        _ imageEmbedder: ImageEmbedder,
        didFinishEmbedding result: ImageEmbedderResult?,
        timestampInMilliseconds: Int,
        error: Error?) {

        // Process the image embedder result or errors here.

      }
    }

    static func createLiveStream() throws -> ImageEmbedder {
        let modelPath = Bundle.main.path(
          forResource: "model",
          ofType: "tflite")

        let options = ImageEmbedderOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .liveStream
        options.quantize = true
        options.l2Normalize = true

        // Assign an object of the class to the `imageEmbedderLiveStreamDelegate`
        // property.
        let processor = ImageEmbedderResultProcessor()
        options.imageEmbedderLiveStreamDelegate = processor

        let imageEmbedder = try ImageEmbedder(options: options)
        return imageEmbedder
    }

    // Run the task, Swift, Image.
    static func runImage(imageEmbedder: ImageEmbedder, image: MPImage) throws -> ImageEmbedderResult {
        let result = try imageEmbedder.embed(image: image)
        return result
    }

    // Run the task, Swift, Video.
    static func runVideo(imageEmbedder: ImageEmbedder, image: MPImage, timestamp: Int) throws -> ImageEmbedderResult {
        let result = try imageEmbedder.embed(
          videoFrame: image,
          timestampInMilliseconds: timestamp)
        return result
    }

    // Run the task, Swift, Live stream.
    static func runLiveStream(imageEmbedder: ImageEmbedder, image: MPImage, timestamp: Int) throws {
        try imageEmbedder.embedAsync(
          image: image,
          timestampInMilliseconds: timestamp)
    }

    // Handle and display results, Swift.
    static func similarity(result: ImageEmbedderResult, otherResult: ImageEmbedderResult) throws -> NSNumber {
        let similarity = try ImageEmbedder.cosineSimilarity(
          embedding1: result.embeddingResult.embeddings[0],
          embedding2: otherResult.embeddingResult.embeddings[0])
        return similarity
    }
}

#if canImport(CoreMedia)
import CoreMedia

extension ImageEmbedderGuide {
    // Prepare data, CVPixelBuffer, Swift.
    static func prepare(pixelBuffer: CVPixelBuffer) throws -> MPImage {
        // Obtain a CVPixelBuffer.

        // Convert the `CVPixelBuffer` object to a MediaPipe's Image object having the default
        // orientation `UIImage.Orientation.up`.
        let image = try MPImage(pixelBuffer: pixelBuffer)
        return image
    }

    // Prepare data, CMSampleBuffer, Swift.
    static func prepare(sampleBuffer: CMSampleBuffer) throws -> MPImage {
        // Obtain a CMSampleBuffer.

        // Convert the `CMSampleBuffer` object to a MediaPipe's Image object having the default
        // orientation `UIImage.Orientation.up`.
        let image = try MPImage(sampleBuffer: sampleBuffer)
        return image
    }
}
#endif

#if canImport(UIKit)
import UIKit

extension ImageEmbedderGuide {
    // Prepare data, UIImage, Swift.
    static func prepare(image: UIImage) throws -> MPImage {
        // Load an image on the user's device as an iOS `UIImage` object.

        // Convert the `UIImage` object to a MediaPipe's Image object having the default
        // orientation `UIImage.Orientation.up`.
        let image = try MPImage(uiImage: image)
        return image
    }
}
#endif
