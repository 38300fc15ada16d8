// Stand-in for Apple's UIKit (tools/apple_standins.sh; docs/packaging.md): only the names TasksVision and the guides'
// samples use, with the Swift signatures Apple's SDK gives them. Never linked or run. Like Apple's, it re-exports
// Foundation and CoreGraphics; UIDevice is main-actor isolated as in Apple's SDK.
@_exported import CoreGraphics
@_exported import Foundation

private func standIn() -> Never { fatalError("Apple stand-in: for type-checking only") }

open class UIImage: NSObject {
    public enum Orientation: Int, Sendable {
        case up = 0, down, left, right, upMirrored, downMirrored, leftMirrored, rightMirrored
    }

    public override init() { standIn() }
    public init?(contentsOfFile path: String) { standIn() }
    public init(cgImage: CGImage) { standIn() }
    open var cgImage: CGImage? { standIn() }
    open var imageOrientation: UIImage.Orientation { standIn() }
}

public enum UIDeviceOrientation: Int, Sendable {
    case unknown = 0, portrait, portraitUpsideDown, landscapeLeft, landscapeRight, faceUp, faceDown
}

@MainActor
open class UIDevice: NSObject {
    open class var current: UIDevice { standIn() }
    open var orientation: UIDeviceOrientation { standIn() }
}
