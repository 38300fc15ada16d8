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

    public init(width: Int, height: Int, channels: Int, pixels: [UInt8], exifOrientation: Int? = nil) {
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
        self.exifOrientation = exifOrientation
    }
}

/// Largest image we decode (pixels), so a hostile header cannot exhaust memory.
let maximumPixelCount = 1 << 28
