#if !canImport(UIKit)
/// How stored pixels must be turned to be displayed upright: the eight cases of
/// `UIImage.Orientation` (EXIF orientations 1-8), mirrored ones included. Where UIKit exists,
/// `ImageOrientation` is `UIImage.Orientation` itself (MPImage+Apple.swift), as MediaPipe's
/// `MPImage` and ML Kit's `VisionImage` take it there; the members below are the same on both.
public enum ImageOrientation: String, Sendable, CaseIterable, Codable {
    case up, down, left, right, upMirrored, downMirrored, leftMirrored, rightMirrored
}
#endif

/// The orientations in EXIF order (1-8).
private let exifOrder: [ImageOrientation] = [.up, .upMirrored, .down, .downMirrored, .leftMirrored, .right,
                                             .rightMirrored, .left]

// Written without exhaustive switches: `UIImage.Orientation` is an Objective-C enum that may gain cases.
extension ImageOrientation {
    /// The EXIF orientation number (1-8).
    public var exifValue: Int { (exifOrder.firstIndex(of: self) ?? 0) + 1 }

    public init?(exifValue: Int) {
        guard (1...8).contains(exifValue) else { return nil }
        self = exifOrder[exifValue - 1]
    }

    /// Clockwise rotation, in degrees, that turns the stored pixels upright; a mirrored
    /// orientation then flips the rotated image horizontally. `.right` is 90 (MediaPipe's
    /// `rotation_degrees` 90); `.leftMirrored` (EXIF 5, a transpose) is 90 then a flip.
    public var rotationDegrees: Int {
        switch self {
        case .right, .leftMirrored: return 90
        case .down, .downMirrored: return 180
        case .left, .rightMirrored: return 270
        default: return 0
        }
    }

    public var isMirrored: Bool {
        switch self {
        case .upMirrored, .downMirrored, .leftMirrored, .rightMirrored: return true
        default: return false
        }
    }

    /// Whether the displayed image has width and height swapped relative to the stored pixels.
    public var swapsDimensions: Bool { rotationDegrees % 180 != 0 }

    /// Maps a normalized point of the stored pixels to the displayed image.
    public func displayPoint(fromStored p: (x: Float, y: Float)) -> (x: Float, y: Float) {
        var (x, y) = p
        switch rotationDegrees {
        case 90: (x, y) = (1 - y, x)
        case 180: (x, y) = (1 - x, 1 - y)
        case 270: (x, y) = (y, 1 - x)
        default: break
        }
        if isMirrored { x = 1 - x }
        return (x, y)
    }

    /// Maps a normalized point of the displayed image to the stored pixels.
    public func storedPoint(fromDisplay p: (x: Float, y: Float)) -> (x: Float, y: Float) {
        var (x, y) = p
        if isMirrored { x = 1 - x }
        switch rotationDegrees {
        case 90: (x, y) = (y, 1 - x)
        case 180: (x, y) = (1 - x, 1 - y)
        case 270: (x, y) = (1 - y, x)
        default: break
        }
        return (x, y)
    }
}
