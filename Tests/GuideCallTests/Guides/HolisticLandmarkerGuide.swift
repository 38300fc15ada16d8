// MediaPipe has no iOS guide page for the holistic landmarker; its iOS sample app is the guide
// (google-ai-edge/mediapipe-samples, examples/holistic_landmarker/ios/HolisticLandmarker/Services/
// HolisticLandmarkerService.swift): its per-frame methods as written. Only the import differs; the service keeps
// the task and the options the app sets. HolisticGuideCallTests.swift runs the app's option calls on installed models.
import Foundation
import TasksVision

enum HolisticLandmarkerGuide {
    // The service's createHolisticLandmarker, its options as the app sets them.
    static func create(modelPath: String?, runningMode: RunningMode,
                       liveStreamDelegate: HolisticLandmarkerLiveStreamDelegate?) throws -> HolisticLandmarker {
        let (minFaceDetectionConfidence, minFacePresenceConfidence): (Float, Float) = (0.5, 0.5)
        let (minPoseDetectionConfidence, minPosePresenceConfidence): (Float, Float) = (0.5, 0.5)
        let minHandLandmarksConfidence: Float = 0.5
        let holisticLandmarkerOptions = HolisticLandmarkerOptions()
        holisticLandmarkerOptions.runningMode = runningMode
        holisticLandmarkerOptions.minFaceDetectionConfidence = minFaceDetectionConfidence
        holisticLandmarkerOptions.minFacePresenceConfidence = minFacePresenceConfidence
        holisticLandmarkerOptions.minPoseDetectionConfidence = minPoseDetectionConfidence
        holisticLandmarkerOptions.minPosePresenceConfidence = minPosePresenceConfidence
        holisticLandmarkerOptions.minHandLandmarksConfidence = minHandLandmarksConfidence
        holisticLandmarkerOptions.baseOptions.modelAssetPath = modelPath
        holisticLandmarkerOptions.baseOptions.delegate = .CPU
        if runningMode == .liveStream {
          holisticLandmarkerOptions.holisticLandmarkerLiveStreamDelegate = liveStreamDelegate
        }
        return try HolisticLandmarker(options: holisticLandmarkerOptions)
    }
}

#if canImport(UIKit)
import CoreMedia
import UIKit

extension HolisticLandmarkerGuide {
    /// The sample app's HolisticLandmarkerService: a photo and each camera frame.
    final class HolisticLandmarkerService {
      var holisticLandmarker: HolisticLandmarker?
      init(holisticLandmarker: HolisticLandmarker?) { self.holisticLandmarker = holisticLandmarker }

      // The app first redraws a photo whose orientation is not `.up` (its UIImage.normalizedImage, UIKit drawing
      // the stand-ins do not declare); the photos here are `.up`.
      func detect(image: UIImage) -> ResultBundle? {
        guard let mpImage = try? MPImage(uiImage: image) else {
          return nil
        }
        do {
          let startDate = Date()
          let result = try holisticLandmarker?.detect(image: mpImage)
          let inferenceTime = Date().timeIntervalSince(startDate) * 1000
          return ResultBundle(inferenceTime: inferenceTime, holisticLandmarkerResults: [result])
        } catch {
          print(error)
          return nil
        }
      }

      func detectAsync(
        sampleBuffer: CMSampleBuffer,
        orientation: UIImage.Orientation,
        timeStamps: Int
      ) {
        guard let image = try? MPImage(sampleBuffer: sampleBuffer, orientation: orientation) else {
          return
        }
        do {
          try holisticLandmarker?.detectAsync(image: image, timestampInMilliseconds: timeStamps)
        } catch {
          print(error)
        }
      }
    }

    /// A result from the `HolisticLandmarkerService`.
    struct ResultBundle {
      let inferenceTime: Double
      let holisticLandmarkerResults: [HolisticLandmarkerResult?]
      var size: CGSize = .zero
    }
}
#endif
