// The image classifier guide for iOS (ai.google.dev/edge/mediapipe/solutions/vision/image_classifier/ios), its Swift
// samples as written. Only the import differs; free variables are parameters, and each sample returns what it made
// (see FaceDetectorGuide.swift). ClassifierEmbedderGuideCallTests.swift runs the same calls on installed models.
import Foundation
import TasksVision

enum ImageClassifierGuide {
    // Create the task, Swift, Image.
    static func createImage() throws -> ImageClassifier {
        let modelPath = Bundle.main.path(forResource: "model",
                                              ofType: "tflite")

        let options = ImageClassifierOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .image
        options.maxResults = 5

        let imageClassifier = try ImageClassifier(options: options)
        return imageClassifier
    }

    // Create the task, Swift, Video.
    static func createVideo() throws -> ImageClassifier {
        let modelPath = Bundle.main.path(forResource: "model",
                                              ofType: "tflite")

        let options = ImageClassifierOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .video
        options.maxResults = 5

        let imageClassifier = try ImageClassifier(options: options)
        return imageClassifier
    }

    // Create the task, Swift, Livestream.

    // Class that conforms to the `ImageClassifierLiveStreamDelegate` protocol and
    // implements the method that the image classifier calls once it
    // finishes performing classification on each input frame.
    class ImageClassifierResultProcessor: NSObject, ImageClassifierLiveStreamDelegate {

       func imageClassifier(
        _ imageClassifier: ImageClassifier,
        didFinishClassification result: ImageClassifierResult?,
        timestampInMilliseconds: Int,
        error: Error?) {

        // Process the image classifier result or errors here.

      }
    }

    static func createLiveStream() throws -> ImageClassifier {
        let modelPath = Bundle.main.path(
          forResource: "model",
          ofType: "tflite")

        let options = ImageClassifierOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .liveStream
        options.maxResults = 5

        // Assign an object of the class to the `imageClassifierLiveStreamDelegate`
        // property.
        let processor = ImageClassifierResultProcessor()
        options.imageClassifierLiveStreamDelegate = processor

        let imageClassifier = try ImageClassifier(options: options)
        return imageClassifier
    }

    // Run the task, Swift, Image.
    static func runImage(imageClassifier: ImageClassifier, image: MPImage) throws -> ImageClassifierResult {
        let result = try imageClassifier.classify(image: image)
        return result
    }

    // Run the task, Swift, Video.
    static func runVideo(imageClassifier: ImageClassifier, image: MPImage,
                         timestamp: Int) throws -> ImageClassifierResult {
        let result = try imageClassifier.classify(
          videoFrame: image,
          timestampInMilliseconds: timestamp)
        return result
    }

    // Run the task, Swift, Livestream.
    static func runLiveStream(imageClassifier: ImageClassifier, image: MPImage, timestamp: Int) throws {
        try imageClassifier.classifyAsync(
          image: image,
          timestampInMilliseconds: timestamp)
    }
}

#if canImport(CoreMedia)
import CoreMedia

extension ImageClassifierGuide {
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

extension ImageClassifierGuide {
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
