// The face detector guide for iOS (ai.google.dev/edge/mediapipe/solutions/vision/face_detector/ios), its Swift
// samples as written, and the per-frame methods of its sample app (google-ai-edge/mediapipe-samples,
// examples/face_detector/ios/FaceDetector/Services/FaceDetectorService.swift). Only the import differs. The samples'
// free variables (image, timestamp, ...) are parameters; each returns what it made. Apple-only samples are fenced
// and type-check against the stand-ins (tools/apple_standins.sh); AppleGuideTests runs them on Apple platforms.
import Foundation
import TasksVision

enum FaceDetectorGuide {
    // Create the task, Swift, Image.
    static func createImage() throws -> FaceDetector {
        let modelPath = Bundle.main.path(forResource: "model",
                                              ofType: "tflite")

        let options = FaceDetectorOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .image

        let faceDetector = try FaceDetector(options: options)
        return faceDetector
    }

    // Create the task, Swift, Video.
    static func createVideo() throws -> FaceDetector {
        let modelPath = Bundle.main.path(forResource: "model",
                                              ofType: "tflite")

        let options = FaceDetectorOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .video

        let faceDetector = try FaceDetector(options: options)
        return faceDetector
    }

    // Create the task, Swift, Livestream.

    // Class that conforms to the `FaceDetectorLiveStreamDelegate` protocol and
    // implements the method that the face detector calls once it finishes
    // detecting faces in each input frame.
    class FaceDetectorResultProcessor: NSObject, FaceDetectorLiveStreamDelegate {

      func faceDetector(
        _ faceDetector: FaceDetector,
        didFinishDetection result: FaceDetectorResult?,
        timestampInMilliseconds: Int,
        error: Error?) {

        // Process the face detection result or errors here.

      }
    }

    static func createLiveStream() throws -> FaceDetector {
        let modelPath = Bundle.main.path(
          forResource: "model",
          ofType: "tflite")

        let options = FaceDetectorOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .liveStream

        // Assign an object of the class to the `faceDetectorLiveStreamDelegate`
        // property.
        let processor = FaceDetectorResultProcessor()
        options.faceDetectorLiveStreamDelegate = processor

        let faceDetector = try FaceDetector(options: options)
        return faceDetector
    }

    // Run the task, Swift, Image.
    static func runImage(faceDetector: FaceDetector, image: MPImage) throws -> FaceDetectorResult {
        let result = try faceDetector.detect(image: image)
        return result
    }

    // Run the task, Swift, Video.
    static func runVideo(faceDetector: FaceDetector, image: MPImage, timestamp: Int) throws -> FaceDetectorResult {
        let result = try faceDetector.detect(
          videoFrame: image,
          timestampInMilliseconds: timestamp)
        return result
    }

    // Run the task, Swift, Livestream.
    static func runLiveStream(faceDetector: FaceDetector, image: MPImage, timestamp: Int) throws {
        try faceDetector.detectAsync(
          image: image,
          timestampInMilliseconds: timestamp)
    }
}

#if canImport(CoreMedia)
import CoreMedia

extension FaceDetectorGuide {
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

extension FaceDetectorGuide {
    // Prepare data, UIImage, Swift.
    static func prepare(image: UIImage) throws -> MPImage {
        // Load an image on the user's device as an iOS `UIImage` object.

        // Convert the `UIImage` object to a MediaPipe's Image object having the default
        // orientation `UIImage.Orientation.up`.
        let image = try MPImage(uiImage: image)
        return image
    }

    /// The sample app's FaceDetectorService: a still image and each camera frame.
    final class FaceDetectorService {
      var faceDetector: FaceDetector?
      init(faceDetector: FaceDetector?) { self.faceDetector = faceDetector }

      func detect(image: UIImage) -> ResultBundle? {
        guard let mpImage = try? MPImage(uiImage: image) else {
          return nil
        }
        print(image.imageOrientation.rawValue)
        do {
          let startDate = Date()
          let result = try faceDetector?.detect(image: mpImage)
          let inferenceTime = Date().timeIntervalSince(startDate) * 1000
          return ResultBundle(inferenceTime: inferenceTime, faceDetectorResults: [result])
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
          try faceDetector?.detectAsync(image: image, timestampInMilliseconds: timeStamps)
        } catch {
          print(error)
        }
      }
    }

    /// A result from the `FaceDetectorService` (the sample app's).
    struct ResultBundle {
      let inferenceTime: Double
      let faceDetectorResults: [FaceDetectorResult?]
      var size: CGSize = .zero
    }
}
#endif
