/// A single-channel float mask, the shape of MediaPipe iOS's `MPPMask` as a pose landmarker
/// returns it: `width` x `height` values, row-major from the top-left pixel, each in [0, 1]
/// (MediaPipe's `VEC32F1` image: 1 where the model sees the person, 0 for the background).
public struct MPMask: Sendable, Equatable {
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
}
