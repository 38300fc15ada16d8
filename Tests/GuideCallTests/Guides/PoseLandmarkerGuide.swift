// The pose landmarker guide for iOS (ai.google.dev/edge/mediapipe/solutions/vision/pose_landmarker/ios), its Swift
// samples as written, and its sample app's per-frame methods (google-ai-edge/mediapipe-samples,
// examples/pose_landmarker/ios/PoseLandmarker/Services/PoseLandmarkerService.swift). Only the import differs; free
// variables are parameters, and each sample returns what it made (see FaceDetectorGuide.swift).
import Foundation
import TasksVision

enum PoseLandmarkerGuide {
    // Create the task, Swift, Image.
    static func createImage(minPoseDetectionConfidence: Float, minPosePresenceConfidence: Float,
                            minTrackingConfidence: Float, numPoses: Int) throws -> PoseLandmarker {
        let modelPath = Bundle.main.path(forResource: "pose_landmarker",
                                              ofType: "task")

        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .image
        options.minPoseDetectionConfidence = minPoseDetectionConfidence
        options.minPosePresenceConfidence = minPosePresenceConfidence
        options.minTrackingConfidence = minTrackingConfidence
        options.numPoses = numPoses

        let poseLandmarker = try PoseLandmarker(options: options)
        return poseLandmarker
    }

    // Create the task, Swift, Video.
    static func createVideo(minPoseDetectionConfidence: Float, minPosePresenceConfidence: Float,
                            minTrackingConfidence: Float, numPoses: Int) throws -> PoseLandmarker {
        let modelPath = Bundle.main.path(forResource: "pose_landmarker",
                                              ofType: "task")

        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .video
        options.minPoseDetectionConfidence = minPoseDetectionConfidence
        options.minPosePresenceConfidence = minPosePresenceConfidence
        options.minTrackingConfidence = minTrackingConfidence
        options.numPoses = numPoses

        let poseLandmarker = try PoseLandmarker(options: options)
        return poseLandmarker
    }

    // Create the task, Swift, Livestream.

    // Class that conforms to the `PoseLandmarkerLiveStreamDelegate` protocol and
    // implements the method that the pose landmarker calls once it finishes
    // performing pose landmark detection in each input frame.
    class PoseLandmarkerResultProcessor: NSObject, PoseLandmarkerLiveStreamDelegate {

      func poseLandmarker(
        _ poseLandmarker: PoseLandmarker,
        didFinishDetection result: PoseLandmarkerResult?,
        timestampInMilliseconds: Int,
        error: Error?) {

        // Process the pose landmarker result or errors here.

      }
    }

    static func createLiveStream(minPoseDetectionConfidence: Float, minPosePresenceConfidence: Float,
                                 minTrackingConfidence: Float, numPoses: Int) throws -> PoseLandmarker {
        let modelPath = Bundle.main.path(forResource: "pose_landmarker",
                                              ofType: "task")

        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .liveStream
        options.minPoseDetectionConfidence = minPoseDetectionConfidence
        options.minPosePresenceConfidence = minPosePresenceConfidence
        options.minTrackingConfidence = minTrackingConfidence
        options.numPoses = numPoses

        // Assign an object of the class to the `poseLandmarkerLiveStreamDelegate`
        // property.
        let processor = PoseLandmarkerResultProcessor()
        options.poseLandmarkerLiveStreamDelegate = processor

        let poseLandmarker = try PoseLandmarker(options: options)
        return poseLandmarker
    }

    // Run the task, Swift, Image.
    static func runImage(poseLandmarker: PoseLandmarker, image: MPImage) throws -> PoseLandmarkerResult {
        let result = try poseLandmarker.detect(image: image)
        return result
    }

    // Run the task, Swift, Video.
    static func runVideo(poseLandmarker: PoseLandmarker, image: MPImage,
                         timestamp: Int) throws -> PoseLandmarkerResult {
        let result = try poseLandmarker.detect(
          videoFrame: image,
          timestampInMilliseconds: timestamp)
        return result
    }

    // Run the task, Swift, Livestream.
    static func runLiveStream(poseLandmarker: PoseLandmarker, image: MPImage, timestamp: Int) throws {
        try poseLandmarker.detectAsync(
          image: image,
          timestampInMilliseconds: timestamp)
    }
}

#if canImport(CoreMedia)
import CoreMedia

extension PoseLandmarkerGuide {
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

extension PoseLandmarkerGuide {
    // Prepare data, UIImage, Swift.
    static func prepare(image: UIImage) throws -> MPImage {
        // Load an image on the user's device as an iOS `UIImage` object.

        // Convert the `UIImage` object to a MediaPipe's Image object having the default
        // orientation `UIImage.Orientation.up`.
        let image = try MPImage(uiImage: image)
        return image
    }

    /// The sample app's PoseLandmarkerService: a still image and each camera frame.
    final class PoseLandmarkerService {
      var poseLandmarker: PoseLandmarker?
      init(poseLandmarker: PoseLandmarker?) { self.poseLandmarker = poseLandmarker }

      func detect(image: UIImage) -> ResultBundle? {
        guard let mpImage = try? MPImage(uiImage: image) else {
          return nil
        }
        do {
          let startDate = Date()
          let result = try poseLandmarker?.detect(image: mpImage)
          let inferenceTime = Date().timeIntervalSince(startDate) * 1000
          return ResultBundle(inferenceTime: inferenceTime, poseLandmarkerResults: [result])
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
          try poseLandmarker?.detectAsync(image: image, timestampInMilliseconds: timeStamps)
        } catch {
          print(error)
        }
      }
    }

    /// A result from the `PoseLandmarkerService` (the sample app's).
    struct ResultBundle {
      let inferenceTime: Double
      let poseLandmarkerResults: [PoseLandmarkerResult?]
      var size: CGSize = .zero
    }
}
#endif
