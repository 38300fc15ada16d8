// ML Kit's SegmentationMask.buffer on Apple platforms: the mask as a CVPixelBuffer of 32-bit floats, which the
// selfie segmentation guide reads with CVPixelBufferLockBaseAddress and CVPixelBufferGetBaseAddress.

#if canImport(CoreVideo)
import CoreVideo

extension SegmentationMask {
    /// ML Kit's `buffer`: the confidences in a `kCVPixelFormatType_OneComponent32Float` pixel buffer of the mask's
    /// size, made on first use; every call gives the same buffer. (A mask made by `init(width:height:confidences:)`
    /// with fewer confidences than its size gives 0 for the missing ones, a size below 1 counting as 1.)
    public var buffer: CVPixelBuffer {
        let box = bufferCache.value { PixelBufferSource(Self.makeBuffer(width, height, confidences)) }
        // The cache holds nothing else.
        return (box as? PixelBufferSource)?.pixelBuffer ?? Self.makeBuffer(width, height, confidences)
    }

    static func makeBuffer(_ width: Int, _ height: Int, _ confidences: [Float]) -> CVPixelBuffer {
        let (w, h) = (max(width, 1), max(height, 1))
        var made: CVPixelBuffer?
        let status = CVPixelBufferCreate(nil, w, h, kCVPixelFormatType_OneComponent32Float, nil, &made)
        // Creating a buffer of a positive size fails only when memory runs out, where an array would trap too.
        guard status == kCVReturnSuccess, let buffer = made else {
            preconditionFailure("CVPixelBufferCreate failed (\(status)) for a \(w)x\(h) mask")
        }
        CVPixelBufferLockBaseAddress(buffer, [])
        defer { CVPixelBufferUnlockBaseAddress(buffer, []) }
        guard let base = CVPixelBufferGetBaseAddress(buffer) else { return buffer }
        let stride = CVPixelBufferGetBytesPerRow(buffer)
        confidences.withUnsafeBufferPointer { values in
            for y in 0..<h {
                let row = (base + y * stride).bindMemory(to: Float.self, capacity: w)
                for x in 0..<w {
                    let i = y * width + x
                    row[x] = x < width && y < height && i < values.count ? values[i] : 0
                }
            }
        }
        return buffer
    }
}
#endif
