// ML Kit's pose detection guide for iOS (developers.google.com/ml-kit/vision/pose-detection/ios), its Swift samples
// as the guide writes them (its text quoted from the page's public copies; only the page's first section is readable
// here). Only the import differs; free variables are parameters, each sample returns what it made. Three of the
// guide's lines do not compile against ML Kit itself and are written as ML Kit's other guides and quickstart write
// them: `let image = VisionImage(image: UIImage)` / `visionImage.orientation = ...` (a type as argument, an undeclared
// name) as `let visionImage = VisionImage(image: image)`; `var results: [Pose]` with `guard let detectedPoses =
// results` as `[Pose]?`; the completion's `guard !detectedPoses.isEmpty` (an optional) with `let detectedPoses =
// detectedPoses`.
import Foundation
import TasksVision

enum MLKitPoseDetectionGuide {
    // 1. Create an instance of PoseDetector.
    static func createBase() -> PoseDetector {
        // Base pose detector with streaming, when depending on the PoseDetection SDK
        let options = PoseDetectorOptions()
        options.detectorMode = .stream

        let poseDetector = PoseDetector.poseDetector(options: options)
        return poseDetector
    }

    static func createAccurate() -> PoseDetector {
        // Accurate pose detector on static images, when depending on the
        // PoseDetectionAccurate SDK
        let options = AccuratePoseDetectorOptions()
        options.detectorMode = .singleImage

        let poseDetector = PoseDetector.poseDetector(options: options)
        return poseDetector
    }

    // 3. Process the image: asynchronously.
    static func processAsynchronously(poseDetector: PoseDetector, image: VisionImage,
                                      success: @escaping ([Pose]) -> Void) {
        poseDetector.process(image) { detectedPoses, error in
          guard error == nil else {
            // Error.
            return
          }
          guard let detectedPoses = detectedPoses, !detectedPoses.isEmpty else {
            // No pose detected.
            return
          }

          // Success. Get pose landmarks here.
          success(detectedPoses)
        }
    }

    // 3. Process the image: synchronously.
    static func processSynchronously(poseDetector: PoseDetector, image: VisionImage) -> [Pose] {
        var results: [Pose]?
        do {
          results = try poseDetector.results(in: image)
        } catch let error {
          print("Failed to detect pose with error: \(error.localizedDescription).")
          return []
        }
        guard let detectedPoses = results, !detectedPoses.isEmpty else {
          print("Pose detector returned no results.")
          return []
        }

        // Success. Get pose landmarks here.
        return detectedPoses
    }

    // 4. Get information about the detected pose.
    static func leftAnklePositions(detectedPoses: [Pose]) -> [Vision3DPoint] {
        var positions: [Vision3DPoint] = []
        for pose in detectedPoses {
          let leftAnkleLandmark = pose.landmark(ofType: .leftAnkle)
          if leftAnkleLandmark.inFrameLikelihood > 0.5 {
            let position = leftAnkleLandmark.position
            positions.append(position)
          }
        }
        return positions
    }

    // Pose classification tips.
    static func angle(
          firstLandmark: PoseLandmark,
          midLandmark: PoseLandmark,
          lastLandmark: PoseLandmark
      ) -> CGFloat {
          let radians: CGFloat =
              atan2(lastLandmark.position.y - midLandmark.position.y,
                        lastLandmark.position.x - midLandmark.position.x) -
                atan2(firstLandmark.position.y - midLandmark.position.y,
                        firstLandmark.position.x - midLandmark.position.x)
          var degrees = radians * 180.0 / .pi
          degrees = abs(degrees) // Angle should never be negative
          if degrees > 180.0 {
              degrees = 360.0 - degrees // Always get the acute representation of the angle
          }
          return degrees
      }

    static func rightHipAngle(pose: Pose) -> CGFloat {
        let rightHipAngle = angle(
              firstLandmark: pose.landmark(ofType: .rightShoulder),
              midLandmark: pose.landmark(ofType: .rightHip),
              lastLandmark: pose.landmark(ofType: .rightKnee))
        return rightHipAngle
    }
}

#if canImport(UIKit)
import AVFoundation
import UIKit

extension MLKitPoseDetectionGuide {
    // 2. Prepare the input image: a UIImage.
    static func prepare(image: UIImage) -> VisionImage {
        let visionImage = VisionImage(image: image)
        visionImage.orientation = image.imageOrientation
        return visionImage
    }

    // 2. Prepare the input image: the orientation of a camera's frame.
    static func imageOrientation(
      deviceOrientation: UIDeviceOrientation,
      cameraPosition: AVCaptureDevice.Position
    ) -> UIImage.Orientation {
      switch deviceOrientation {
      case .portrait:
        return cameraPosition == .front ? .leftMirrored : .right
      case .landscapeLeft:
        return cameraPosition == .front ? .downMirrored : .up
      case .portraitUpsideDown:
        return cameraPosition == .front ? .rightMirrored : .left
      case .landscapeRight:
        return cameraPosition == .front ? .upMirrored : .down
      case .faceDown, .faceUp, .unknown:
        return .up
      }
    }

    // 2. Prepare the input image: a camera's CMSampleBuffer (UIDevice is main-actor isolated in Apple's SDK).
    @MainActor
    static func prepare(sampleBuffer: CMSampleBuffer, cameraPosition: AVCaptureDevice.Position) -> VisionImage {
        let image = VisionImage(buffer: sampleBuffer)
        image.orientation = imageOrientation(
          deviceOrientation: UIDevice.current.orientation,
          cameraPosition: cameraPosition)
        return image
    }
}
#endif
