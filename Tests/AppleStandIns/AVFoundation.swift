// Stand-in for Apple's AVFoundation (tools/apple_standins.sh; docs/packaging.md): only the names the guides' samples
// use, with the Swift signatures Apple's SDK gives them. Never linked or run. Like Apple's, it re-exports CoreMedia.
@_exported import CoreMedia

open class AVCaptureDevice: NSObject {
    public enum Position: Int, Sendable {
        case unspecified = 0, back, front
    }
}
