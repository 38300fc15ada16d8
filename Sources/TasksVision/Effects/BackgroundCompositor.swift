/// Replaces the background of a frame using its person mask (a selfie segmenter's confidence mask): a blurred
/// copy of the frame, a colour, or an image behind the person, as in video calls.
///
/// Each pixel is `p * frame + (1 - p) * background`, `p` the mask's confidence at that pixel clamped to [0, 1]
/// (NaN counts as 0), computed per colour channel in `Float`, each product and sum rounded to float in that order,
/// then rounded half up to a byte (`UInt8(v + 0.5)`). An alpha channel keeps the frame's values. The output has
/// the frame's size, pixel format and orientation, its rows packed.
///
/// The mask covers the frame as displayed (`MPImage.width` x `MPImage.height`, after its orientation), row-major
/// from the top-left pixel, as the segmenters return it. The backgrounds:
///
/// - `.color(red:green:blue:)`: one colour (on a `gray8` frame its luma,
///   `(299 r + 587 g + 114 b + 500) / 1000`, truncated).
/// - `.image(_:)`: an image scaled to cover the displayed frame, keeping its aspect ratio, centred,
///   the excess cropped equally from both sides: with `s = max(W / w, H / h)` (frame `W` x `H`, image `w` x `h`,
///   both as displayed, in `Double`), output pixel `(x, y)` samples the image at
///   `((x + 0.5) / s + (w - W / s) / 2 - 0.5, (y + 0.5) / s + (h - H / s) / 2 - 0.5)`, bilinearly between the four
///   nearest pixels (coordinates clamped to the image's edge), rounded half up. An image of the frame's size is
///   used as it is. Converted to the frame's pixel format as a colour is.
/// - `.blur(radius:)`: the frame itself under a box blur: each channel the mean of the
///   `(2 r + 1) x (2 r + 1)` pixels around it, pixels beyond an edge repeating the edge pixel (clamp), the sum
///   rounded half up in integers, `(sum + n / 2) / n` with `n = (2 r + 1)^2`. Radius 0 leaves the frame as it is.
///
/// A compositor keeps the scaled image for the frame size it last saw, so a video's frames scale it once; use
/// one compositor per stream (it is not thread-safe).
public final class BackgroundCompositor {
    /// What goes behind the person.
    public enum Background {
        /// One colour.
        case color(red: UInt8, green: UInt8, blue: UInt8)
        /// An image, scaled to cover the frame (see `BackgroundCompositor`).
        case image(MPImage)
        /// The frame under a box blur of this radius in pixels, 0 to `maximumBlurRadius`.
        case blur(radius: Int)
    }

    /// The largest blur radius (the sums of a window stay within 32 bits).
    public static let maximumBlurRadius = 1000

    /// The background this compositor puts behind the person.
    public let background: Background
    /// The scaled image as the frame's stored pixels, for the frame geometry it was made for.
    private var cached: (key: FrameKey, pixels: [UInt8])?

    private struct FrameKey: Equatable {
        let width: Int, height: Int, format: MPImage.PixelFormat, orientation: ImageOrientation
    }

    /// A compositor, or `VisionTaskError.invalidOption` for a blur radius out of range.
    public init(background: Background) throws {
        if case .blur(let radius) = background, radius < 0 || radius > Self.maximumBlurRadius {
            throw VisionTaskError.invalidOption("background blur radius \(radius) must be 0 to "
                                                + "\(Self.maximumBlurRadius) pixels")
        }
        self.background = background
    }

    /// `frame` with its background replaced where `mask` says it is not the person; throws
    /// `VisionTaskError.invalidImage` when the mask's size is not the frame's displayed size.
    public func composite(_ frame: MPImage, mask: Mask) throws -> MPImage {
        guard mask.width == frame.width, mask.height == frame.height else {
            throw VisionTaskError.invalidImage("mask of \(mask.width)x\(mask.height) does not cover the frame of "
                                               + "\(frame.width)x\(frame.height) pixels (as displayed)")
        }
        let pixels = Frame(frame)
        let behind: [UInt8]
        switch background {
        case let .color(r, g, b):
            behind = pixels.filled(with: (r, g, b))
        case .image(let image):
            let key = FrameKey(width: frame.pixelWidth, height: frame.pixelHeight, format: frame.pixelFormat,
                               orientation: frame.orientation)
            if let cached, cached.key == key {
                behind = cached.pixels
            } else {
                behind = pixels.covering(with: image)
                cached = (key, behind)
            }
        case .blur(let radius):
            behind = BoxBlur.blurred(pixels.bytes, width: pixels.width, height: pixels.height,
                                     channels: pixels.format.bytesPerPixel, radius: radius)
        }
        let out = pixels.blended(with: behind, confidence: pixels.storedMask(mask))
        return MPImage(pixelWidth: pixels.width, pixelHeight: pixels.height, pixelFormat: frame.pixelFormat,
                       bytesPerRow: pixels.width * frame.pixelFormat.bytesPerPixel, orientation: frame.orientation,
                       storage: .owned(out))
    }
}

extension MPImage {
    /// This image with its background replaced where `mask` says it is not the person (`BackgroundCompositor`
    /// describes the arithmetic). For a video, make one `BackgroundCompositor` and call it per frame instead.
    public func replacingBackground(_ background: BackgroundCompositor.Background, mask: Mask) throws -> MPImage {
        try BackgroundCompositor(background: background).composite(self, mask: mask)
    }
}

/// A frame's stored pixels, packed (no row padding), and the geometry that maps them to the display.
struct Frame {
    let width: Int, height: Int
    let format: MPImage.PixelFormat
    let orientation: ImageOrientation
    /// `width * height * format.bytesPerPixel` bytes, row after row.
    let bytes: [UInt8]

    init(_ image: MPImage) {
        width = image.pixelWidth
        height = image.pixelHeight
        format = image.pixelFormat
        orientation = image.orientation
        let rowBytes = image.pixelWidth * image.pixelFormat.bytesPerPixel
        if image.bytesPerRow == rowBytes {
            bytes = image.withBytes { Array($0[0..<(rowBytes * image.pixelHeight)]) }
        } else {
            var packed = [UInt8](repeating: 0, count: rowBytes * image.pixelHeight)
            image.withBytes { source in
                for y in 0..<image.pixelHeight {
                    for i in 0..<rowBytes { packed[y * rowBytes + i] = source[y * image.bytesPerRow + i] }
                }
            }
            bytes = packed
        }
    }

    /// Width and height as displayed.
    var displayed: (width: Int, height: Int) { orientation.swapsDimensions ? (height, width) : (width, height) }

    /// The displayed position of stored pixel (`x`, `y`): the orientation's rotation, then its mirroring.
    func displayedPosition(x: Int, y: Int) -> (x: Int, y: Int) {
        var (dx, dy) = (x, y)
        switch orientation.rotationDegrees {
        case 90: (dx, dy) = (height - 1 - y, x)
        case 180: (dx, dy) = (width - 1 - x, height - 1 - y)
        case 270: (dx, dy) = (y, width - 1 - x)
        default: break
        }
        if orientation.isMirrored { dx = displayed.width - 1 - dx }
        return (dx, dy)
    }

    /// The mask's confidences at each stored pixel, clamped to [0, 1] (NaN to 0).
    func storedMask(_ mask: Mask) -> [Float] {
        var out = [Float](repeating: 0, count: width * height)
        let values = mask.float32Data, dw = displayed.width
        for y in 0..<height {
            for x in 0..<width {
                let d = orientation == .up ? (x: x, y: y) : displayedPosition(x: x, y: y)
                let m = values[d.y * dw + d.x]
                out[y * width + x] = m > 0 ? (m < 1 ? m : 1) : 0
            }
        }
        return out
    }

    /// BT.601 luma of a colour, `(299 r + 587 g + 114 b + 500) / 1000`.
    static func luma(_ c: (UInt8, UInt8, UInt8)) -> UInt8 {
        let r = 299 * Int(c.0), g = 587 * Int(c.1), b = 114 * Int(c.2)
        return UInt8((r + g + b + 500) / 1000)
    }

    /// One pixel of a colour in this format (gray: its luma).
    func pixel(_ c: (UInt8, UInt8, UInt8)) -> [UInt8] {
        switch format {
        case .gray8: return [Self.luma(c)]
        case .rgb8: return [c.0, c.1, c.2]
        case .rgba8: return [c.0, c.1, c.2, 255]
        case .bgra8: return [c.2, c.1, c.0, 255]
        }
    }

    /// Every pixel this colour.
    func filled(with c: (UInt8, UInt8, UInt8)) -> [UInt8] {
        let p = pixel(c)
        var out = [UInt8](repeating: 0, count: bytes.count)
        for i in 0..<(width * height) { for k in 0..<p.count { out[i * p.count + k] = p[k] } }
        return out
    }

    /// `image` scaled to cover the displayed frame (see `BackgroundCompositor`), as this frame's stored pixels.
    func covering(with image: MPImage) -> [UInt8] {
        // The image as displayed, RGB.
        let source = Frame(image)
        let (w, h) = source.displayed
        var rgb = [Float](repeating: 0, count: w * h * 3)
        let (r, g, b) = source.format.rgbOffsets, bpp = source.format.bytesPerPixel
        for y in 0..<source.height {
            for x in 0..<source.width {
                let d = source.displayedPosition(x: x, y: y)
                let at = (d.y * w + d.x) * 3, from = (y * source.width + x) * bpp
                rgb[at] = Float(source.bytes[from + r])
                rgb[at + 1] = Float(source.bytes[from + g])
                rgb[at + 2] = Float(source.bytes[from + b])
            }
        }
        let (fw, fh) = displayed
        let s = max(Double(fw) / Double(w), Double(fh) / Double(h))
        let left = (Double(w) - Double(fw) / s) / 2, top = (Double(h) - Double(fh) / s) / 2
        // Source columns and rows with their weights, per displayed output column and row.
        func taps(_ count: Int, _ size: Int, _ offset: Double) -> [(Int, Int, Float)] {
            (0..<count).map { i in
                let v = (Double(i) + 0.5) / s + offset - 0.5, f = v.rounded(.down)
                let i0 = Int(f), t = Float(v - f)
                return (min(max(i0, 0), size - 1), min(max(i0 + 1, 0), size - 1), t)
            }
        }
        let xs = taps(fw, w, left), ys = taps(fh, h, top)
        let bppOut = format.bytesPerPixel
        var out = [UInt8](repeating: 255, count: width * height * bppOut)
        for y in 0..<height {
            for x in 0..<width {
                let d = displayedPosition(x: x, y: y)
                let (x0, x1, tx) = xs[d.x], (y0, y1, ty) = ys[d.y]
                var c: [UInt8] = [0, 0, 0]
                for k in 0..<3 {
                    let top = (1 - tx) * rgb[(y0 * w + x0) * 3 + k] + tx * rgb[(y0 * w + x1) * 3 + k]
                    let bottom = (1 - tx) * rgb[(y1 * w + x0) * 3 + k] + tx * rgb[(y1 * w + x1) * 3 + k]
                    c[k] = UInt8(min((1 - ty) * top + ty * bottom + 0.5, 255))
                }
                let p = pixel((c[0], c[1], c[2])), at = (y * width + x) * bppOut
                for k in 0..<bppOut { out[at + k] = p[k] }
            }
        }
        return out
    }

    /// `p * frame + (1 - p) * background` per colour channel, rounded half up; alpha from the frame.
    func blended(with background: [UInt8], confidence: [Float]) -> [UInt8] {
        let bpp = format.bytesPerPixel, colours = format == .gray8 ? 1 : 3
        var out = bytes
        out.withUnsafeMutableBufferPointer { o in
            bytes.withUnsafeBufferPointer { f in
                background.withUnsafeBufferPointer { b in
                    for i in 0..<(width * height) {
                        let p = confidence[i], q = 1 - p
                        for k in 0..<colours {
                            let at = i * bpp + k
                            o[at] = UInt8(p * Float(f[at]) + q * Float(b[at]) + 0.5)
                        }
                    }
                }
            }
        }
        return out
    }
}
