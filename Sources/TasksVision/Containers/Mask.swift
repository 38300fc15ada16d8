/// The type a `Mask` stores its values in (MediaPipe iOS's `MaskDataType`).
public enum MaskDataType: Sendable, Equatable {
    /// One byte per pixel: a category mask (the category's index, or 255 for none).
    case uInt8
    /// One float per pixel: a confidence mask, each value in [0, 1].
    case float32
}

/// A single-channel mask (MediaPipe iOS's `Mask`, `MPPMask`): `width` x `height` values, row-major
/// from the top-left pixel. A pose landmarker's segmentation masks and an image segmenter's
/// confidence masks hold floats in [0, 1] (MediaPipe's `VEC32F1` image: 1 where the model sees the
/// person or category); a category mask holds bytes (MediaPipe's `GRAY8` image).
///
/// As in MediaPipe, either kind reads as the other: `float32Data` of a byte mask is each value / 255,
/// `uint8Data` of a float mask each value * 255, truncated.
public struct Mask: Sendable, Equatable {
    /// Columns of the mask.
    public let width: Int
    /// Rows of the mask.
    public let height: Int
    /// What the mask stores.
    public let dataType: MaskDataType
    private let floats: [Float]
    private let bytes: [UInt8]

    /// A float mask of the given size, or nil when `float32Data` does not hold `width * height` values.
    public init?(width: Int, height: Int, float32Data: [Float]) {
        guard Self.fits(width, height, float32Data.count) else { return nil }
        self.init(checkedWidth: width, height: height, values: float32Data)
    }

    /// A byte mask of the given size, or nil when `uint8Data` does not hold `width * height` values.
    public init?(width: Int, height: Int, uint8Data: [UInt8]) {
        guard Self.fits(width, height, uint8Data.count) else { return nil }
        self.init(checkedWidth: width, height: height, bytes: uint8Data)
    }

    private static func fits(_ width: Int, _ height: Int, _ count: Int) -> Bool {
        let size = width.multipliedReportingOverflow(by: height)
        return width >= 0 && height >= 0 && !size.overflow && size.partialValue == count
    }

    /// For float masks the library builds, whose size is known to match.
    init(checkedWidth width: Int, height: Int, values: [Float]) {
        self.width = width
        self.height = height
        dataType = .float32
        floats = values
        bytes = []
    }

    /// For byte masks the library builds, whose size is known to match.
    init(checkedWidth width: Int, height: Int, bytes: [UInt8]) {
        self.width = width
        self.height = height
        dataType = .uInt8
        floats = []
        self.bytes = bytes
    }

    /// `width * height` floats, row after row (a byte mask's values / 255).
    public var float32Data: [Float] {
        dataType == .float32 ? floats : bytes.map { Float($0) / 255 }
    }

    /// `width * height` bytes, row after row (a float mask's values * 255, truncated as MediaPipe's
    /// conversion truncates; values outside [0, 1] clamped).
    public var uint8Data: [UInt8] {
        guard dataType == .float32 else { return bytes }
        return floats.map { v in
            let s = v * 255
            return s >= 255 ? 255 : (s > 0 ? UInt8(s) : 0)
        }
    }

    /// The value at column `x`, row `y` as a float (a byte as value / 255), or nil outside the mask.
    public func value(x: Int, y: Int) -> Float? {
        guard x >= 0, x < width, y >= 0, y < height else { return nil }
        return dataType == .float32 ? floats[y * width + x] : Float(bytes[y * width + x]) / 255
    }

    /// The same kind of mask with other values (and maybe another size), built by `body` on each storage.
    func mapStorage(width w: Int, height h: Int, _ floatBody: ([Float]) -> [Float],
                    _ byteBody: ([UInt8]) -> [UInt8]) -> Mask {
        dataType == .float32 ? Mask(checkedWidth: w, height: h, values: floatBody(floats))
            : Mask(checkedWidth: w, height: h, bytes: byteBody(bytes))
    }

    /// The mask of the stored pixels turned as the image is displayed (a permutation of the values).
    func displayed(_ o: ImageOrientation) -> Mask {
        guard o != .up else { return self }
        let (dw, dh) = o.swapsDimensions ? (height, width) : (width, height)
        var source = [Int](repeating: 0, count: dw * dh)
        for dy in 0..<dh {
            for dx in 0..<dw {
                // The displayed pixel's centre, in stored pixels.
                let p = o.storedPoint(fromDisplay: (x: (Float(dx) + 0.5) / Float(dw), y: (Float(dy) + 0.5) / Float(dh)))
                let sx = min(max(Int(p.x * Float(width)), 0), width - 1),
                    sy = min(max(Int(p.y * Float(height)), 0), height - 1)
                source[dy * dw + dx] = sy * width + sx
            }
        }
        return mapStorage(width: dw, height: dh, { v in source.map { v[$0] } }, { v in source.map { v[$0] } })
    }
}
