/// Crops a rotated rectangle of an image into a model input, as MediaPipe's CPU
/// `ImageToTensorCalculator` does with OpenCV: `warpPerspective` with bilinear
/// sampling on 8-bit pixels (source positions rounded to 1/32 pixel, 15-bit
/// fixed-point weights, rounded to 8 bits), zero or replicated border, then a
/// linear map of [0, 255] to the model's input range.
public enum ImageToTensor {
    public enum BorderMode: Sendable { case zero, replicate }

    /// Linear map from [0, 255] to [min, max] (`GetValueRangeTransformation`).
    public struct ValueRange: Sendable, Equatable {
        public var min: Float, max: Float
        public init(min: Float, max: Float) { self.min = min; self.max = max }
        var scale: Float { (max - min) / 255 }
        var offset: Float { min }
    }

    /// Samples `roi` of the stored pixels into `width` x `height` 8-bit RGB.
    public static func warp(_ image: MPImage, roi: RotatedRect, flipHorizontally: Bool = false, width: Int, height: Int,
                            border: BorderMode) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height * 3)
        let src = PerspectiveTransform.boxPoints(roi)
        let w = Float(width), h = Float(height)
        let zero: Float = 0
        let dst: [(Float, Float)] = flipHorizontally
            ? [(w, h), (w, zero), (zero, zero), (zero, h)] : [(zero, h), (zero, zero), (w, zero), (w, h)]
        guard let forward = PerspectiveTransform.perspective(from: src, to: dst),
            let m = PerspectiveTransform.invert3x3(forward) else {
            return out
        }
        guard m.count == 9, image.pixelWidth > 0, image.pixelHeight > 0 else { return out }
        let (ro, go, bo) = image.pixelFormat.rgbOffsets
        image.withBytes { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            let source = PerspectiveWarp.Source(base: base, width: image.pixelWidth, height: image.pixelHeight,
                                                bytesPerRow: image.bytesPerRow,
                                                bytesPerPixel: image.pixelFormat.bytesPerPixel,
                                                channelOffsets: (ro, go, bo))
            out.withUnsafeMutableBufferPointer { o in
                guard let dst = o.baseAddress else { return }
                PerspectiveWarp.run(source, matrix: m, width: width, height: height, border: border, into: dst)
            }
        }
        return out
    }

    /// Writes 8-bit RGB into a float tensor: value * scale + offset.
    public static func convert(_ rgb: [UInt8], range: ValueRange, into tensor: UnsafeMutableBufferPointer<Float>) {
        let scale = range.scale, offset = range.offset
        for i in 0..<Swift.min(rgb.count, tensor.count) { tensor[i] = Float(rgb[i]) * scale + offset }
    }

    /// MediaPipe's `PadRoi`: grows the ROI to the tensor's aspect ratio and returns the
    /// letterbox padding (left, top, right, bottom) as fractions of the tensor.
    public static func padRoi(_ roi: inout RotatedRect, tensorWidth: Int,
                              tensorHeight: Int) -> (left: Float, top: Float, right: Float, bottom: Float) {
        let tensorAspect = Float(tensorHeight) / Float(tensorWidth)
        let roiAspect = roi.height / roi.width
        var vertical: Float = 0, horizontal: Float = 0
        if tensorAspect > roiAspect {
            roi.height = roi.width * tensorAspect
            vertical = (1 - roiAspect / tensorAspect) / 2
        } else {
            roi.width = roi.height / tensorAspect
            horizontal = (1 - tensorAspect / roiAspect) / 2
        }
        return (horizontal, vertical, horizontal, vertical)
    }

    /// MediaPipe's `GetRotatedSubRectToRectTransformMatrix`: maps normalized tensor
    /// coordinates to normalized image coordinates (row-major 4x4).
    public static func transformMatrix(_ r: RotatedRect, imageWidth: Int, imageHeight: Int,
                                       flipHorizontally: Bool) -> [Float] {
        let a = r.width, b = r.height
        let flip: Float = flipHorizontally ? -1 : 1
        let c = FloatMath.cos(r.rotation), d = FloatMath.sin(r.rotation)
        let e = r.centerX, f = r.centerY
        let g = 1 / Float(imageWidth), h = 1 / Float(imageHeight)
        return [
            a * c * flip * g, -b * d * g, 0, (-0.5 * a * c * flip + 0.5 * b * d + e) * g,
            a * d * flip * h, b * c * h, 0, (-0.5 * b * c - 0.5 * a * d * flip + f) * h,
            0, 0, a * g, 0,
            0, 0, 0, 1,
        ]
    }

    /// The region of the stored pixels a task processes for an oriented image: the whole
    /// image turned by the orientation (`ConvertToNormalizedRect` then `GetRoi`).
    public static func fullImageRoi(_ image: MPImage) -> RotatedRect {
        let degrees = image.orientation.rotationDegrees
        var nw: Float = 1, nh: Float = 1
        let rotation = Float(-Double(degrees) * Double.pi / 180)
        if degrees % 180 != 0 {
            nw = 1 * Float(image.pixelHeight) / Float(image.pixelWidth)
            nh = 1 * Float(image.pixelWidth) / Float(image.pixelHeight)
        }
        return RotatedRect(centerX: 0.5 * Float(image.pixelWidth), centerY: 0.5 * Float(image.pixelHeight),
                           width: nw * Float(image.pixelWidth), height: nh * Float(image.pixelHeight),
                           rotation: rotation)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
