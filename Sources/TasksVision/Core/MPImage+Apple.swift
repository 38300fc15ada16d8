// MediaPipe's MPImage on Apple platforms (mediapipe/tasks/ios/vision/core/sources/MPPImage.h): made from a UIImage,
// a CVPixelBuffer or a CMSampleBuffer, which it keeps and gives back, with a UIImage.Orientation where UIKit exists;
// and, beyond MediaPipe, from a CGImage. The pixels are read as MediaPipe's conversion reads them (MPPImage+Utils.mm):
// a CGImage drawn premultiplied into an RGBA bitmap, a 32BGRA buffer as it is, both unpremultiplied by vImage.
// Where MediaPipe refuses an input when a task runs, these initializers refuse it at once, with the same error code.

#if canImport(UIKit)
// As MediaPipe's MPPImage.h imports them, so the guides' `import MediaPipeTasksVision` becomes `import TasksVision`
// and nothing else: UIImage, CVPixelBuffer and CMSampleBuffer come with it.
@_exported import CoreMedia
@_exported import CoreVideo
@_exported import UIKit

/// Where UIKit exists, an image's orientation is UIKit's `UIImage.Orientation`, as in MediaPipe's `MPImage` and
/// ML Kit's `VisionImage`; elsewhere it is our own enum of the same eight cases (ImageOrientation.swift).
public typealias ImageOrientation = UIImage.Orientation

extension ImageOrientation {
    /// The eight orientations (`ImageOrientation.allCases` of the enum used where UIKit does not exist).
    static var allCases: [ImageOrientation] {
        [.up, .down, .left, .right, .upMirrored, .downMirrored, .leftMirrored, .rightMirrored]
    }
}

/// What an `MPImage` was made from (MediaPipe's `MPImageSourceType`, an extensible set of values as there).
public struct MPImageSourceType: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// A `UIImage` (`MPImage.image`).
    public static let image = MPImageSourceType(rawValue: 0)
    /// A `CVPixelBuffer` (`MPImage.pixelBuffer`).
    public static let pixelBuffer = MPImageSourceType(rawValue: 1)
    /// A `CMSampleBuffer` (`MPImage.sampleBuffer`).
    public static let sampleBuffer = MPImageSourceType(rawValue: 2)
    /// Beyond MediaPipe: pixels or a `CGImage`, which the image does not keep.
    public static let pixels = MPImageSourceType(rawValue: 3)
}

extension MPImage {
    /// MediaPipe's `MPImage(uiImage:)`: the pixels of the image's `CGImage`, displayed as its `imageOrientation` says.
    public init(uiImage: UIImage) throws {
        try self.init(uiImage: uiImage, orientation: uiImage.imageOrientation)
    }

    /// MediaPipe's `MPImage(uiImage:orientation:)`: the pixels of the image's `CGImage`, displayed as `orientation`
    /// says (the image's own `imageOrientation` is ignored).
    public init(uiImage: UIImage, orientation: ImageOrientation) throws {
        guard let cgImage = uiImage.cgImage else {
            throw VisionTaskError.invalidImage(
                "Image does not have a valid underlying CGImage. image.CGImage must be non nil.")
        }
        self = try MPImage(cgImage: cgImage, orientation: orientation).withSource(uiImage)
    }

    /// The `UIImage` the image was made from (MediaPipe's `image`); nil unless `imageSourceType` is `.image`.
    public var image: UIImage? { source as? UIImage }

    /// What the image was made from (MediaPipe's `imageSourceType`).
    public var imageSourceType: MPImageSourceType {
        if source is UIImage { return .image }
        if source is PixelBufferSource { return .pixelBuffer }
        if source is SampleBufferSource { return .sampleBuffer }
        return .pixels
    }
}
#endif

#if canImport(CoreGraphics)
import Accelerate
import CoreGraphics

extension MPImage {
    /// Draws a `CGImage` into 8-bit RGBA pixels as MediaPipe reads one (`MPPCGImageUtils`): premultiplied into an
    /// RGBA bitmap context, then unpremultiplied.
    public init(cgImage: CGImage, orientation: ImageOrientation = .up) throws {
        let width = cgImage.width, height = cgImage.height, rowBytes = cgImage.width * 4
        try Self.validate(width: width, height: height, format: .rgba8, bytesPerRow: rowBytes,
                          available: rowBytes * height)
        var pixels = [UInt8](repeating: 0, count: rowBytes * height)
        let drawn: Bool = pixels.withUnsafeMutableBytes { raw in
            let info = CGImageAlphaInfo.premultipliedLast.rawValue | CGBitmapInfo.byteOrder32Big.rawValue
            guard let context = CGContext(data: raw.baseAddress, width: width, height: height, bitsPerComponent: 8,
                                          bytesPerRow: rowBytes, space: CGColorSpaceCreateDeviceRGB(),
                                          bitmapInfo: info) else { return false }
            context.draw(cgImage, in: CGRect(x: 0, y: 0, width: width, height: height))
            return true
        }
        guard drawn else {
            throw VisionTaskError.invalidImage("could not draw the CGImage of \(width)x\(height) into RGBA")
        }
        try pixels.withUnsafeMutableBytes { raw in
            try Self.unpremultiply(from: raw.baseAddress, bytesPerRow: rowBytes, into: raw.baseAddress,
                                   width: width, height: height)
        }
        try self.init(pixels: pixels, width: width, height: height, pixelFormat: .rgba8, orientation: orientation)
    }

    /// vImage's unpremultiplication of 8-bit pixels with alpha last (RGBA or BGRA), into packed rows of
    /// `width * 4` bytes; `source` and `destination` may be the same memory.
    static func unpremultiply(from source: UnsafeMutableRawPointer?, bytesPerRow: Int,
                              into destination: UnsafeMutableRawPointer?, width: Int, height: Int) throws {
        let from = vImage_Buffer(data: source, height: vImagePixelCount(height), width: vImagePixelCount(width),
                                 rowBytes: bytesPerRow)
        let into = vImage_Buffer(data: destination, height: vImagePixelCount(height),
                                 width: vImagePixelCount(width), rowBytes: width * 4)
        let error = withUnsafePointer(to: from) { src in
            withUnsafePointer(to: into) { dst in
                vImageUnpremultiplyData_RGBA8888(src, dst, vImage_Flags(kvImageNoFlags))
            }
        }
        guard error == kvImageNoError else {
            throw VisionTaskError.invalidImage("vImage could not unpremultiply the \(width)x\(height) pixels "
                                               + "(vImage_Error \(error))")
        }
    }
}
#endif

#if canImport(CoreVideo)
import CoreVideo

/// A pixel buffer an image was made from (`MPImage` keeps its source as an object).
final class PixelBufferSource {
    let pixelBuffer: CVPixelBuffer
    init(_ pixelBuffer: CVPixelBuffer) { self.pixelBuffer = pixelBuffer }
}

extension MPImage {
    /// MediaPipe's `MPImage(pixelBuffer:)` and `MPImage(pixelBuffer:orientation:)`: copies a
    /// `kCVPixelFormatType_32BGRA` buffer (what MediaPipe's vision tasks read; `kCVPixelFormatType_32RGBA` too,
    /// beyond MediaPipe), unpremultiplied as MediaPipe does, and keeps the buffer (`pixelBuffer`).
    public init(pixelBuffer: CVPixelBuffer, orientation: ImageOrientation = .up) throws {
        self = try Self.copying(pixelBuffer, orientation: orientation).withSource(PixelBufferSource(pixelBuffer))
    }

    /// The `CVPixelBuffer` the image was made from (MediaPipe's `pixelBuffer`); nil otherwise.
    public var pixelBuffer: CVPixelBuffer? { (source as? PixelBufferSource)?.pixelBuffer }

    /// The pixels of a 32BGRA or 32RGBA pixel buffer, packed and unpremultiplied.
    static func copying(_ pixelBuffer: CVPixelBuffer, orientation: ImageOrientation) throws -> MPImage {
        let type = CVPixelBufferGetPixelFormatType(pixelBuffer)
        let format: PixelFormat
        switch type {
        case kCVPixelFormatType_32BGRA: format = .bgra8
        case kCVPixelFormatType_32RGBA: format = .rgba8
        default:
            throw VisionTaskError.invalidImage(
                "Unsupported pixel format \(fourCharacterCode(type)) for CVPixelBuffer. Expected "
                + "kCVPixelFormatType_32BGRA (or kCVPixelFormatType_32RGBA); a camera gives it when the "
                + "AVCaptureVideoDataOutput's videoSettings ask for it")
        }
        let width = CVPixelBufferGetWidth(pixelBuffer), height = CVPixelBufferGetHeight(pixelBuffer)
        guard CVPixelBufferLockBaseAddress(pixelBuffer, .readOnly) == kCVReturnSuccess else {
            throw VisionTaskError.invalidImage("could not lock the \(width)x\(height) CVPixelBuffer to read it")
        }
        defer { CVPixelBufferUnlockBaseAddress(pixelBuffer, .readOnly) }
        let stride = CVPixelBufferGetBytesPerRow(pixelBuffer)
        guard let base = CVPixelBufferGetBaseAddress(pixelBuffer) else {
            throw VisionTaskError.invalidImage("the \(width)x\(height) CVPixelBuffer has no base address")
        }
        try validate(width: width, height: height, format: format, bytesPerRow: stride, available: stride * height)
        var pixels = [UInt8](repeating: 0, count: width * 4 * height)
        try pixels.withUnsafeMutableBytes { raw in
            try unpremultiply(from: base, bytesPerRow: stride, into: raw.baseAddress, width: width, height: height)
        }
        return try MPImage(pixels: pixels, width: width, height: height, pixelFormat: format, orientation: orientation)
    }

    /// A pixel format's four characters ('BGRA', '420v'), or its number when they are not printable.
    static func fourCharacterCode(_ type: OSType) -> String {
        let bytes = [24, 16, 8, 0].map { UInt8((type >> UInt32($0)) & 0xff) }
        guard bytes.allSatisfy({ (0x20...0x7e).contains($0) }) else { return "0x" + String(type, radix: 16) }
        return "'" + String(decoding: bytes, as: UTF8.self) + "'"
    }
}
#endif

#if canImport(CoreMedia)
import CoreMedia

/// A sample buffer an image was made from.
final class SampleBufferSource {
    let sampleBuffer: CMSampleBuffer
    init(_ sampleBuffer: CMSampleBuffer) { self.sampleBuffer = sampleBuffer }
}

extension MPImage {
    /// MediaPipe's `MPImage(sampleBuffer:)` and `MPImage(sampleBuffer:orientation:)`: the pixels of the sample
    /// buffer's image buffer (a camera's frame from `AVCaptureVideoDataOutput`, 32BGRA as for
    /// `init(pixelBuffer:orientation:)`), keeping the sample buffer (`sampleBuffer`).
    public init(sampleBuffer: CMSampleBuffer, orientation: ImageOrientation = .up) throws {
        guard CMSampleBufferIsValid(sampleBuffer) else {
            throw VisionTaskError.invalidImage(
                "Sample buffer is not valid. Invoking CMSampleBufferIsValid(sampleBuffer) must return true.")
        }
        guard let imageBuffer = CMSampleBufferGetImageBuffer(sampleBuffer) else {
            throw VisionTaskError.invalidImage("the CMSampleBuffer holds no image buffer (CMSampleBufferGetImageBuffer "
                                               + "gave nil): it must hold uncompressed video, as a camera gives")
        }
        self = try Self.copying(imageBuffer, orientation: orientation).withSource(SampleBufferSource(sampleBuffer))
    }

    /// The `CMSampleBuffer` the image was made from (MediaPipe's `sampleBuffer`); nil otherwise.
    public var sampleBuffer: CMSampleBuffer? { (source as? SampleBufferSource)?.sampleBuffer }
}
#endif
