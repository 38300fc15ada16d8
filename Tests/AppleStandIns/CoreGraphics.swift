// Stand-in for Apple's CoreGraphics (tools/apple_standins.sh; docs/packaging.md): only the names TasksVision and the
// guides' samples use, with the Swift signatures Apple's SDK gives them. Never linked or run. CGFloat, CGPoint,
// CGSize and CGRect come from Foundation here, as Apple's Foundation re-exports them.
// Its C functions are @discardableResult, as Swift imports C functions.
@_exported import Foundation

private func standIn() -> Never { fatalError("Apple stand-in: for type-checking only") }

public final class CGImage {
    public var width: Int { standIn() }
    public var height: Int { standIn() }
}

public final class CGColorSpace {}

@discardableResult
public func CGColorSpaceCreateDeviceRGB() -> CGColorSpace { standIn() }

public enum CGImageAlphaInfo: UInt32, Sendable {
    case premultipliedLast = 1
}

public struct CGBitmapInfo: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let byteOrder32Big = CGBitmapInfo(rawValue: 4 << 12)
}

public final class CGContext {
    public init?(data: UnsafeMutableRawPointer?, width: Int, height: Int, bitsPerComponent: Int, bytesPerRow: Int,
                 space: CGColorSpace, bitmapInfo: UInt32) { standIn() }
    public func draw(_ image: CGImage, in rect: CGRect, byTiling: Bool = false) { standIn() }
}
