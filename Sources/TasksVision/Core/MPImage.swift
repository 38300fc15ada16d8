/// A platform-neutral image, in the spirit of MediaPipe's `MPImage`: 8-bit pixels in
/// RGBA, BGRA, RGB or grayscale layout with an orientation. The pixels are copied
/// (value semantics) or borrowed from the caller for synchronous calls.
public struct MPImage: @unchecked Sendable {
    public enum PixelFormat: String, Sendable, Codable {
        case rgba8, bgra8, rgb8, gray8

        public var bytesPerPixel: Int {
            switch self {
            case .rgba8, .bgra8: return 4
            case .rgb8: return 3
            case .gray8: return 1
            }
        }

        /// Byte offsets of red, green and blue within a pixel.
        var rgbOffsets: (Int, Int, Int) {
            switch self {
            case .rgba8, .rgb8: return (0, 1, 2)
            case .bgra8: return (2, 1, 0)
            case .gray8: return (0, 0, 0)
            }
        }
    }

    enum Storage {
        case owned([UInt8])
        case borrowed(UnsafeRawBufferPointer)
    }

    /// Width of the stored pixels.
    public let pixelWidth: Int
    /// Height of the stored pixels.
    public let pixelHeight: Int
    public let pixelFormat: PixelFormat
    public let bytesPerRow: Int
    public let orientation: ImageOrientation
    let storage: Storage
    /// The Apple object the pixels were copied from (a `UIImage`, `CVPixelBuffer` or `CMSampleBuffer`), kept for
    /// MediaPipe's `image`, `pixelBuffer`, `sampleBuffer` and `imageSourceType` (MPImage+Apple.swift); nil elsewhere.
    let source: AnyObject?

    /// Width as displayed (after the orientation is applied), like `UIImage.size`.
    public var width: Int { orientation.swapsDimensions ? pixelHeight : pixelWidth }
    /// Height as displayed.
    public var height: Int { orientation.swapsDimensions ? pixelWidth : pixelHeight }

    /// Largest accepted image, in pixels (about 268 megapixels).
    public static let maximumPixelCount = 1 << 28
    /// Longest accepted side, in pixels.
    public static let maximumSide = 1 << 16

    static func validate(width: Int, height: Int, format: PixelFormat, bytesPerRow: Int, available: Int) throws {
        guard width > 0, height > 0 else {
            throw VisionTaskError.invalidImage("size \(width)x\(height) must be positive")
        }
        for (side, length) in [("width", width), ("height", height)] where length > maximumSide {
            throw VisionTaskError.invalidImage("size \(width)x\(height): the \(side) \(length) is longer than the "
                                               + "supported \(maximumSide) pixels a side")
        }
        guard width * height <= maximumPixelCount else {
            throw VisionTaskError.invalidImage(
                "size \(width)x\(height) is larger than the supported \(maximumPixelCount) pixels")
        }
        let rowBytes = width * format.bytesPerPixel
        guard bytesPerRow >= rowBytes else {
            throw VisionTaskError.invalidImage("bytesPerRow \(bytesPerRow) is smaller than width \(width) x "
                                               + "\(format.bytesPerPixel) bytes per \(format.rawValue) pixel = "
                                               + "\(rowBytes)")
        }
        let needed = bytesPerRow * (height - 1) + rowBytes
        guard available >= needed else {
            throw VisionTaskError.invalidImage("buffer of \(available) bytes is shorter than the \(needed) bytes a "
                                               + "\(width)x\(height) \(format.rawValue) image with bytesPerRow "
                                               + "\(bytesPerRow) needs")
        }
    }

    /// An image that owns a copy of `pixels`.
    public init(pixels: [UInt8], width: Int, height: Int, pixelFormat: PixelFormat, bytesPerRow: Int? = nil,
                orientation: ImageOrientation = .up) throws {
        let stride = bytesPerRow ?? width * pixelFormat.bytesPerPixel
        try Self.validate(width: width, height: height, format: pixelFormat, bytesPerRow: stride,
                          available: pixels.count)
        self.pixelWidth = width
        self.pixelHeight = height
        self.pixelFormat = pixelFormat
        self.bytesPerRow = stride
        self.orientation = orientation
        self.storage = .owned(pixels)
        self.source = nil
    }

    /// An image that reads the caller's memory without copying. The memory must stay
    /// valid and unchanged until the synchronous call that uses the image returns;
    /// asynchronous calls copy it first.
    public init(borrowing buffer: UnsafeRawBufferPointer, width: Int, height: Int, pixelFormat: PixelFormat,
                bytesPerRow: Int? = nil, orientation: ImageOrientation = .up) throws {
        let stride = bytesPerRow ?? width * pixelFormat.bytesPerPixel
        try Self.validate(width: width, height: height, format: pixelFormat, bytesPerRow: stride,
                          available: buffer.count)
        self.pixelWidth = width
        self.pixelHeight = height
        self.pixelFormat = pixelFormat
        self.bytesPerRow = stride
        self.orientation = orientation
        self.storage = .borrowed(buffer)
        self.source = nil
    }

    /// The same pixels with another orientation.
    public func withOrientation(_ orientation: ImageOrientation) -> MPImage {
        MPImage(pixelWidth: pixelWidth, pixelHeight: pixelHeight, pixelFormat: pixelFormat, bytesPerRow: bytesPerRow,
                orientation: orientation, storage: storage, source: source)
    }

    init(pixelWidth: Int, pixelHeight: Int, pixelFormat: PixelFormat, bytesPerRow: Int, orientation: ImageOrientation,
         storage: Storage, source: AnyObject? = nil) {
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.pixelFormat = pixelFormat
        self.bytesPerRow = bytesPerRow
        self.orientation = orientation
        self.storage = storage
        self.source = source
    }

    /// The same pixels, remembering the Apple object they came from.
    func withSource(_ source: AnyObject) -> MPImage {
        MPImage(pixelWidth: pixelWidth, pixelHeight: pixelHeight, pixelFormat: pixelFormat, bytesPerRow: bytesPerRow,
                orientation: orientation, storage: storage, source: source)
    }

    /// A copy that owns its pixels (for asynchronous processing).
    public func owned() -> MPImage {
        switch storage {
        case .owned: return self
        case .borrowed(let b):
            let needed = bytesPerRow * (pixelHeight - 1) + pixelWidth * pixelFormat.bytesPerPixel
            return MPImage(pixelWidth: pixelWidth, pixelHeight: pixelHeight, pixelFormat: pixelFormat,
                           bytesPerRow: bytesPerRow,
                           orientation: orientation, storage: .owned(Array(b[0..<needed])), source: source)
        }
    }

    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        switch storage {
        case .owned(let a): return try a.withUnsafeBytes(body)
        case .borrowed(let b): return try body(b)
        }
    }
}
