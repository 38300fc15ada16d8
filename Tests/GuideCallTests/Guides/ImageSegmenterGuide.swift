// The image segmenter guide for iOS (ai.google.dev/edge/mediapipe/solutions/vision/image_segmenter/ios), its Swift
// samples as written, and its sample app's per-frame methods (google-ai-edge/mediapipe-samples,
// examples/image_segmentation/ios/ImageSegmenter/Services/ImageSegmenterService.swift). Only the import differs;
// free variables are parameters, and each sample returns what it made (see FaceDetectorGuide.swift).
import Foundation
import TasksVision

enum ImageSegmenterGuide {
    // Create the task, Swift, Image.
    static func createImage() throws -> ImageSegmenter {
        let modelPath = Bundle.main.path(forResource: "model",
                                              ofType: "tflite")

        let options = ImageSegmenterOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .image
        options.shouldOutputCategoryMask = true
        options.shouldOutputConfidenceMasks = false

        let imageSegmenter = try ImageSegmenter(options: options)
        return imageSegmenter
    }

    // Create the task, Swift, Video.
    static func createVideo() throws -> ImageSegmenter {
        let modelPath = Bundle.main.path(forResource: "model",
                                              ofType: "tflite")

        let options = ImageSegmenterOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .video
        options.shouldOutputCategoryMask = true
        options.shouldOutputConfidenceMasks = false

        let imageSegmenter = try ImageSegmenter(options: options)
        return imageSegmenter
    }

    // Create the task, Swift, Livestream.

    // Class that conforms to the `imageSegmenterLiveStreamDelegate` protocol and
    // implements the method that the image segmenter calls once it finishes
    // performing segmentation of each input frame.
    class ImageSegmenterResultProcessor: NSObject, ImageSegmenterLiveStreamDelegate {

      func imageSegmenter(
        _ imageSegmenter: ImageSegmenter,
        didFinishSegmentation result: ImageSegmenterResult?,
        timestampInMilliseconds: Int,
        error: Error?) {

        // Process the image segmentation result or errors here.

      }
    }

    static func createLiveStream() throws -> ImageSegmenter {
        let modelPath = Bundle.main.path(forResource: "model",
                                              ofType: "tflite")

        let options = ImageSegmenterOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .liveStream
        options.shouldOutputCategoryMask = true
        options.shouldOutputConfidenceMasks = false

        // Set `imageSegmenterLiveStreamDelegate` to the object of the class that
        // confirms to the `ImageSegmenterLiveStreamDelegate` protocol.
        let processor = ImageSegmenterResultProcessor()
        options.imageSegmenterLiveStreamDelegate = processor

        let imageSegmenter = try ImageSegmenter(options: options)
        return imageSegmenter
    }

    // Run the task, Swift, Image.
    static func runImage(imageSegmenter: ImageSegmenter, image: MPImage) throws -> ImageSegmenterResult {
        let result = try imageSegmenter.segment(image: image)
        return result
    }

    // Run the task, Swift, Video.
    static func runVideo(imageSegmenter: ImageSegmenter, image: MPImage,
                         timestamp: Int) throws -> ImageSegmenterResult {
        let result = try imageSegmenter.segment(
          videoFrame: image,
          timestampInMilliseconds: timestamp)
        return result
    }

    // Run the task, Swift, Live stream.
    static func runLiveStream(imageSegmenter: ImageSegmenter, image: MPImage, timestamp: Int) throws {
        try imageSegmenter.segmentAsync(
          image: image,
          timestampInMilliseconds: timestamp)
    }
}

#if canImport(CoreMedia)
import CoreMedia

extension ImageSegmenterGuide {
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
import CoreMedia
import UIKit

extension ImageSegmenterGuide {
    // Prepare data, UIImage, Swift.
    static func prepare(image: UIImage) throws -> MPImage {
        // Load an image on the user's device as an iOS `UIImage` object.

        // Convert the `UIImage` object to a MediaPipe's Image object having the default
        // orientation `UIImage.Orientation.up`.
        let image = try MPImage(uiImage: image)
        return image
    }

    /// The sample app's ImageSegmenterService: each camera frame, and a video frame given as a CGImage.
    final class ImageSegmenterService {
      var imageSegmenter: ImageSegmenter?
      init(imageSegmenter: ImageSegmenter?) { self.imageSegmenter = imageSegmenter }

      func segmentAsync(
        sampleBuffer: CMSampleBuffer,
        orientation: UIImage.Orientation,
        timeStamps: Int) {
          guard let image = try? MPImage(sampleBuffer: sampleBuffer, orientation: orientation) else {
            return
          }
          do {
            try imageSegmenter?.segmentAsync(image: image, timestampInMilliseconds: timeStamps)
          } catch {
            print(error)
          }
        }

      func segment(
        videoFrame: CGImage,
        orientation: UIImage.Orientation,
        timeStamps: Int)
      -> ResultBundle?  {
        do {
          let mpImage = try MPImage(uiImage: UIImage(cgImage: videoFrame))
          let startDate = Date()
          let result = try imageSegmenter?.segment(videoFrame: mpImage, timestampInMilliseconds: timeStamps)
          let inferenceTime = Date().timeIntervalSince(startDate) * 1000
          return ResultBundle(inferenceTime: inferenceTime, imageSegmenterResults: [result])
        } catch {
          print(error)
          return nil
        }
      }
    }

    /// A result from the `ImageSegmenterService` (the sample app's).
    struct ResultBundle {
      let inferenceTime: Double
      let imageSegmenterResults: [ImageSegmenterResult?]
      var size: CGSize = .zero
    }
}
#endif
