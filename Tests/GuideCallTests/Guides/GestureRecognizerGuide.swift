// The gesture recognizer guide for iOS (ai.google.dev/edge/mediapipe/solutions/vision/gesture_recognizer/ios), its
// Swift samples as written, and its sample app's per-frame methods (google-ai-edge/mediapipe-samples,
// examples/gesture_recognizer/ios/GestureRecognizer/Services/GestureRecognizerService.swift). Only the import
// differs; free variables are parameters, and each sample returns what it made (see FaceDetectorGuide.swift).
import Foundation
import TasksVision

enum GestureRecognizerGuide {
    // Create the task, Swift, Image.
    static func createImage(minHandDetectionConfidence: Float, minHandPresenceConfidence: Float,
                            minHandTrackingConfidence: Float, numHands: Int) throws -> GestureRecognizer {
        let modelPath = Bundle.main.path(forResource: "gesture_recognizer",
                                              ofType: "task")

        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .image
        options.minHandDetectionConfidence = minHandDetectionConfidence
        options.minHandPresenceConfidence = minHandPresenceConfidence
        options.minTrackingConfidence = minHandTrackingConfidence
        options.numHands = numHands

        let gestureRecognizer = try GestureRecognizer(options: options)
        return gestureRecognizer
    }

    // Create the task, Swift, Video.
    static func createVideo(minHandDetectionConfidence: Float, minHandPresenceConfidence: Float,
                            minHandTrackingConfidence: Float, numHands: Int) throws -> GestureRecognizer {
        let modelPath = Bundle.main.path(forResource: "gesture_recognizer",
                                              ofType: "task")

        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .video
        options.minHandDetectionConfidence = minHandDetectionConfidence
        options.minHandPresenceConfidence = minHandPresenceConfidence
        options.minTrackingConfidence = minHandTrackingConfidence
        options.numHands = numHands

        let gestureRecognizer = try GestureRecognizer(options: options)
        return gestureRecognizer
    }

    // Create the task, Swift, Livestream.

    // Class that conforms to the `GestureRecognizerLiveStreamDelegate` protocol and
    // implements the method that the gesture recognizer calls once it finishes
    // performing recognizing hand gestures in each input frame.
    class GestureRecognizerResultProcessor: NSObject, GestureRecognizerLiveStreamDelegate {

      func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer,
        didFinishRecognition result: GestureRecognizerResult?,
        timestampInMilliseconds: Int,
        error: Error?) {

        // Process the gesture recognizer result or errors here.

      }
    }

    static func createLiveStream(minHandDetectionConfidence: Float, minHandPresenceConfidence: Float,
                                 minHandTrackingConfidence: Float, numHands: Int) throws -> GestureRecognizer {
        let modelPath = Bundle.main.path(
          forResource: "gesture_recognizer",
          ofType: "task")

        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .liveStream
        options.minHandDetectionConfidence = minHandDetectionConfidence
        options.minHandPresenceConfidence = minHandPresenceConfidence
        options.minTrackingConfidence = minHandTrackingConfidence
        options.numHands = numHands

        // Assign an object of the class to the `gestureRecognizerLiveStreamDelegate`
        // property.
        let processor = GestureRecognizerResultProcessor()
        options.gestureRecognizerLiveStreamDelegate = processor

        let gestureRecognizer = try GestureRecognizer(options: options)
        return gestureRecognizer
    }

    // Run the task, Swift, Image.
    static func runImage(gestureRecognizer: GestureRecognizer, image: MPImage) throws -> GestureRecognizerResult {
        let result = try gestureRecognizer.recognize(image: image)
        return result
    }

    // Run the task, Swift, Video.
    static func runVideo(gestureRecognizer: GestureRecognizer, image: MPImage,
                         timestamp: Int) throws -> GestureRecognizerResult {
        let result = try gestureRecognizer.recognize(
          videoFrame: image,
          timestampInMilliseconds: timestamp)
        return result
    }

    // Run the task, Swift, Livestream.
    static func runLiveStream(gestureRecognizer: GestureRecognizer, image: MPImage, timestamp: Int) throws {
        try gestureRecognizer.recognizeAsync(
          image: image,
          timestampInMilliseconds: timestamp)
    }
}

#if canImport(CoreMedia)
import CoreMedia

extension GestureRecognizerGuide {
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

extension GestureRecognizerGuide {
    // Prepare data, UIImage, Swift.
    static func prepare(image: UIImage) throws -> MPImage {
        // Load an image on the user's device as an iOS `UIImage` object.

        // Convert the `UIImage` object to a MediaPipe's Image object having the default
        // orientation `UIImage.Orientation.up`.
        let image = try MPImage(uiImage: image)
        return image
    }

    /// The sample app's GestureRecognizerService: a still image and each camera frame.
    final class GestureRecognizerService {
      var gestureRecognizer: GestureRecognizer?
      init(gestureRecognizer: GestureRecognizer?) { self.gestureRecognizer = gestureRecognizer }

      func recognize(image: UIImage) -> ResultBundle? {
        guard let mpImage = try? MPImage(uiImage: image) else {
          return nil
        }
        print(image.imageOrientation.rawValue)
        do {
          let startDate = Date()
          let result = try gestureRecognizer?.recognize(image: mpImage)
          let inferenceTime = Date().timeIntervalSince(startDate) * 1000
          return ResultBundle(inferenceTime: inferenceTime, gestureRecognizerResults: [result])
        } catch {
          print(error)
          return nil
        }
      }

      func recognizeAsync(
        sampleBuffer: CMSampleBuffer,
        orientation: UIImage.Orientation,
        timeStamps: Int) {
          guard let image = try? MPImage(sampleBuffer: sampleBuffer, orientation: orientation) else {
            return
          }
          do {
            try gestureRecognizer?.recognizeAsync(image: image, timestampInMilliseconds: timeStamps)
          } catch {
            print(error)
          }
        }
    }

    /// A result from the `GestureRecognizerService` (the sample app's).
    struct ResultBundle {
      let inferenceTime: Double
      let gestureRecognizerResults: [GestureRecognizerResult?]
      var size: CGSize = .zero
    }
}
#endif
