// ML Kit's VisionImage on Apple platforms (MLKitVision's MLKVisionImage.h): made from a UIImage or a camera's
// CMSampleBuffer. As in ML Kit the initializers do not throw and the orientation starts at `.up` (the guides then set
// `image.orientation`); an image that cannot be read gives its error from the first detection that uses it.

#if canImport(UIKit)
import UIKit

extension VisionImage {
    /// ML Kit's `VisionImage(image:)`: the pixels of the image's `CGImage`, with orientation `.up` (ML Kit ignores the
    /// image's `imageOrientation`; set `orientation` to it, as the guides do).
    public convenience init(image: UIImage) {
        self.init(reading: {
            guard let cgImage = image.cgImage else {
                throw VisionTaskError.invalidImage("the UIImage has no CGImage (ML Kit's VisionImage needs one)")
            }
            return try MPImage(cgImage: cgImage)
        })
    }
}
#endif

#if canImport(CoreMedia)
import CoreMedia

extension VisionImage {
    /// ML Kit's `VisionImage(buffer:)`: the pixels of a camera's sample buffer, with orientation `.up`. The buffer
    /// must be 32BGRA (`MPImage(sampleBuffer:)`); ML Kit also reads the camera's 420v and 420f, which this package
    /// does not (yet): set the `AVCaptureVideoDataOutput`'s `videoSettings` to `kCVPixelFormatType_32BGRA`.
    public convenience init(buffer sampleBuffer: CMSampleBuffer) {
        self.init(reading: { try MPImage(sampleBuffer: sampleBuffer) })
    }
}
#endif
