import Foundation

/// MediaPipe's `ImagePreprocessingGraph` on the CPU (mediapipe/tasks/cc/components/processors/
/// image_preprocessing_graph.cc) as the image classifier and embedder use it: the region to process
/// (`ConvertToNormalizedRect` of the image's rotation and region of interest, then `GetRoi`) stretched into the
/// model's input by `ImageToTensorCalculator` (no letterbox, replicated border), the pixels as they are for a
/// uint8 input, mapped to the metadata's range for a float one.
///
/// A region of interest is normalized to the displayed image here (the library's convention); MediaPipe's is
/// normalized to the stored pixels. For an upright image the two are the same rectangle.
enum ImagePreprocessing {
    /// The rotated rect of stored pixels the model sees for `region` (the whole image when nil) of `image`.
    static func roi(_ image: MPImage, region: CGRect?) -> RotatedRect {
        let degrees = image.orientation.rotationDegrees
        // The region in the stored pixels' normalized coordinates: (x_center, y_center, width, height).
        var cx: Float = 0.5, cy: Float = 0.5, w: Float = 1, h: Float = 1
        if let r = region?.standardized {
            let o = image.orientation
            let a = o.storedPoint(fromDisplay: (x: Float(r.minX), y: Float(r.minY)))
            let b = o.storedPoint(fromDisplay: (x: Float(r.maxX), y: Float(r.maxY)))
            let left = min(a.x, b.x), right = max(a.x, b.x), top = min(a.y, b.y), bottom = max(a.y, b.y)
            // (left + right) / 2.0 in double, stored as float, as ConvertToNormalizedRect writes it.
            cx = Float((Double(left) + Double(right)) / 2)
            cy = Float((Double(top) + Double(bottom)) / 2)
            w = right - left
            h = bottom - top
        }
        let imageWidth = Float(image.pixelWidth), imageHeight = Float(image.pixelHeight)
        if degrees % 180 != 0 {
            // ImageToTensor scales the rect by the image's size, then turns it: width and height swap.
            (w, h) = (h * imageHeight / imageWidth, w * imageWidth / imageHeight)
        }
        let rotation = Float(-Double(degrees) * Double.pi / 180)
        return RotatedRect(centerX: cx * imageWidth, centerY: cy * imageHeight, width: w * imageWidth,
                           height: h * imageHeight, rotation: rotation)
    }

    /// The model's input pixels (8-bit RGB, `width` x `height`) for `region` of `image`; mirrored images are
    /// flipped back (MediaPipe refuses them).
    static func pixels(_ image: MPImage, region: CGRect?, width: Int, height: Int) -> [UInt8] {
        ImageToTensor.warp(image, roi: roi(image, region: region), flipHorizontally: image.orientation.isMirrored,
                           width: width, height: height, border: .replicate)
    }

    /// Checks a region of interest as `ConvertToNormalizedRect` does, with MediaPipe's texts.
    static func check(_ region: CGRect?) throws {
        guard let r = region else { return }
        guard r.minX < r.maxX, r.minY < r.maxY, r.width > 0, r.height > 0 else {
            throw VisionTaskError.invalidOption(MediaPipeErrorText.roiOrder + " (regionOfInterest \(r))")
        }
        guard r.minX >= 0, r.minY >= 0, r.maxX <= 1, r.maxY <= 1 else {
            throw VisionTaskError.invalidOption(MediaPipeErrorText.roiRange + " (regionOfInterest \(r))")
        }
    }
}
