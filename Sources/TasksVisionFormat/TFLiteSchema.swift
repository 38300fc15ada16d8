/// Enumerations of the TFLite schema (tensorflow/lite/schema/schema.fbs), as far as
/// this project needs them. Unknown values are kept as raw numbers so that an
/// unsupported operator or type can still be named in an error.

/// A TFLite builtin operator code.
public struct BuiltinOperator: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let add = BuiltinOperator(rawValue: 0)
    public static let averagePool2D = BuiltinOperator(rawValue: 1)
    public static let concatenation = BuiltinOperator(rawValue: 2)
    public static let conv2D = BuiltinOperator(rawValue: 3)
    public static let depthwiseConv2D = BuiltinOperator(rawValue: 4)
    public static let depthToSpace = BuiltinOperator(rawValue: 5)
    public static let dequantize = BuiltinOperator(rawValue: 6)
    public static let fullyConnected = BuiltinOperator(rawValue: 9)
    public static let logistic = BuiltinOperator(rawValue: 14)
    public static let maxPool2D = BuiltinOperator(rawValue: 17)
    public static let mul = BuiltinOperator(rawValue: 18)
    public static let relu = BuiltinOperator(rawValue: 19)
    public static let reluN1To1 = BuiltinOperator(rawValue: 20)
    public static let relu6 = BuiltinOperator(rawValue: 21)
    public static let reshape = BuiltinOperator(rawValue: 22)
    public static let resizeBilinear = BuiltinOperator(rawValue: 23)
    public static let softmax = BuiltinOperator(rawValue: 25)
    public static let tanh = BuiltinOperator(rawValue: 28)
    public static let custom = BuiltinOperator(rawValue: 32)
    public static let pad = BuiltinOperator(rawValue: 34)
    public static let gather = BuiltinOperator(rawValue: 36)
    public static let leakyRelu = BuiltinOperator(rawValue: 98)
    public static let transpose = BuiltinOperator(rawValue: 39)
    public static let mean = BuiltinOperator(rawValue: 40)
    public static let sub = BuiltinOperator(rawValue: 41)
    public static let div = BuiltinOperator(rawValue: 42)
    public static let squeeze = BuiltinOperator(rawValue: 43)
    public static let stridedSlice = BuiltinOperator(rawValue: 45)
    public static let prelu = BuiltinOperator(rawValue: 54)
    public static let maximum = BuiltinOperator(rawValue: 55)
    public static let minimum = BuiltinOperator(rawValue: 57)
    public static let neg = BuiltinOperator(rawValue: 59)
    public static let sum = BuiltinOperator(rawValue: 74)
    public static let sqrt = BuiltinOperator(rawValue: 75)
    public static let rsqrt = BuiltinOperator(rawValue: 76)
    public static let padV2 = BuiltinOperator(rawValue: 60)
    public static let expandDims = BuiltinOperator(rawValue: 70)
    public static let reduceMax = BuiltinOperator(rawValue: 82)
    public static let unpack = BuiltinOperator(rawValue: 88)
    public static let reduceMin = BuiltinOperator(rawValue: 89)
    public static let resizeNearestNeighbor = BuiltinOperator(rawValue: 97)
    public static let quantize = BuiltinOperator(rawValue: 114)
    public static let squaredDifference = BuiltinOperator(rawValue: 99)
    public static let hardSwish = BuiltinOperator(rawValue: 117)
    public static let elu = BuiltinOperator(rawValue: 111)
    public static let densify = BuiltinOperator(rawValue: 124)

    static let names: [Int32: String] = [
        0: "ADD", 1: "AVERAGE_POOL_2D", 2: "CONCATENATION", 3: "CONV_2D", 4: "DEPTHWISE_CONV_2D",
        5: "DEPTH_TO_SPACE", 6: "DEQUANTIZE", 7: "EMBEDDING_LOOKUP", 8: "FLOOR", 9: "FULLY_CONNECTED",
        10: "HASHTABLE_LOOKUP", 11: "L2_NORMALIZATION", 12: "L2_POOL_2D", 13: "LOCAL_RESPONSE_NORMALIZATION",
        14: "LOGISTIC", 15: "LSH_PROJECTION", 16: "LSTM", 17: "MAX_POOL_2D", 18: "MUL", 19: "RELU",
        20: "RELU_N1_TO_1", 21: "RELU6", 22: "RESHAPE", 23: "RESIZE_BILINEAR", 24: "RNN", 25: "SOFTMAX",
        26: "SPACE_TO_DEPTH", 27: "SVDF", 28: "TANH", 29: "CONCAT_EMBEDDINGS", 30: "SKIP_GRAM", 31: "CALL",
        32: "CUSTOM", 33: "EMBEDDING_LOOKUP_SPARSE", 34: "PAD", 35: "UNIDIRECTIONAL_SEQUENCE_RNN",
        36: "GATHER", 37: "BATCH_TO_SPACE_ND", 38: "SPACE_TO_BATCH_ND", 39: "TRANSPOSE", 40: "MEAN",
        41: "SUB", 42: "DIV", 43: "SQUEEZE", 44: "UNIDIRECTIONAL_SEQUENCE_LSTM", 45: "STRIDED_SLICE",
        46: "BIDIRECTIONAL_SEQUENCE_RNN", 47: "EXP", 48: "TOPK_V2", 49: "SPLIT", 50: "LOG_SOFTMAX",
        51: "DELEGATE", 52: "BIDIRECTIONAL_SEQUENCE_LSTM", 53: "CAST", 54: "PRELU", 55: "MAXIMUM",
        56: "ARG_MAX", 57: "MINIMUM", 58: "LESS", 59: "NEG", 60: "PADV2", 61: "GREATER", 62: "GREATER_EQUAL",
        63: "LESS_EQUAL", 64: "SELECT", 65: "SLICE", 66: "SIN", 67: "TRANSPOSE_CONV", 68: "SPARSE_TO_DENSE",
        69: "TILE", 70: "EXPAND_DIMS", 71: "EQUAL", 72: "NOT_EQUAL", 73: "LOG", 74: "SUM", 75: "SQRT",
        76: "RSQRT", 77: "SHAPE", 78: "POW", 79: "ARG_MIN", 80: "FAKE_QUANT", 81: "REDUCE_PROD",
        82: "REDUCE_MAX", 83: "PACK", 84: "LOGICAL_OR", 85: "ONE_HOT", 86: "LOGICAL_AND", 87: "LOGICAL_NOT",
        88: "UNPACK", 89: "REDUCE_MIN", 90: "FLOOR_DIV", 91: "REDUCE_ANY", 92: "SQUARE", 93: "ZEROS_LIKE",
        94: "FILL", 95: "FLOOR_MOD", 96: "RANGE", 97: "RESIZE_NEAREST_NEIGHBOR", 98: "LEAKY_RELU",
        99: "SQUARED_DIFFERENCE", 100: "MIRROR_PAD", 101: "ABS", 102: "SPLIT_V", 103: "UNIQUE", 104: "CEIL",
        105: "REVERSE_V2", 106: "ADD_N", 107: "GATHER_ND", 108: "COS", 109: "WHERE", 110: "RANK", 111: "ELU",
        112: "REVERSE_SEQUENCE", 113: "MATRIX_DIAG", 114: "QUANTIZE", 115: "MATRIX_SET_DIAG", 116: "ROUND",
        117: "HARD_SWISH", 118: "IF", 119: "WHILE", 120: "NON_MAX_SUPPRESSION_V4",
        121: "NON_MAX_SUPPRESSION_V5", 122: "SCATTER_ND", 123: "SELECT_V2", 124: "DENSIFY",
        125: "SEGMENT_SUM", 126: "BATCH_MATMUL",
    ]

    public var name: String { Self.names[rawValue] ?? "BUILTIN_\(rawValue)" }
    public var description: String { name }
}

/// Element type of a TFLite tensor.
public enum TensorType: UInt8, Sendable, CustomStringConvertible {
    case float32 = 0, float16 = 1, int32 = 2, uint8 = 3, int64 = 4, string = 5, bool = 6, int16 = 7,
         complex64 = 8, int8 = 9, float64 = 10, complex128 = 11, uint64 = 12, resource = 13, variant = 14,
         uint32 = 15, uint16 = 16, int4 = 17, bfloat16 = 18

    /// Size of one element in bytes (0 for types without a fixed size).
    public var byteSize: Int {
        switch self {
        case .float32, .int32, .uint32: return 4
        case .float16, .int16, .uint16, .bfloat16: return 2
        case .uint8, .int8, .bool: return 1
        case .int64, .uint64, .float64, .complex64: return 8
        case .complex128: return 16
        case .string, .resource, .variant, .int4: return 0
        }
    }

    public var description: String {
        switch self {
        case .float32: return "float32"
        case .float16: return "float16"
        case .int32: return "int32"
        case .uint8: return "uint8"
        case .int64: return "int64"
        case .string: return "string"
        case .bool: return "bool"
        case .int16: return "int16"
        case .complex64: return "complex64"
        case .int8: return "int8"
        case .float64: return "float64"
        case .complex128: return "complex128"
        case .uint64: return "uint64"
        case .resource: return "resource"
        case .variant: return "variant"
        case .uint32: return "uint32"
        case .uint16: return "uint16"
        case .int4: return "int4"
        case .bfloat16: return "bfloat16"
        }
    }
}

/// Fused activation of an operator (`ActivationFunctionType`).
public enum FusedActivation: UInt8, Sendable {
    case none = 0, relu = 1, reluN1To1 = 2, relu6 = 3, tanh = 4, signBit = 5
}

/// Padding scheme of convolutions and pools.
public enum Padding: UInt8, Sendable {
    case same = 0, valid = 1
}
