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
    case resizeNearestNeighbor(alignCorners: Bool, halfPixelCenters: Bool)
    case leakyRelu(alpha: Float)
    case reshape(newShape: [Int]?)
    case reducer(keepDims: Bool)
    case gather(axis: Int, batchDims: Int)
    case stridedSlice(StridedSlice)
    case unpack(num: Int, axis: Int)
    case depthToSpace(blockSize: Int)

    public struct Conv2D: Sendable {
        public var padding: Padding
        public var strideW, strideH: Int
        public var activation: FusedActivation
        public var dilationW, dilationH: Int

        public init(padding: Padding = .same, strideW: Int = 0, strideH: Int = 0,
                    activation: FusedActivation = .none, dilationW: Int = 1, dilationH: Int = 1) {
            self.padding = padding; self.strideW = strideW; self.strideH = strideH; self.activation = activation
            self.dilationW = dilationW; self.dilationH = dilationH
        }
    }
    public struct DepthwiseConv2D: Sendable {
        public var padding: Padding
        public var strideW, strideH: Int
        public var depthMultiplier: Int
        public var activation: FusedActivation
        public var dilationW, dilationH: Int

        public init(padding: Padding = .same, strideW: Int = 0, strideH: Int = 0, depthMultiplier: Int = 0,
                    activation: FusedActivation = .none, dilationW: Int = 1, dilationH: Int = 1) {
            self.padding = padding; self.strideW = strideW; self.strideH = strideH
            self.depthMultiplier = depthMultiplier; self.activation = activation
            self.dilationW = dilationW; self.dilationH = dilationH
        }
    }
    public struct Pool2D: Sendable {
        public var padding: Padding
        public var strideW, strideH: Int
        public var filterW, filterH: Int
        public var activation: FusedActivation

        public init(padding: Padding = .same, strideW: Int = 0, strideH: Int = 0, filterW: Int = 0, filterH: Int = 0,
                    activation: FusedActivation = .none) {
            self.padding = padding; self.strideW = strideW; self.strideH = strideH
            self.filterW = filterW; self.filterH = filterH; self.activation = activation
        }
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
        public var beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask: Int
        public var offset: Bool

        public init(beginMask: Int = 0, endMask: Int = 0, ellipsisMask: Int = 0, newAxisMask: Int = 0,
                    shrinkAxisMask: Int = 0, offset: Bool = false) {
            self.beginMask = beginMask; self.endMask = endMask; self.ellipsisMask = ellipsisMask
            self.newAxisMask = newAxisMask; self.shrinkAxisMask = shrinkAxisMask; self.offset = offset
        }
    }

    /// Each operator's `BuiltinOptions` union type, and its options with every field at its zero value
    /// (`fields(of:_:)` then reads or writes them); nil for an operator without options.
    static func layout(_ op: BuiltinOperator) -> (unionType: UInt8, blank: OperatorOptions)? {
        switch op {
        case .conv2D: return (1, .conv2D(Conv2D()))
        case .depthwiseConv2D: return (2, .depthwiseConv2D(DepthwiseConv2D()))
        case .maxPool2D, .averagePool2D: return (5, .pool2D(Pool2D()))
        case .fullyConnected: return (8, .fullyConnected(FullyConnected()))
        case .softmax: return (9, .softmax(beta: 0))
        case .concatenation: return (10, .concatenation(axis: 0, activation: .none))
        case .add: return (11, .activation(.none))
        case .resizeBilinear: return (15, .resizeBilinear(alignCorners: false, halfPixelCenters: false))
        case .resizeNearestNeighbor: return (74, .resizeNearestNeighbor(alignCorners: false, halfPixelCenters: false))
        case .leakyRelu: return (75, .leakyRelu(alpha: 0))
        case .reshape: return (17, .reshape(newShape: nil))
        case .mul: return (21, .activation(.none))
        case .gather: return (23, .gather(axis: 0, batchDims: 0))
        case .mean, .sum, .reduceMax, .reduceMin: return (27, .reducer(keepDims: false))
        case .sub: return (28, .activation(.none))
        case .div: return (29, .activation(.none))
        case .stridedSlice: return (32, .stridedSlice(StridedSlice()))
        case .unpack: return (64, .unpack(num: 0, axis: 0))
        case .depthToSpace: return (94, .depthToSpace(blockSize: 0))
        default: return nil
        }
    }

    /// The `BuiltinOptions` union type each operator is expected to carry.
    static func expectedUnionType(_ op: BuiltinOperator) -> UInt8? { layout(op)?.unionType }

    /// Each option's field numbers in its options table (schema.fbs), written once for reading and writing:
    /// `coder` reads each field into `options` or writes it out. Fields are visited in table order, so a
    /// reader's first bad field is the one named.
    static func fields<C: OptionFieldCoder>(of options: inout OperatorOptions, _ c: inout C) throws {
        switch options {
        case .none:
            return
        case var .conv2D(o):
            try c.padding(0, &o.padding); try c.i32(1, &o.strideW); try c.i32(2, &o.strideH)
            try c.activation(3, &o.activation)
            try c.i32(4, &o.dilationW, default: 1); try c.i32(5, &o.dilationH, default: 1)
            options = .conv2D(o)
        case var .depthwiseConv2D(o):
            try c.padding(0, &o.padding); try c.i32(1, &o.strideW); try c.i32(2, &o.strideH)
            try c.i32(3, &o.depthMultiplier); try c.activation(4, &o.activation)
            try c.i32(5, &o.dilationW, default: 1); try c.i32(6, &o.dilationH, default: 1)
            options = .depthwiseConv2D(o)
        case var .pool2D(o):
            try c.padding(0, &o.padding); try c.i32(1, &o.strideW); try c.i32(2, &o.strideH)
            try c.i32(3, &o.filterW); try c.i32(4, &o.filterH); try c.activation(5, &o.activation)
            options = .pool2D(o)
        case var .fullyConnected(o):
            try c.activation(0, &o.activation); try c.u8(1, &o.weightsFormat); try c.bool(2, &o.keepNumDims)
            options = .fullyConnected(o)
        case var .softmax(beta): try c.f32(0, &beta); options = .softmax(beta: beta)
        case var .concatenation(axis, activation):
            try c.i32(0, &axis); try c.activation(1, &activation)
            options = .concatenation(axis: axis, activation: activation)
        case var .activation(activation): try c.activation(0, &activation); options = .activation(activation)
        case var .resizeBilinear(alignCorners, halfPixelCenters):
            try c.bool(2, &alignCorners); try c.bool(3, &halfPixelCenters)
            options = .resizeBilinear(alignCorners: alignCorners, halfPixelCenters: halfPixelCenters)
        case var .resizeNearestNeighbor(alignCorners, halfPixelCenters):
            try c.bool(0, &alignCorners); try c.bool(1, &halfPixelCenters)
            options = .resizeNearestNeighbor(alignCorners: alignCorners, halfPixelCenters: halfPixelCenters)
        case var .leakyRelu(alpha): try c.f32(0, &alpha); options = .leakyRelu(alpha: alpha)
        case var .reshape(newShape): try c.int32s(0, &newShape, "new_shape"); options = .reshape(newShape: newShape)
        case var .reducer(keepDims): try c.bool(0, &keepDims); options = .reducer(keepDims: keepDims)
        case var .gather(axis, batchDims):
            try c.i32(0, &axis); try c.i32(1, &batchDims)
            options = .gather(axis: axis, batchDims: batchDims)
        case var .stridedSlice(o):
            try c.i32(0, &o.beginMask); try c.i32(1, &o.endMask); try c.i32(2, &o.ellipsisMask)
            try c.i32(3, &o.newAxisMask); try c.i32(4, &o.shrinkAxisMask); try c.bool(5, &o.offset)
            options = .stridedSlice(o)
        case var .unpack(num, axis): try c.i32(0, &num); try c.i32(1, &axis); options = .unpack(num: num, axis: axis)
        case var .depthToSpace(blockSize): try c.i32(0, &blockSize); options = .depthToSpace(blockSize: blockSize)
        }
    }

    static func parse(op: BuiltinOperator, type: UInt8, table: FlatTable?, what: String,
                      file: String) throws -> OperatorOptions {
        guard let layout = layout(op) else { return .none }
        if table != nil, type != layout.unionType {
            throw FormatError.malformed(file: file, reason: "\(what) carries builtin options of type \(type),"
                                            + " expected \(layout.unionType)")
        }
        // A missing options table means all defaults, as in the flatbuffer schema.
        var options = layout.blank
        var reader = OptionFieldReader(table: table, what: what, file: file)
        try fields(of: &options, &reader)
        return options
    }

    /// The `BuiltinOptions` union type and table of an operator's options; nil for none.
    static func encode(_ options: OperatorOptions, _ op: BuiltinOperator,
                       what: String) throws -> (UInt8, FlatObject)? {
        if case .none = options { return nil }
        guard let type = expectedUnionType(op) else {
            throw FormatError.unsupported(file: "model being written",
                                          reason: "\(what) (\(op)): the writer has no options for it")
        }
        var options = options
        var writer = OptionFieldWriter()
        try fields(of: &options, &writer)
        return (type, writer.table)
    }
}

/// One direction over an options table: `OptionFieldReader` fills each value from the table (its
/// default when absent), `OptionFieldWriter` puts each value into a table.
protocol OptionFieldCoder {
    mutating func u8(_ field: Int, _ value: inout Int) throws
    mutating func i32(_ field: Int, _ value: inout Int, default: Int32) throws
    mutating func bool(_ field: Int, _ value: inout Bool) throws
    mutating func f32(_ field: Int, _ value: inout Float) throws
    mutating func int32s(_ field: Int, _ value: inout [Int]?, _ name: String) throws
    mutating func activation(_ field: Int, _ value: inout FusedActivation) throws
    mutating func padding(_ field: Int, _ value: inout Padding) throws
}

extension OptionFieldCoder {
    mutating func i32(_ field: Int, _ value: inout Int) throws { try i32(field, &value, default: 0) }
}

struct OptionFieldReader: OptionFieldCoder {
    let table: FlatTable?
    let what: String, file: String

    func u8(_ field: Int, _ value: inout Int) throws { value = Int(try table?.u8(field, default: 0) ?? 0) }
    func i32(_ field: Int, _ value: inout Int, default d: Int32) throws {
        value = Int(try table?.i32(field, default: d) ?? d)
    }
    func bool(_ field: Int, _ value: inout Bool) throws { value = try table?.bool(field) ?? false }
    func f32(_ field: Int, _ value: inout Float) throws { value = try table?.f32(field, default: 0) ?? 0 }
    func int32s(_ field: Int, _ value: inout [Int]?, _ name: String) throws {
        value = try table?.int32s(field, what: "\(what) \(name)").map { $0.map(Int.init) }
    }
    func activation(_ field: Int, _ value: inout FusedActivation) throws {
        let raw = try table?.u8(field, default: 0) ?? 0
        guard let a = FusedActivation(rawValue: raw) else {
            throw FormatError.unsupported(file: file, reason: "\(what) has unknown fused activation \(raw)")
        }
        value = a
    }
    func padding(_ field: Int, _ value: inout Padding) throws {
        let raw = try table?.u8(field, default: 0) ?? 0
        guard let p = Padding(rawValue: raw) else {
            throw FormatError.unsupported(file: file, reason: "\(what) has unknown padding \(raw)")
        }
        value = p
    }
}

struct OptionFieldWriter: OptionFieldCoder {
    var table = FlatObject()

    mutating func u8(_ field: Int, _ value: inout Int) { table.set(field, u8: UInt8(clamping: value)) }
    mutating func i32(_ field: Int, _ value: inout Int, default _: Int32) { table.set(field, i32: Int32(value)) }
    mutating func bool(_ field: Int, _ value: inout Bool) { table.set(field, bool: value) }
    mutating func f32(_ field: Int, _ value: inout Float) { table.set(field, f32: value) }
    mutating func int32s(_ field: Int, _ value: inout [Int]?, _ name: String) {
        if let v = value { table.set(field, int32s: v.map { Int32(clamping: $0) }) }
    }
    mutating func activation(_ field: Int, _ value: inout FusedActivation) { table.set(field, u8: value.rawValue) }
    mutating func padding(_ field: Int, _ value: inout Padding) { table.set(field, u8: value.rawValue) }
}
