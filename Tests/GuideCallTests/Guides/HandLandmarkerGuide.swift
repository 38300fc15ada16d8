// The hand landmarker guide for iOS (ai.google.dev/edge/mediapipe/solutions/vision/hand_landmarker/ios), its Swift
// samples as written, and its sample app's per-frame methods and connection drawing (google-ai-edge/mediapipe-samples,
// examples/hand_landmarker/ios: Services/HandLandmarkerService.swift, Views/HandOverlay.swift). Only the import
// differs; free variables are parameters, and each sample returns what it made (see FaceDetectorGuide.swift).
import Foundation
import TasksVision

enum HandLandmarkerGuide {
    // Create the task, Swift, Image.
    static func createImage(minHandDetectionConfidence: Float, minHandPresenceConfidence: Float,
                            minHandTrackingConfidence: Float, numHands: Int) throws -> HandLandmarker {
        let modelPath = Bundle.main.path(forResource: "hand_landmarker",
                                              ofType: "task")

        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .image
        options.minHandDetectionConfidence = minHandDetectionConfidence
        options.minHandPresenceConfidence = minHandPresenceConfidence
        options.minTrackingConfidence = minHandTrackingConfidence
        options.numHands = numHands

        let handLandmarker = try HandLandmarker(options: options)
        return handLandmarker
    }

    // Create the task, Swift, Video.
    static func createVideo(minHandDetectionConfidence: Float, minHandPresenceConfidence: Float,
                            minHandTrackingConfidence: Float, numHands: Int) throws -> HandLandmarker {
        let modelPath = Bundle.main.path(forResource: "hand_landmarker",
                                              ofType: "task")

        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .video
        options.minHandDetectionConfidence = minHandDetectionConfidence
        options.minHandPresenceConfidence = minHandPresenceConfidence
        options.minTrackingConfidence = minHandTrackingConfidence
        options.numHands = numHands

        let handLandmarker = try HandLandmarker(options: options)
        return handLandmarker
    }

    // Create the task, Swift, Livestream.

    // Class that conforms to the `HandLandmarkerLiveStreamDelegate` protocol and
    // implements the method that the hand landmarker calls once it finishes
    // performing landmarks detection in each input frame.
    class HandLandmarkerResultProcessor: NSObject, HandLandmarkerLiveStreamDelegate {

      func handLandmarker(
        _ handLandmarker: HandLandmarker,
        didFinishDetection result: HandLandmarkerResult?,
        timestampInMilliseconds: Int,
        error: Error?) {

        // Process the hand landmarker result or errors here.

      }
    }

    static func createLiveStream(minHandDetectionConfidence: Float, minHandPresenceConfidence: Float,
                                 minHandTrackingConfidence: Float, numHands: Int) throws -> HandLandmarker {
        let modelPath = Bundle.main.path(
          forResource: "hand_landmarker",
          ofType: "task")

        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .liveStream
        options.minHandDetectionConfidence = minHandDetectionConfidence
        options.minHandPresenceConfidence = minHandPresenceConfidence
        options.minTrackingConfidence = minHandTrackingConfidence
        options.numHands = numHands

        // Assign an object of the class to the `handLandmarkerLiveStreamDelegate`
        // property.
        let processor = HandLandmarkerResultProcessor()
        options.handLandmarkerLiveStreamDelegate = processor

        let handLandmarker = try HandLandmarker(options: options)
        return handLandmarker
    }

    // Run the task, Swift, Image.
    static func runImage(handLandmarker: HandLandmarker, image: MPImage) throws -> HandLandmarkerResult {
        let result = try handLandmarker.detect(image: image)
        return result
    }

    // Run the task, Swift, Video.
    static func runVideo(handLandmarker: HandLandmarker, image: MPImage,
                         timestamp: Int) throws -> HandLandmarkerResult {
        let result = try handLandmarker.detect(
            videoFrame: image,
            timestampInMilliseconds: timestamp)
        return result
    }

    // Run the task, Swift, Livestream.
    static func runLiveStream(handLandmarker: HandLandmarker, image: MPImage, timestamp: Int) throws {
        try handLandmarker.detectAsync(
          image: image,
          timestampInMilliseconds: timestamp)
    }
}

#if canImport(CoreMedia)
import CoreMedia

extension HandLandmarkerGuide {
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

extension HandLandmarkerGuide {
    // Prepare data, UIImage, Swift.
    static func prepare(image: UIImage) throws -> MPImage {
        // Load an image on the user's device as an iOS `UIImage` object.

        // Convert the `UIImage` object to a MediaPipe's Image object having the default
        // orientation `UIImage.Orientation.up`.
        let image = try MPImage(uiImage: image)
        return image
    }

    /// The sample app's HandLandmarkerService: a still image and each camera frame.
    final class HandLandmarkerService {
      var handLandmarker: HandLandmarker?
      init(handLandmarker: HandLandmarker?) { self.handLandmarker = handLandmarker }

      func detect(image: UIImage) -> ResultBundle? {
        guard let mpImage = try? MPImage(uiImage: image) else {
          return nil
        }
        print(image.imageOrientation.rawValue)
        do {
          let startDate = Date()
          let result = try handLandmarker?.detect(image: mpImage)
          let inferenceTime = Date().timeIntervalSince(startDate) * 1000
          return ResultBundle(inferenceTime: inferenceTime, handLandmarkerResults: [result])
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
          try handLandmarker?.detectAsync(image: image, timestampInMilliseconds: timeStamps)
        } catch {
          print(error)
        }
      }
    }

    /// A result from the `HandLandmarkerService` (the sample app's).
    struct ResultBundle {
      let inferenceTime: Double
      let handLandmarkerResults: [HandLandmarkerResult?]
      var size: CGSize = .zero
    }

    /// A line between two points (the sample app's).
    struct Line {
      let from: CGPoint
      let to: CGPoint
    }

    /// The sample app's HandOverlay: landmarks turned to the displayed orientation, and the hand connections (a
    /// class property in MediaPipe iOS) as lines between them. The view's offsets and scale are left out.
    static func handOverlayLines(handLandmarks: [NormalizedLandmark], originalImageSize: CGSize,
                                 orientation: UIImage.Orientation) -> [Line] {
        var transformedHandLandmarks: [CGPoint]!

        switch orientation {
        case .left:
          transformedHandLandmarks = handLandmarks.map({CGPoint(x: CGFloat($0.y), y: 1 - CGFloat($0.x))})
        case .right:
          transformedHandLandmarks = handLandmarks.map({CGPoint(x: 1 - CGFloat($0.y), y: CGFloat($0.x))})
        default:
          transformedHandLandmarks = handLandmarks.map({CGPoint(x: CGFloat($0.x), y: CGFloat($0.y))})
        }

        let dots: [CGPoint] = transformedHandLandmarks.map({CGPoint(x: CGFloat($0.x) * originalImageSize.width,
                                                                    y: CGFloat($0.y) * originalImageSize.height)})
        let lines: [Line] = HandLandmarker.handConnections
            .map({ connection in
              let start = dots[Int(connection.start)]
              let end = dots[Int(connection.end)]
              return Line(from: start,
                          to: end)
            })
        return lines
    }
}
#endif
