// ML Kit's selfie segmentation guide for iOS (developers.google.com/ml-kit/vision/selfie-segmentation/ios), its
// Swift samples as the guide writes them (quoted from the page's public copies; only its first section is readable
// here), and the mask reading of ML Kit's quickstart (googlesamples/mlkit, ios/quickstarts/vision/VisionExample/
// UIUtilities.swift, which the guide's own reading loop matches). Only the import differs; free variables are
// parameters, each sample returns what it made. Preparing the image is MLKitPoseDetectionGuide's.
import Foundation
import TasksVision

enum MLKitSelfieSegmentationGuide {
    // 1. Create an instance of Segmenter.
    static func create() -> Segmenter {
        let options = SelfieSegmenterOptions()
        options.segmenterMode = .singleImage
        options.shouldEnableRawSizeMask = true

        let segmenter = Segmenter.segmenter(options: options)
        return segmenter
    }

    // 3. Process the image: asynchronously.
    static func processAsynchronously(segmenter: Segmenter, image: VisionImage,
                                      success: @escaping (SegmentationMask?) -> Void) {
        segmenter.process(image) { mask, error in
          guard error == nil else {
            // Error.
            return
          }
          // Success. Get a segmentation mask here.
          success(mask)
        }
    }

    // 3. Process the image: synchronously.
    static func processSynchronously(segmenter: Segmenter, image: VisionImage) -> SegmentationMask? {
        let mask: SegmentationMask
        do {
          mask = try segmenter.results(in: image)
        } catch let error {
          print("Failed to perform segmentation with error: \(error.localizedDescription).")
          return nil
        }

        // Success. Get a segmentation mask here.
        return mask
    }
}

#if canImport(CoreVideo)
import CoreVideo

extension MLKitSelfieSegmentationGuide {
    // 4. Get the segmentation result: each pixel's confidence from the mask's pixel buffer.
    static func foregroundConfidences(mask: SegmentationMask) -> [Float32] {
        var confidences: [Float32] = []
        let maskWidth = CVPixelBufferGetWidth(mask.buffer)
        let maskHeight = CVPixelBufferGetHeight(mask.buffer)

        CVPixelBufferLockBaseAddress(mask.buffer, CVPixelBufferLockFlags.readOnly)
        let maskBytesPerRow = CVPixelBufferGetBytesPerRow(mask.buffer)
        var maskAddress =
            CVPixelBufferGetBaseAddress(mask.buffer)!.bindMemory(
                to: Float32.self, capacity: maskBytesPerRow * maskHeight)

        for _ in 0...(maskHeight - 1) {
          for col in 0...(maskWidth - 1) {
            // Gets the confidence of the pixel in the mask being in the foreground.
            let foregroundConfidence: Float32 = maskAddress[col]
            confidences.append(foregroundConfidence)
          }
          maskAddress += maskBytesPerRow / MemoryLayout<Float32>.size
        }
        CVPixelBufferUnlockBaseAddress(mask.buffer, CVPixelBufferLockFlags.readOnly)
        return confidences
    }
}
#endif
