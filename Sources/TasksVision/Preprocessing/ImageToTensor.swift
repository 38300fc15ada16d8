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

    /// OpenCV's `INTER_BITS`: source positions are rounded to 1/32 pixel.
    static let interBits = 5
    static let interTabSize = 1 << interBits

    /// Samples `roi` of the stored pixels into `width` x `height` 8-bit RGB.
    public static func warp(_ image: MPImage, roi: RotatedRect, flipHorizontally: Bool = false, width: Int, height: Int,
                            border: BorderMode) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height * 3)
        let src = PerspectiveTransform.boxPoints(roi)
        let w = Float(width), h = Float(height)
        let zero: Float = 0
        let dst: [(Float, Float)] = flipHorizontally ? [(w, h), (w, zero), (zero, zero), (zero, h)] : [(zero, h), (zero, zero), (w, zero), (w, h)]
        guard let forward = PerspectiveTransform.perspective(from: src, to: dst), let m = PerspectiveTransform.invert3x3(forward) else {
            return out
        }
        guard m.count == 9 else { return out }
        // The matrix in locals: read from the array, each pixel paid a bounds check per element.
        let m0 = m[0], m1 = m[1], m2 = m[2], m3 = m[3], m4 = m[4], m5 = m[5]
        let m6 = m[6], m7 = m[7], m8 = m[8]
        let sw = image.pixelWidth, sh = image.pixelHeight, stride = image.bytesPerRow, bpp = image.pixelFormat.bytesPerPixel
        let (ro, go, bo) = image.pixelFormat.rgbOffsets
        // OpenCV's warpPerspective works in blocks; a row's coordinates restart at each block's x.
        let blockH = Swift.min(16, height)
        let blockW = Swift.min(1024 / Swift.max(blockH, 1), width)
        let tab = interTabSize
        image.withBytes { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            out.withUnsafeMutableBufferPointer { o in
                for y in 0..<height {
                    var xb = 0
                    while xb < width {
                        let bw = Swift.min(blockW, width - xb)
                        let x0 = m0 * Double(xb) + m1 * Double(y) + m2
                        let y0 = m3 * Double(xb) + m4 * Double(y) + m5
                        let w0 = m6 * Double(xb) + m7 * Double(y) + m8
                        for x1 in 0..<bw {
                            var ww = w0 + m6 * Double(x1)
                            ww = ww != 0 ? Double(tab) / ww : 0
                            let fx = Swift.max(Double(Int32.min), Swift.min(Double(Int32.max), (x0 + m0 * Double(x1)) * ww))
                            let fy = Swift.max(Double(Int32.min), Swift.min(Double(Int32.max), (y0 + m3 * Double(x1)) * ww))
                            // Round half to even by the 1.5 * 2^52 trick (|f| < 2^31): baseline x86-64
                            // has no rounding instruction, and `rounded` calls rint twice a pixel.
                            let X = Int((fx + 0x1.8p52) - 0x1.8p52), Y = Int((fy + 0x1.8p52) - 0x1.8p52)
                            let sx = X >> interBits, sy = Y >> interBits
                            let ax = X & (tab - 1), ay = Y & (tab - 1)
                            // Weights of the 2x2 neighbourhood, summing to 2^15.
                            let w00 = (tab - ax) * (tab - ay) * 32, w01 = ax * (tab - ay) * 32
                            let w10 = (tab - ax) * ay * 32, w11 = ax * ay * 32
                            let d = ((y * width) + xb + x1) * 3
                            if sx >= 0 && sx < sw - 1 && sy >= 0 && sy < sh - 1 {
                                // Inside: the three channels written out (no per-pixel array of offsets).
                                let p0 = base + (sy &* stride &+ sx &* bpp), p1 = p0 + stride
                                @inline(__always) func blend(_ off: Int) -> UInt8 {
                                    let v = Int(p0[off]) &* w00 &+ Int(p0[off &+ bpp]) &* w01 &+ Int(p1[off]) &* w10 &+ Int(p1[off &+ bpp]) &* w11
                                    return UInt8(clamping: (v &+ (1 << 14)) >> 15)
                                }
                                o[d] = blend(ro); o[d + 1] = blend(go); o[d + 2] = blend(bo)
                                continue
                            }
                            if border == .zero && (sx >= sw || sx + 1 < 0 || sy >= sh || sy + 1 < 0) {
                                o[d] = 0; o[d + 1] = 0; o[d + 2] = 0
                                continue
                            }
                            // A neighbour outside the image: replicated from the nearest edge pixel, or
                            // zero (-1). No arrays here: border pixels were an allocation each.
                            let replicate = border == .replicate
                            @inline(__always) func edge(_ v: Int, _ n: Int) -> Int {
                                replicate ? (v >= 0 ? (v < n ? v : n - 1) : 0) : (v >= 0 && v < n ? v : -1)
                            }
                            let xa = edge(sx, sw), xb1 = edge(sx + 1, sw), ya = edge(sy, sh), yb = edge(sy + 1, sh)
                            // Each neighbour's byte offset, or -1 for a zero one.
                            @inline(__always) func at(_ yy: Int, _ xx: Int) -> Int {
                                yy >= 0 && xx >= 0 ? yy * stride + xx * bpp : -1
                            }
                            let q00 = at(ya, xa), q01 = at(ya, xb1), q10 = at(yb, xa), q11 = at(yb, xb1)
                            @inline(__always) func blend(_ off: Int) -> UInt8 {
                                @inline(__always) func px(_ q: Int) -> Int { q >= 0 ? Int(base[q + off]) : 0 }
                                let v = px(q00) * w00 + px(q01) * w01 + px(q10) * w10 + px(q11) * w11
                                return UInt8(clamping: (v + (1 << 14)) >> 15)
                            }
                            o[d] = blend(ro); o[d + 1] = blend(go); o[d + 2] = blend(bo)
                        }
                        xb += bw
                    }
                }
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
    public static func padRoi(_ roi: inout RotatedRect, tensorWidth: Int, tensorHeight: Int) -> (left: Float, top: Float, right: Float, bottom: Float) {
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
    public static func transformMatrix(_ r: RotatedRect, imageWidth: Int, imageHeight: Int, flipHorizontally: Bool) -> [Float] {
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
                           width: nw * Float(image.pixelWidth), height: nh * Float(image.pixelHeight), rotation: rotation)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
