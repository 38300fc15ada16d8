/// Builtin options of the operators this project reads, decoded from the
/// `builtin_options` union according to the operator's code.
public enum OperatorOptions: Sendable {
    case none
    case conv2D(Conv2D)
    case depthwiseConv2D(DepthwiseConv2D)
    case pool2D(Pool2D)
    case fullyConnected(FullyConnected)
    case softmax(beta: Float)
    case concatenation(axis: Int, activation: FusedActivation)
    /// ADD, SUB, MUL, DIV: only a fused activation.
    case activation(FusedActivation)
    case resizeBilinear(alignCorners: Bool, halfPixelCenters: Bool)
    case reshape(newShape: [Int]?)
    case reducer(keepDims: Bool)
    case gather(axis: Int, batchDims: Int)
    case stridedSlice(StridedSlice)
    case unpack(num: Int, axis: Int)
    case depthToSpace(blockSize: Int)

    public struct Conv2D: Sendable {
        public var padding: Padding
        public var strideW: Int, strideH: Int
        public var activation: FusedActivation
        public var dilationW: Int, dilationH: Int
    }
    public struct DepthwiseConv2D: Sendable {
        public var padding: Padding
        public var strideW: Int, strideH: Int
        public var depthMultiplier: Int
        public var activation: FusedActivation
        public var dilationW: Int, dilationH: Int
    }
    public struct Pool2D: Sendable {
        public var padding: Padding
        public var strideW: Int, strideH: Int
        public var filterW: Int, filterH: Int
        public var activation: FusedActivation
    }
    public struct FullyConnected: Sendable {
        public var activation: FusedActivation
        public var weightsFormat: Int
        public var keepNumDims: Bool

        public init(activation: FusedActivation = .none, weightsFormat: Int = 0, keepNumDims: Bool = false) {
            self.activation = activation; self.weightsFormat = weightsFormat; self.keepNumDims = keepNumDims
        }
    }
    public struct StridedSlice: Sendable {
        public var beginMask: Int, endMask: Int, ellipsisMask: Int, newAxisMask: Int, shrinkAxisMask: Int
        public var offset: Bool
    }

    /// The `BuiltinOptions` union type each operator is expected to carry.
    static func expectedUnionType(_ op: BuiltinOperator) -> UInt8? {
        switch op {
        case .conv2D: return 1
        case .depthwiseConv2D: return 2
        case .maxPool2D, .averagePool2D: return 5
        case .fullyConnected: return 8
        case .softmax: return 9
        case .concatenation: return 10
        case .add: return 11
        case .resizeBilinear: return 15
        case .reshape: return 17
        case .mul: return 21
        case .gather: return 23
        case .mean, .sum, .reduceMax, .reduceMin: return 27
        case .sub: return 28
        case .div: return 29
        case .stridedSlice: return 32
        case .unpack: return 64
        case .depthToSpace: return 94
        default: return nil
        }
    }

    static func activation(_ raw: UInt8, _ what: String, _ file: String) throws -> FusedActivation {
        guard let a = FusedActivation(rawValue: raw) else {
            throw FormatError.unsupported(file: file, reason: "\(what) has unknown fused activation \(raw)")
        }
        return a
    }

    static func padding(_ raw: UInt8, _ what: String, _ file: String) throws -> Padding {
        guard let p = Padding(rawValue: raw) else {
            throw FormatError.unsupported(file: file, reason: "\(what) has unknown padding \(raw)")
        }
        return p
    }

    static func parse(op: BuiltinOperator, type: UInt8, table: FlatTable?, what: String,
                      file: String) throws -> OperatorOptions {
        if let expected = expectedUnionType(op), let _ = table, type != expected {
            throw FormatError.malformed(file: file,
                                        reason: "\(what) carries builtin options of type \(type), expected \(expected)")
        }
        // A missing options table means all defaults, as in the flatbuffer schema.
        let t = table
        func u8(_ i: Int, _ d: UInt8 = 0) throws -> UInt8 { try t?.u8(i, default: d) ?? d }
        func i32(_ i: Int, _ d: Int32 = 0) throws -> Int { Int(try t?.i32(i, default: d) ?? d) }
        func bool(_ i: Int) throws -> Bool { try t?.bool(i) ?? false }
        switch op {
        case .conv2D:
            return .conv2D(Conv2D(padding: try padding(try u8(0), what, file), strideW: try i32(1), strideH: try i32(2),
                                  activation: try activation(try u8(3), what, file),
                                  dilationW: try i32(4, 1), dilationH: try i32(5, 1)))
        case .depthwiseConv2D:
            return .depthwiseConv2D(DepthwiseConv2D(padding: try padding(try u8(0), what, file), strideW: try i32(1),
                                                    strideH: try i32(2),
                                                    depthMultiplier: try i32(3),
                                                    activation: try activation(try u8(4), what, file),
                                                    dilationW: try i32(5, 1), dilationH: try i32(6, 1)))
        case .maxPool2D, .averagePool2D:
            return .pool2D(Pool2D(padding: try padding(try u8(0), what, file), strideW: try i32(1), strideH: try i32(2),
                                  filterW: try i32(3), filterH: try i32(4),
                                  activation: try activation(try u8(5), what, file)))
        case .fullyConnected:
            return .fullyConnected(FullyConnected(activation: try activation(try u8(0), what, file),
                                                  weightsFormat: Int(try u8(1)), keepNumDims: try bool(2)))
        case .softmax:
            return .softmax(beta: try t?.f32(0, default: 0) ?? 0)
        case .concatenation:
            return .concatenation(axis: try i32(0), activation: try activation(try u8(1), what, file))
        case .add, .sub, .mul, .div:
            return .activation(try activation(try u8(0), what, file))
        case .resizeBilinear:
            return .resizeBilinear(alignCorners: try bool(2), halfPixelCenters: try bool(3))
        case .reshape:
            return .reshape(newShape: try t?.int32s(0, what: "\(what) new_shape").map { $0.map(Int.init) })
        case .mean, .sum, .reduceMax, .reduceMin:
            return .reducer(keepDims: try bool(0))
        case .gather:
            return .gather(axis: try i32(0), batchDims: try i32(1))
        case .stridedSlice:
            return .stridedSlice(StridedSlice(beginMask: try i32(0), endMask: try i32(1), ellipsisMask: try i32(2),
                                              newAxisMask: try i32(3), shrinkAxisMask: try i32(4), offset: try bool(5)))
        case .unpack:
            return .unpack(num: try i32(0), axis: try i32(1))
        case .depthToSpace:
            return .depthToSpace(blockSize: try i32(0))
        default:
            return .none
        }
    }
}
