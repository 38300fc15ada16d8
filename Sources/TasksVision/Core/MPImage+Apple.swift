// Conveniences for Apple platforms: MPImage from CGImage, CVPixelBuffer and UIImage.
#if canImport(CoreGraphics)
import CoreGraphics

extension MPImage {
    /// Draws a `CGImage` into 8-bit RGBA pixels.
    public init(cgImage: CGImage, orientation: ImageOrientation = .up) throws {
        let width = cgImage.width, height = cgImage.height
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let drawn: Bool = pixels.withUnsafeMutableBytes { raw in
            guard let context = CGContext(data: raw.baseAddress, width: width, height: height, bitsPerComponent: 8,
                                          bytesPerRow: width * 4, space: CGColorSpaceCreateDeviceRGB(),
                                          bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue) else { return false }
            context.draw(cgImage, in: CGRect(x: 0, y: 0, width: width, height: height))
            return true
        }
        guard drawn else {
            throw VisionTaskError.invalidImage("could not draw the CGImage of \(width)x\(height) into RGBA")
        }
        try self.init(pixels: pixels, width: width, height: height, pixelFormat: .rgba8, orientation: orientation)
    }
}
#endif

#if canImport(CoreVideo)
import CoreVideo

extension MPImage {
    /// Copies a 32BGRA or 32RGBA `CVPixelBuffer` (the formats MediaPipe accepts).
    public init(pixelBuffer: CVPixelBuffer, orientation: ImageOrientation = .up) throws {
        let format: PixelFormat
        switch CVPixelBufferGetPixelFormatType(pixelBuffer) {
        case kCVPixelFormatType_32BGRA: format = .bgra8
        case kCVPixelFormatType_32RGBA: format = .rgba8
        default: throw VisionTaskError.invalidImage("pixel buffer format must be 32BGRA or 32RGBA")
        }
        CVPixelBufferLockBaseAddress(pixelBuffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(pixelBuffer, .readOnly) }
        guard let base = CVPixelBufferGetBaseAddress(pixelBuffer) else {
            throw VisionTaskError.invalidImage("pixel buffer has no base address")
        }
        let width = CVPixelBufferGetWidth(pixelBuffer), height = CVPixelBufferGetHeight(pixelBuffer)
        let stride = CVPixelBufferGetBytesPerRow(pixelBuffer)
        let bytes = Array(UnsafeRawBufferPointer(start: base, count: stride * height))
        try self.init(pixels: bytes, width: width, height: height, pixelFormat: format, bytesPerRow: stride,
                      orientation: orientation)
    }
}
#endif

#if canImport(UIKit)
import UIKit

extension ImageOrientation {
    /// The orientation a `UIImage` reports, as MediaPipe's `MPImage(uiImage:)` reads it.
    public init(_ o: UIImage.Orientation) {
        switch o {
        case .up: self = .up
        case .down: self = .down
        case .left: self = .left
        case .right: self = .right
        case .upMirrored: self = .upMirrored
        case .downMirrored: self = .downMirrored
        case .leftMirrored: self = .leftMirrored
        case .rightMirrored: self = .rightMirrored
        @unknown default: self = .up
        }
    }
}

extension MPImage {
    /// The pixels of a `UIImage` (its CGImage) with the image's orientation.
    public init(uiImage: UIImage) throws {
        guard let cg = uiImage.cgImage else { throw VisionTaskError.invalidImage("UIImage has no CGImage") }
        try self.init(cgImage: cg, orientation: ImageOrientation(uiImage.imageOrientation))
    }

    /// The pixels of a `UIImage` (its CGImage) with the orientation given instead of the image's.
    public init(uiImage: UIImage, orientation: UIImage.Orientation) throws {
        guard let cg = uiImage.cgImage else { throw VisionTaskError.invalidImage("UIImage has no CGImage") }
        try self.init(cgImage: cg, orientation: ImageOrientation(orientation))
    }
}
#endif
