/// Errors from decoding or encoding image files; each names the file and the problem.
public enum ImageIOError: Error, Equatable, CustomStringConvertible {
    case unreadable(file: String, reason: String)
    case malformed(file: String, reason: String)
    case unsupported(file: String, reason: String)

    public var description: String {
        switch self {
        case let .unreadable(file, reason): return "\(file): cannot read image: \(reason)"
        case let .malformed(file, reason): return "\(file): malformed image: \(reason)"
        case let .unsupported(file, reason): return "\(file): unsupported image: \(reason)"
        }
    }
}

/// Decoded 8-bit pixels, rows tightly packed, `channels` per pixel (1 gray, 3 RGB, 4 RGBA).
public struct DecodedImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var channels: Int
    public var pixels: [UInt8]
    /// EXIF orientation (1-8) when the file carries one, else nil.
    public var exifOrientation: Int?
    /// What a decoder that went on says was wrong with the file (a JPEG cut short), one line each naming the file.
    public var warnings: [String] = []

    public init(width: Int, height: Int, channels: Int, pixels: [UInt8], exifOrientation: Int? = nil) {
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
        self.exifOrientation = exifOrientation
    }
}

extension DecodedImage {
    /// The pixels turned and mirrored as the EXIF orientation says they are displayed
    /// (orientation 1 afterwards), as MediaPipe's image loader does on decoding a file
    /// (`MpImageCreateFromFile`), so that results are reported in the displayed image.
    /// Returns the image unchanged when it has no orientation or orientation 1.
    public func applyingExifOrientation() -> DecodedImage {
        guard let o = exifOrientation, (2...8).contains(o) else { return self }
        let w = width, h = height, c = channels
        let transposed = o >= 5
        let outW = transposed ? h : w, outH = transposed ? w : h
        var out = [UInt8](repeating: 0, count: outW * outH * c)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<outH {
                    for x in 0..<outW {
                        // The stored pixel shown at (x, y).
                        let (sx, sy): (Int, Int)
                        switch o {
                        case 2: (sx, sy) = (w - 1 - x, y)
                        case 3: (sx, sy) = (w - 1 - x, h - 1 - y)
                        case 4: (sx, sy) = (x, h - 1 - y)
                        case 5: (sx, sy) = (y, x)
                        case 6: (sx, sy) = (y, h - 1 - x)
                        case 7: (sx, sy) = (w - 1 - y, h - 1 - x)
                        default: (sx, sy) = (w - 1 - y, x)
                        }
                        let d = (y * outW + x) * c, s = (sy * w + sx) * c
                        for k in 0..<c { dst[d + k] = src[s + k] }
                    }
                }
            }
        }
        var turned = DecodedImage(width: outW, height: outH, channels: c, pixels: out, exifOrientation: 1)
        turned.warnings = warnings
        return turned
    }
}

/// Largest image we decode (pixels), so a hostile header cannot exhaust memory.
let maximumPixelCount = 1 << 28
