// The object detector guide for iOS (ai.google.dev/edge/mediapipe/solutions/vision/object_detector/ios), its Swift
// samples as written, and its sample app's per-frame methods (google-ai-edge/mediapipe-samples,
// examples/object_detection/ios/ObjectDetector/Services/ObjectDetectorService.swift). Only the import differs;
// free variables are parameters, and each sample returns what it made (see FaceDetectorGuide.swift). The guide's
// three "Run the task" lines are not Swift (`let objectDetector.detect(image:image)`, and the video and live stream
// calls without their timestamp); they are written as its sample app and the other guides write those calls.
import Foundation
import TasksVision

enum ObjectDetectorGuide {
    // Create the task, Swift, Image.
    static func createImage() throws -> ObjectDetector {
        let modelPath = Bundle.main.path(forResource: "model",
                                              ofType: "tflite")

        let options = ObjectDetectorOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .image
        options.maxResults = 5

        let objectDetector = try ObjectDetector(options: options)
        return objectDetector
    }

    // Create the task, Swift, Video.
    static func createVideo() throws -> ObjectDetector {
        let modelPath = Bundle.main.path(forResource: "model",
                                              ofType: "tflite")

        let options = ObjectDetectorOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .video
        options.maxResults = 5

        let objectDetector = try ObjectDetector(options: options)
        return objectDetector
    }

    // Create the task, Swift, Livestream.

    // Class that conforms to the `ObjectDetectorLiveStreamDelegate` protocol and
    // implements the method that the object detector calls once it
    // finishes performing detection on each input frame.
    class ObjectDetectorResultProcessor: NSObject, ObjectDetectorLiveStreamDelegate {

      func objectDetector(
        _ objectDetector: ObjectDetector,
        didFinishDetection objectDetectionResult: ObjectDetectorResult?,
        timestampInMilliseconds: Int,
        error: Error?) {
        // Process the detection result or errors here.
      }
    }

    static func createLiveStream() throws -> ObjectDetector {
        let modelPath = Bundle.main.path(forResource: "model",
                                              ofType: "tflite")

        let options = ObjectDetectorOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .liveStream
        options.maxResults = 5

        // Assign an object of the class to the `objectDetectorLiveStreamDelegate`
        // property.
        let processor = ObjectDetectorResultProcessor()
        options.objectDetectorLiveStreamDelegate = processor

        let objectDetector = try ObjectDetector(options: options)
        return objectDetector
    }

    // Run the task, Swift, Image.
    static func runImage(objectDetector: ObjectDetector, image: MPImage) throws -> ObjectDetectorResult {
        let result = try objectDetector.detect(image: image)
        return result
    }

    // Run the task, Swift, Video.
    static func runVideo(objectDetector: ObjectDetector, image: MPImage,
                         timestamp: Int) throws -> ObjectDetectorResult {
        let result = try objectDetector.detect(
          videoFrame: image,
          timestampInMilliseconds: timestamp)
        return result
    }

    // Run the task, Swift, Livestream.
    static func runLiveStream(objectDetector: ObjectDetector, image: MPImage, timestamp: Int) throws {
        try objectDetector.detectAsync(
          image: image,
          timestampInMilliseconds: timestamp)
    }
}

#if canImport(CoreMedia)
import CoreMedia

extension ObjectDetectorGuide {
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

extension ObjectDetectorGuide {
    // Prepare data, UIImage, Swift.
    static func prepare(image: UIImage) throws -> MPImage {
        // Load an image on the user's device as an iOS `UIImage` object.

        // Convert the `UIImage` object to a MediaPipe's Image object having the default
        // orientation `UIImage.Orientation.up`.
        let image = try MPImage(uiImage: image)
        return image
    }

    /// The sample app's ObjectDetectorService: a still image, each camera frame, and a video frame given as a
    /// CGImage (the body of its loop over AVAssetImageGenerator's frames).
    final class ObjectDetectorService {
      var objectDetector: ObjectDetector?
      init(objectDetector: ObjectDetector?) { self.objectDetector = objectDetector }

      func detect(image: UIImage) -> ResultBundle? {
        guard let mpImage = try? MPImage(uiImage: image) else {
          return nil
        }
        print(image.imageOrientation.rawValue)
        do {
          let startDate = Date()
          let result = try objectDetector?.detect(image: mpImage)
          let inferenceTime = Date().timeIntervalSince(startDate) * 1000
          return ResultBundle(inferenceTime: inferenceTime, objectDetectorResults: [result])
        } catch {
            print(error)
            return nil
        }
      }

      func detectAsync(
        sampleBuffer: CMSampleBuffer,
        orientation: UIImage.Orientation,
        timeStamps: Int) {
        guard let image = try? MPImage(sampleBuffer: sampleBuffer, orientation: orientation) else {
          return
        }
        do {
          try objectDetector?.detectAsync(image: image, timestampInMilliseconds: timeStamps)
        } catch {
          print(error)
        }
      }

      func detect(videoFrame image: CGImage, timestampMs: Int) -> ObjectDetectorResult? {
        let uiImage = UIImage(cgImage:image)
        do {
          let result = try objectDetector?.detect(
            videoFrame: MPImage(uiImage: uiImage),
            timestampInMilliseconds: timestampMs)
          return result
        } catch {
          print(error)
          return nil
        }
      }
    }

    /// A result from the `ObjectDetectorService` (the sample app's).
    struct ResultBundle {
      let inferenceTime: Double
      let objectDetectorResults: [ObjectDetectorResult?]
      var size: CGSize = .zero
    }
}
#endif
