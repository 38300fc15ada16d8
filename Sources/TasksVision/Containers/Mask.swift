/// A single-channel float mask (MediaPipe iOS's `Mask`, `MPPMask`) as a pose landmarker
/// returns it: `width` x `height` values, row-major from the top-left pixel, each in [0, 1]
/// (MediaPipe's `VEC32F1` image: 1 where the model sees the person, 0 for the background).
public struct Mask: Sendable, Equatable {
    /// Columns of the mask.
    public let width: Int
    /// Rows of the mask.
    public let height: Int
    /// `width * height` values, row after row.
    public let float32Data: [Float]

    /// A mask of the given size, or nil when `float32Data` does not hold `width * height` values.
    public init?(width: Int, height: Int, float32Data: [Float]) {
        let size = width.multipliedReportingOverflow(by: height)
        guard width >= 0, height >= 0, !size.overflow, size.partialValue == float32Data.count else { return nil }
        self.width = width
        self.height = height
        self.float32Data = float32Data
    }

    /// For masks the library builds, whose size is known to match.
    init(checkedWidth width: Int, height: Int, values: [Float]) {
        self.width = width
        self.height = height
        self.float32Data = values
    }

    /// The value at column `x`, row `y`, or nil outside the mask.
    public func value(x: Int, y: Int) -> Float? {
        guard x >= 0, x < width, y >= 0, y < height else { return nil }
        return float32Data[y * width + x]
    }

    /// The mask of the stored pixels turned as the image is displayed (a permutation of the values).
    func displayed(_ o: ImageOrientation) -> Mask {
        guard o != .up else { return self }
        let (dw, dh) = o.swapsDimensions ? (height, width) : (width, height)
        var out = [Float](repeating: 0, count: dw * dh)
        for dy in 0..<dh {
            for dx in 0..<dw {
                // The displayed pixel's centre, in stored pixels.
                let p = o.storedPoint(fromDisplay: (x: (Float(dx) + 0.5) / Float(dw), y: (Float(dy) + 0.5) / Float(dh)))
                let sx = min(max(Int(p.x * Float(width)), 0), width - 1),
                    sy = min(max(Int(p.y * Float(height)), 0), height - 1)
                out[dy * dw + dx] = float32Data[sy * width + sx]
            }
        }
        return Mask(checkedWidth: dw, height: dh, values: out)
    }
}
