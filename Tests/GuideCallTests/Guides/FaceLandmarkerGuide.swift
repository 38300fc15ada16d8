// The face landmarker guide for iOS (ai.google.dev/edge/mediapipe/solutions/vision/face_landmarker/ios), its Swift
// samples as written, and its sample app's per-frame methods and connection drawing (google-ai-edge/mediapipe-samples,
// examples/face_landmarker/ios: Services/FaceLandmarkerService.swift, Views/FaceOverlay.swift). Only the import
// differs; free variables are parameters, and each sample returns what it made (see FaceDetectorGuide.swift).
import Foundation
import TasksVision

enum FaceLandmarkerGuide {
    // Create the task, Swift, Image.
    static func createImage(minFaceDetectionConfidence: Float, minFacePresenceConfidence: Float,
                            minTrackingConfidence: Float, numFaces: Int) throws -> FaceLandmarker {
        let modelPath = Bundle.main.path(
          forResource: "face_landmarker",
          ofType: "task")

        let options = FaceLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .image
        options.minFaceDetectionConfidence = minFaceDetectionConfidence
        options.minFacePresenceConfidence = minFacePresenceConfidence
        options.minTrackingConfidence = minTrackingConfidence
        options.numFaces = numFaces

        let faceLandmarker = try FaceLandmarker(options: options)
        return faceLandmarker
    }

    // Create the task, Swift, Video.
    static func createVideo(minFaceDetectionConfidence: Float, minFacePresenceConfidence: Float,
                            minTrackingConfidence: Float, numFaces: Int) throws -> FaceLandmarker {
        let modelPath = Bundle.main.path(
          forResource: "face_landmarker",
          ofType: "task")

        let options = FaceLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .video
        options.minFaceDetectionConfidence = minFaceDetectionConfidence
        options.minFacePresenceConfidence = minFacePresenceConfidence
        options.minTrackingConfidence = minTrackingConfidence
        options.numFaces = numFaces

        let faceLandmarker = try FaceLandmarker(options: options)
        return faceLandmarker
    }

    // Create the task, Swift, Livestream.

    // Class that conforms to the `FaceLandmarkerLiveStreamDelegate` protocol and
    // implements the method that the face landmarker calls once it finishes
    // performing face landmark detection in each input frame.
    class FaceLandmarkerResultProcessor: NSObject, FaceLandmarkerLiveStreamDelegate {

      func faceLandmarker(
        _ faceLandmarker: FaceLandmarker,
        didFinishDetection result: FaceLandmarkerResult?,
        timestampInMilliseconds: Int,
        error: Error?) {

        // Process the face landmarker result or errors here.

      }
    }

    static func createLiveStream(minFaceDetectionConfidence: Float, minFacePresenceConfidence: Float,
                                 minTrackingConfidence: Float, numFaces: Int) throws -> FaceLandmarker {
        let modelPath = Bundle.main.path(
          forResource: "face_landmarker",
          ofType: "task")

        let options = FaceLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .liveStream
        options.minFaceDetectionConfidence = minFaceDetectionConfidence
        options.minFacePresenceConfidence = minFacePresenceConfidence
        options.minTrackingConfidence = minTrackingConfidence
        options.numFaces = numFaces

        // Assign an object of the class to the `faceLandmarkerLiveStreamDelegate`
        // property.
        let processor = FaceLandmarkerResultProcessor()
        options.faceLandmarkerLiveStreamDelegate = processor

        let faceLandmarker = try FaceLandmarker(options: options)
        return faceLandmarker
    }

    // Run the task, Swift, Image.
    static func runImage(faceLandmarker: FaceLandmarker, image: MPImage) throws -> FaceLandmarkerResult {
        let result = try faceLandmarker.detect(image: image)
        return result
    }

    // Run the task, Swift, Video.
    static func runVideo(faceLandmarker: FaceLandmarker, image: MPImage,
                         timestamp: Int) throws -> FaceLandmarkerResult {
        let result = try faceLandmarker.detect(
          videoFrame: image,
          timestampInMilliseconds: timestamp)
        return result
    }

    // Run the task, Swift, Live stream.
    static func runLiveStream(faceLandmarker: FaceLandmarker, image: MPImage, timestamp: Int) throws {
        try faceLandmarker.detectAsync(
          image: image,
          timestampInMilliseconds: timestamp)
    }
}

#if canImport(CoreMedia)
import CoreMedia

extension FaceLandmarkerGuide {
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

extension FaceLandmarkerGuide {
    // Prepare data, UIImage, Swift.
    static func prepare(image: UIImage) throws -> MPImage {
        // Load an image on the user's device as an iOS `UIImage` object.

        // Convert the `UIImage` object to a MediaPipe's Image object having the default
        // orientation `UIImage.Orientation.up`.
        let image = try MPImage(uiImage: image)
        return image
    }

    /// The sample app's FaceLandmarkerService: a still image and each camera frame.
    final class FaceLandmarkerService {
      var faceLandmarker: FaceLandmarker?
      init(faceLandmarker: FaceLandmarker?) { self.faceLandmarker = faceLandmarker }

      func detect(image: UIImage) -> ResultBundle? {
        guard let mpImage = try? MPImage(uiImage: image) else {
          return nil
        }
        print(image.imageOrientation.rawValue)
        do {
          let startDate = Date()
          let result = try faceLandmarker?.detect(image: mpImage)
          let inferenceTime = Date().timeIntervalSince(startDate) * 1000
          return ResultBundle(inferenceTime: inferenceTime, faceLandmarkerResults: [result])
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
          try faceLandmarker?.detectAsync(image: image, timestampInMilliseconds: timeStamps)
        } catch {
          print(error)
        }
      }
    }

    /// A result from the `FaceLandmarkerService` (the sample app's).
    struct ResultBundle {
      let inferenceTime: Double
      let faceLandmarkerResults: [FaceLandmarkerResult?]
      var size: CGSize = .zero
    }

    /// A line between two points (the sample app's).
    struct Line {
      let from: CGPoint
      let to: CGPoint
    }

    /// The sample app's FaceOverlay: landmarks turned to the displayed orientation, and the connection sets (class
    /// functions in MediaPipe iOS) as lines between them. The view's offsets and scale are left out.
    static func faceOverlayLines(faceLandmarks: [NormalizedLandmark], originalImageSize: CGSize,
                                 orientation: UIImage.Orientation) -> [[Line]] {
        var transformedFaceLandmarks: [CGPoint]!

        switch orientation {
        case .left:
          transformedFaceLandmarks = faceLandmarks.map({CGPoint(x: CGFloat($0.y), y: 1 - CGFloat($0.x))})
        case .right:
          transformedFaceLandmarks = faceLandmarks.map({CGPoint(x: 1 - CGFloat($0.y), y: CGFloat($0.x))})
        default:
          transformedFaceLandmarks = faceLandmarks.map({CGPoint(x: CGFloat($0.x), y: CGFloat($0.y))})
        }

        let dots: [CGPoint] = transformedFaceLandmarks.map({CGPoint(x: CGFloat($0.x) * originalImageSize.width,
                                                                    y: CGFloat($0.y) * originalImageSize.height)})

        var lineConnections: [[Line]] = []
        lineConnections.append(FaceLandmarker.faceOvalConnections()
            .map({ connection in
            let start = dots[Int(connection.start)]
            let end = dots[Int(connection.end)]
            return Line(from: start, to: end)
            }))
        lineConnections.append(FaceLandmarker.rightEyebrowConnections()
            .map({ connection in
            let start = dots[Int(connection.start)]
            let end = dots[Int(connection.end)]
              return Line(from: start, to: end)
          }))
        lineConnections.append(FaceLandmarker.leftEyebrowConnections()
          .map({ connection in
          let start = dots[Int(connection.start)]
          let end = dots[Int(connection.end)]
            return Line(from: start, to: end)
        }))
        lineConnections.append(FaceLandmarker.rightEyeConnections()
          .map({ connection in
          let start = dots[Int(connection.start)]
          let end = dots[Int(connection.end)]
            return Line(from: start, to: end)
        }))
        lineConnections.append(FaceLandmarker.leftEyeConnections()
          .map({ connection in
          let start = dots[Int(connection.start)]
          let end = dots[Int(connection.end)]
            return Line(from: start, to: end)
        }))
        lineConnections.append(FaceLandmarker.lipsConnections()
          .map({ connection in
          let start = dots[Int(connection.start)]
          let end = dots[Int(connection.end)]
            return Line(from: start, to: end)
        }))
        return lineConnections
    }
}
#endif
