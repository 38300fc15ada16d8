import TasksVisionFormat

/// The name, shape and element type of a model input or output.
public struct TensorDescription: Sendable, Equatable, CustomStringConvertible {
    public let name: String
    public let shape: [Int]
    public let type: TensorType
    /// How a quantized (int8 or uint8) tensor's values map to real numbers: `real = scale * (q - zeroPoint)`;
    /// nil for float32 tensors.
    public let quantization: QuantizationParameters?
    public var elementCount: Int { shape.reduce(1, *) }
    /// Bytes of the tensor's values (`elementCount` times the type's size).
    public var byteCount: Int { elementCount * type.byteSize }
    public var description: String {
        "\(name) \(shape) \(type)" + (quantization.map { " (scale \($0.scale), zero point \($0.zeroPoint))" } ?? "")
    }

    init(name: String, shape: [Int], type: TensorType, quantization: QuantizationParameters? = nil) {
        self.name = name; self.shape = shape; self.type = type; self.quantization = quantization
    }
}

/// The affine quantization of a model input or output: `real = scale * (q - zeroPoint)`.
public struct QuantizationParameters: Sendable, Equatable {
    public let scale: Float
    public let zeroPoint: Int

    public init(scale: Float, zeroPoint: Int) { self.scale = scale; self.zeroPoint = zeroPoint }

    /// The real number a quantized value stands for.
    public func dequantize(_ q: Int) -> Float { scale * Float(q - zeroPoint) }
}

/// Raw little-endian constant data of a tensor, as read from the model or folded at load. The
/// bytes are a slice of the model's own buffer where they come from the file (no copy), so
/// float16 weights stay float16 until a layer converts or packs them.
struct ConstantData {
    var type: TensorType
    var bytes: ArraySlice<UInt8>

    init(type: TensorType, bytes: ArraySlice<UInt8>) {
        self.type = type
        self.bytes = bytes
    }

    init(type: TensorType, bytes: [UInt8]) {
        self.type = type
        self.bytes = bytes[...]
    }

    var count: Int { type.byteSize == 0 ? 0 : bytes.count / type.byteSize }

    func floats() -> [Float]? {
        switch type {
        case .float32:
            return bytes.withUnsafeBytes { raw in
                (0..<count).map { raw.loadUnaligned(fromByteOffset: 4 * $0, as: Float.self) }
            }
        case .float16:
            return bytes.withUnsafeBytes { raw in
                (0..<count).map { floatFromHalfBits(raw.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self)) }
            }
        default:
            return nil
        }
    }

    func ints() -> [Int]? {
        switch type {
        case .int32:
            return bytes.withUnsafeBytes { raw in
                (0..<count).map { Int(raw.loadUnaligned(fromByteOffset: 4 * $0, as: Int32.self)) }
            }
        case .int64:
            return bytes.withUnsafeBytes { raw in
                (0..<count).map { Int(raw.loadUnaligned(fromByteOffset: 8 * $0, as: Int64.self)) }
            }
        default:
            return nil
        }
    }

    static func float32(_ values: [Float]) -> ConstantData {
        ConstantData(type: .float32, bytes: values.withUnsafeBytes { Array($0) })
    }
}
