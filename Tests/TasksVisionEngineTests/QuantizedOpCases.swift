import TasksVisionFormat

/// The quantized op parity cases: small single-op int8/uint8 models with their inputs, made here from each case's
/// name so that no model is committed. `QuantizedOpParityTests` runs them against the outputs ai-edge-litert gave
/// on the same bytes; tools/reference_quantized_ops.py gets them from `QuantizedOpCaseTests` (which writes them
/// into $TASKSVISION_WRITE_QUANTIZED_OPS) and records each model's SHA-256 with TFLite's outputs.
///
/// Everything comes from integer arithmetic and IEEE float32 `+ - * /` on a splitmix64 stream seeded by the name,
/// so the bytes are the same on every platform and compiler; changing a case changes its model's hash, which the
/// parity test then reports until the reference script has run again.
struct QuantizedOpCase {
    let name: String
    /// The `.tflite` file.
    let model: [UInt8]
    /// One array per model input, in the input's type.
    let inputs: [NumpyArray]

    static func all() throws -> [QuantizedOpCase] {
        try Self.recipes.map { name, make in
            var b = QuantizedOpCaseBuilder(name: name)
            let inputs = try make(&b)
            return QuantizedOpCase(name: name, model: try b.serialized(), inputs: inputs)
        }
    }

    /// Builds a case's model into the builder and returns its inputs.
    typealias Make = (inout QuantizedOpCaseBuilder) throws -> [NumpyArray]
    typealias Recipe = (name: String, make: Make)

    /// Every case, in the manifest's order.
    static let recipes: [Recipe] = convolutions + binaries + unaries + requantizeTails + pools + means + softmaxes
        + resizes + concatenations + pads
}

/// The 8-bit types the cases run in.
enum QuantizedType: CaseIterable {
    case int8, uint8

    var name: String { self == .int8 ? "int8" : "uint8" }
    var tensorType: TensorType { self == .int8 ? .int8 : .uint8 }
    var dtype: NumpyArray.DType { self == .int8 ? .int8 : .uint8 }
    /// The lowest and highest value.
    var low: Int { self == .int8 ? -128 : 0 }
    var high: Int { self == .int8 ? 127 : 255 }
    var other: QuantizedType { self == .int8 ? .uint8 : .int8 }
}

/// A scale and zero point.
typealias ScaleZeroPoint = (scale: Float, zeroPoint: Int)

/// splitmix64 (Steele, Lea and Flood), seeded by the FNV-1a hash of a case's name.
struct CaseRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }
    init(name: String) { state = Self.fnv1a(name) }

    /// The 64-bit FNV-1a hash of the UTF-8 bytes.
    static func fnv1a(_ text: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return h
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// An integer in `range` (the modulo's bias is below 2^-40 for these ranges).
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }

    /// A float32 in [low, high): 24 random bits.
    mutating func float(_ low: Float, _ high: Float) -> Float {
        low + (high - low) * (Float(next() >> 40) * (1 / 16_777_216))
    }

    /// Roughly normal with mean 0 and standard deviation `sigma`: the centred sum of 12 uniforms (Irwin-Hall),
    /// which needs no `log` or `cos` whose last bits could differ between libms.
    mutating func normal(sigma: Float) -> Float {
        var sum: Float = 0
        for _ in 0..<12 { sum += float(0, 1) }
        return (sum - 6) * sigma
    }

    /// A scale in `scales` and a zero point anywhere in the type's range.
    mutating func q(_ type: QuantizedType, _ scales: (Float, Float) = (0.005, 0.2)) -> ScaleZeroPoint {
        (float(scales.0, scales.1), int(type.low...type.high))
    }

    /// Uniform values over the whole type.
    mutating func values(_ shape: [Int], _ type: QuantizedType) -> NumpyArray {
        NumpyArray(shape: shape, dtype: type.dtype,
                   data: (0..<shape.reduce(1, *)).map { _ in UInt8(truncatingIfNeeded: next()) })
    }
}

/// The four bytes of `v`, least significant first.
func int32Bytes(_ v: Int32) -> [UInt8] {
    (0..<4).map { UInt8(truncatingIfNeeded: UInt32(bitPattern: v) >> ($0 * 8)) }
}

/// Builds one case's single-op model: its tensors, the operator, the graph's inputs and outputs.
struct QuantizedOpCaseBuilder {
    var random: CaseRandom
    private var tensors: [TFLiteModelWriter.Tensor] = []
    private var op: TFLiteModelWriter.Operator?
    private var graphInputs: [Int] = [], graphOutputs: [Int] = []

    init(name: String) { random = CaseRandom(name: name) }

    /// An activation (`data` nil) or a constant; quantized per tensor (one scale) or per channel along `dimension`.
    mutating func tensor(_ name: String, _ shape: [Int], _ type: TensorType, scales: [Float]? = nil,
                         zeroPoint: Int = 0, dimension: Int = 0, data: [UInt8]? = nil) -> Int {
        let quantization = scales.map {
            TFLiteModel.Quantization(scales: $0, zeroPoints: Array(repeating: Int64(zeroPoint), count: $0.count),
                                     quantizedDimension: dimension)
        }
        tensors.append(.init(name: name, shape: shape, type: type, data: data, quantization: quantization))
        return tensors.count - 1
    }

    mutating func tensor(_ name: String, _ shape: [Int], _ type: QuantizedType, _ q: ScaleZeroPoint) -> Int {
        tensor(name, shape, type.tensorType, scales: [q.scale], zeroPoint: q.zeroPoint)
    }

    mutating func int32s(_ name: String, _ shape: [Int], _ values: [Int]) -> Int {
        tensor(name, shape, .int32, data: values.flatMap { int32Bytes(Int32($0)) })
    }

    mutating func op(_ code: BuiltinOperator, version: Int, _ inputs: [Int], _ outputs: [Int],
                     _ options: OperatorOptions = .none, graphInputs: [Int]) {
        op = .init(code, version: version, inputs: inputs, outputs: outputs, options: options)
        self.graphInputs = graphInputs
        graphOutputs = outputs
    }

    func serialized() throws -> [UInt8] {
        let graph = TFLiteModelWriter.Subgraph(name: "main", tensors: tensors, inputs: graphInputs,
                                               outputs: graphOutputs, operators: op.map { [$0] } ?? [])
        return try TFLiteModelWriter(description: "QuantizedOpCases", subgraphs: [graph]).serialized()
    }
}

// MARK: - Convolutions

extension QuantizedOpCase {
    enum ConvKind { case conv, depthwise, fullyConnected }

    struct Conv {
        var kind: ConvKind
        var n = 1, h = 1, w = 1, cin: Int, cout: Int, k = 1, stride = 1
        var padding: Padding = .same
        var activation: FusedActivation = .none
        var perChannel = true, dilation = 1, bias = true, multiplier = 1
        var xq: ScaleZeroPoint?, yq: ScaleZeroPoint?
        /// Per-channel weight scales up to 1000x apart rather than within 0.002-0.02.
        var scaleSpread = false
    }

    /// CONV_2D, DEPTHWISE_CONV_2D or FULLY_CONNECTED with int8 weights and an int32 bias.
    static func conv(_ c: Conv, _ b: inout QuantizedOpCaseBuilder) -> [NumpyArray] {
        let xq = c.xq ?? b.random.q(.int8)
        let yq = c.yq ?? b.random.q(.int8, (0.02, 0.5))
        let channels = c.kind == .depthwise ? c.cin * c.multiplier : c.cout
        let ws: [Float]
        if !c.perChannel {
            ws = [b.random.float(0.002, 0.02)]
        } else if c.scaleSpread {
            // 2e-5 times 2^0...2^9 times 1...2: about log-uniform, up to 1024x apart, without calling exp.
            ws = (0..<channels).map { _ in
                Float(2e-5) * Float(1 << b.random.int(0...9)) * b.random.float(1, 2)
            }
        } else {
            ws = (0..<channels).map { _ in b.random.float(0.002, 0.02) }
        }
        let x: Int, y: Int, wShape: [Int], dimension: Int, inShape: [Int]
        if c.kind == .fullyConnected {
            inShape = [c.n, c.cin]
            x = b.tensor("x", inShape, .int8, xq)
            y = b.tensor("y", [c.n, c.cout], .int8, yq)
            (wShape, dimension) = ([c.cout, c.cin], 0)
        } else {
            let size = { (s: Int) in
                c.padding == .same ? (s + c.stride - 1) / c.stride : (s - (c.k - 1) * c.dilation - 1) / c.stride + 1
            }
            inShape = [c.n, c.h, c.w, c.cin]
            x = b.tensor("x", inShape, .int8, xq)
            y = b.tensor("y", [c.n, size(c.h), size(c.w), channels], .int8, yq)
            (wShape, dimension) = c.kind == .conv ? ([c.cout, c.k, c.k, c.cin], 0) : ([1, c.k, c.k, channels], 3)
        }
        let weights = (0..<wShape.reduce(1, *)).map { _ in UInt8(bitPattern: Int8(b.random.int(-127...127))) }
        var inputs = [x, b.tensor("w", wShape, .int8, scales: ws, dimension: dimension, data: weights)]
        if c.bias {
            let values = (0..<channels).map { _ in Int32(b.random.int(-20_000...19_999)) }
            inputs.append(b.tensor("b", [channels], .int32, scales: ws.map { xq.scale * $0 },
                                   data: values.flatMap(int32Bytes)))
        } else {
            inputs.append(-1)
        }
        switch c.kind {
        case .conv:
            let o = OperatorOptions.Conv2D(padding: c.padding, strideW: c.stride, strideH: c.stride,
                                           activation: c.activation, dilationW: c.dilation, dilationH: c.dilation)
            b.op(.conv2D, version: 3, inputs, [y], .conv2D(o), graphInputs: [x])
        case .depthwise:
            let o = OperatorOptions.DepthwiseConv2D(padding: c.padding, strideW: c.stride, strideH: c.stride,
                                                    depthMultiplier: c.multiplier, activation: c.activation,
                                                    dilationW: c.dilation, dilationH: c.dilation)
            b.op(.depthwiseConv2D, version: 3, inputs, [y], .depthwiseConv2D(o), graphInputs: [x])
        case .fullyConnected:
            b.op(.fullyConnected, version: 4, inputs, [y], .fullyConnected(.init(activation: c.activation)),
                 graphInputs: [x])
        }
        return [b.random.values(inShape, .int8)]
    }

    static func conv(_ name: String, _ c: Conv) -> Recipe { (name, { conv(c, &$0) }) }

    // 1x1 (the GEMM on rows in place), KxK (gathered windows), strides, padding, dilation, odd channel counts,
    // per-tensor and per-channel weights, scales 1000x apart, zero points at the ends, saturation.
    static let convolutions: [Recipe] = [
        conv("conv_1x1_per_channel", .init(kind: .conv, h: 6, w: 7, cin: 13, cout: 21)),
        conv("conv_1x1_per_tensor_relu", .init(kind: .conv, h: 5, w: 5, cin: 16, cout: 8, padding: .valid,
                                               activation: .relu, perChannel: false)),
        conv("conv_3x3_same_relu6", .init(kind: .conv, h: 9, w: 8, cin: 7, cout: 17, k: 3, activation: .relu6)),
        conv("conv_3x3_stride2_first_layer", .init(kind: .conv, h: 15, w: 16, cin: 3, cout: 16, k: 3, stride: 2,
                                                   activation: .relu6)),
        conv("conv_5x5_valid_batch2", .init(kind: .conv, n: 2, h: 8, w: 9, cin: 5, cout: 11, k: 5, padding: .valid)),
        conv("conv_3x3_dilation2", .init(kind: .conv, h: 10, w: 9, cin: 6, cout: 9, k: 3, dilation: 2)),
        conv("conv_scales_1000x_apart", .init(kind: .conv, h: 6, w: 6, cin: 24, cout: 40, yq: (0.01, 3),
                                              scaleSpread: true)),
        conv("conv_zero_points_at_ends", .init(kind: .conv, h: 7, w: 7, cin: 9, cout: 10, k: 3, stride: 2,
                                               xq: (0.05, -128), yq: (0.3, 127))),
        conv("conv_zero_points_other_ends", .init(kind: .conv, h: 7, w: 7, cin: 9, cout: 10, k: 3,
                                                  xq: (0.05, 127), yq: (0.3, -128))),
        conv("conv_saturating", .init(kind: .conv, h: 6, w: 5, cin: 32, cout: 12, k: 3, yq: (0.004, 5))),
        conv("depthwise_3x3_relu6", .init(kind: .depthwise, h: 9, w: 10, cin: 24, cout: 24, k: 3,
                                          activation: .relu6)),
        conv("depthwise_3x3_stride2_odd_channels", .init(kind: .depthwise, h: 11, w: 9, cin: 7, cout: 7, k: 3,
                                                         stride: 2)),
        conv("depthwise_5x5_stride2", .init(kind: .depthwise, h: 12, w: 13, cin: 40, cout: 40, k: 5, stride: 2,
                                            activation: .relu6)),
        conv("depthwise_5x5_valid_per_tensor", .init(kind: .depthwise, h: 9, w: 9, cin: 17, cout: 17, k: 5,
                                                     padding: .valid, perChannel: false)),
        conv("depthwise_dilation2_zero_points", .init(kind: .depthwise, h: 9, w: 8, cin: 33, cout: 33, k: 3,
                                                      dilation: 2, xq: (0.04, 127), yq: (0.2, -128))),
        conv("depthwise_multiplier2", .init(kind: .depthwise, h: 6, w: 7, cin: 5, cout: 10, k: 3, multiplier: 2)),
        conv("fully_connected_per_tensor", .init(kind: .fullyConnected, cin: 37, cout: 19, perChannel: false)),
        conv("fully_connected_rows3_relu", .init(kind: .fullyConnected, n: 3, cin: 64, cout: 33, activation: .relu,
                                                 perChannel: false)),
        conv("fully_connected_per_channel_no_bias", .init(kind: .fullyConnected, n: 2, cin: 21, cout: 1000,
                                                          bias: false)),
    ]
}

// MARK: - Element-wise and unary ops

extension QuantizedOpCase {
    static func binary(_ code: BuiltinOperator, _ t: QuantizedType, _ aShape: [Int], _ bShape: [Int],
                       activation: FusedActivation = .none,
                       qs: (ScaleZeroPoint, ScaleZeroPoint, ScaleZeroPoint)? = nil) -> Make {
        { b in
            let (qa, qb, qy) = qs ?? (b.random.q(t), b.random.q(t), b.random.q(t, (0.01, 0.4)))
            // NumPy broadcasting, aligned at the last dimension.
            let rank = max(aShape.count, bShape.count)
            let pa = Array(repeating: 1, count: rank - aShape.count) + aShape
            let pb = Array(repeating: 1, count: rank - bShape.count) + bShape
            let x = b.tensor("a", aShape, t, qa), z = b.tensor("b", bShape, t, qb)
            let y = b.tensor("y", zip(pa, pb).map { max($0, $1) }, t, qy)
            b.op(code, version: 2, [x, z], [y], .activation(activation), graphInputs: [x, z])
            return [b.random.values(aShape, t), b.random.values(bShape, t)]
        }
    }

    static let binaries: [Recipe] = QuantizedType.allCases.flatMap { t -> [Recipe] in
        [(BuiltinOperator.add, "add"), (.sub, "sub"), (.mul, "mul")].flatMap { code, name -> [Recipe] in [
            ("\(name)_\(t.name)", binary(code, t, [1, 5, 7, 19], [1, 5, 7, 19])),
            ("\(name)_\(t.name)_channel_broadcast_relu6", binary(code, t, [1, 4, 6, 16], [1, 1, 1, 16],
                                                                 activation: .relu6)),
        ] } + [
            ("add_\(t.name)_scalar_relu", binary(.add, t, [2, 3, 5], [1], activation: .relu)),
            ("add_\(t.name)_saturating_zero_points_at_ends",
             binary(.add, t, [1, 3, 3, 40], [1, 3, 3, 40], qs: ((0.5, t.low), (0.25, t.high), (0.05, t.low)))),
        ]
    }

    /// All 256 values of the type, lowest first.
    static func allBytes(_ t: QuantizedType) -> [UInt8] {
        (t.low...t.high).map { UInt8(truncatingIfNeeded: $0) }
    }

    /// x -> op -> y. `nil` types are float32 without quantization; `xq`, `yq` default to random ones; `inputs` to
    /// all 256 values for the [1, 256] shape and random values otherwise.
    static func unary(_ code: BuiltinOperator, _ from: QuantizedType?, _ to: QuantizedType?, shape: [Int] = [1, 256],
                      xq: ScaleZeroPoint? = nil, yq: ScaleZeroPoint? = nil, options: OperatorOptions = .none,
                      version: Int = 1,
                      inputs: ((inout CaseRandom) -> NumpyArray)? = nil) -> Make {
        { b in
            let x: Int, y: Int
            if let from {
                x = b.tensor("x", shape, from, xq ?? b.random.q(from))
            } else {
                x = b.tensor("x", shape, .float32)
            }
            if let to {
                y = b.tensor("y", shape, to, yq ?? b.random.q(to))
            } else {
                y = b.tensor("y", shape, .float32)
            }
            b.op(code, version: version, [x], [y], options, graphInputs: [x])
            if let inputs { return [inputs(&b.random)] }
            guard let from else { return [] }
            if shape == [1, 256] { return [NumpyArray(shape: shape, dtype: from.dtype, data: allBytes(from))] }
            return [b.random.values(shape, from)]
        }
    }

    /// Floats around zero with the values that test rounding and saturation, two rows of 300.
    static func quantizeInputs(_ random: inout CaseRandom) -> NumpyArray {
        let specials: [Float] = [1e9, -1e9, 0.5, -0.5, 1.5, -2.5, 1e-30, 127.5, -128.5, 300]
        var values: [Float] = []
        for _ in 0..<2 { values += (0..<290).map { _ in random.normal(sigma: 8) } + specials }
        return NumpyArray(shape: [2, 300], floats: values)
    }

    // Functions of one byte, on all 256 input values.
    static let unaries: [Recipe] = QuantizedType.allCases.flatMap { t -> [Recipe] in [
        ("logistic_\(t.name)", unary(.logistic, t, t, yq: (1 / 256, t.low), version: 2)),
        ("tanh_\(t.name)", unary(.tanh, t, t, yq: (1 / 128, t == .int8 ? 0 : 128), version: 2)),
        ("hard_swish_\(t.name)", unary(.hardSwish, t, t)),
        ("relu_\(t.name)", unary(.relu, t, t, version: 2)),
        ("relu6_\(t.name)", unary(.relu6, t, t, version: 2)),
        ("leaky_relu_\(t.name)", unary(.leakyRelu, t, t, options: .leakyRelu(alpha: 0.2), version: 2)),
        ("dequantize_\(t.name)", unary(.dequantize, t, nil, version: 2)),
        ("requantize_\(t.name)", unary(.quantize, t, t, version: 2)),
        ("requantize_\(t.name)_ratio_500", unary(.quantize, t, t, xq: (0.2, t == .int8 ? 3 : 120),
                                                 yq: (0.0004, t == .int8 ? 9 : 140), version: 2)),
        ("requantize_\(t.name)_to_\(t.other.name)", unary(.quantize, t, t.other, version: 2)),
        ("quantize_float_to_\(t.name)", unary(.quantize, nil, t, shape: [2, 300], version: 2,
                                              inputs: quantizeInputs)),
    ] } + [("elu_int8", unary(.elu, .int8, .int8))]

    /// All 256 values, then 7 more (TFLite's Requantize runs groups of 16 on its NEON path, the rest scalar).
    static func tailInputs(_ t: QuantizedType) -> (inout CaseRandom) -> NumpyArray {
        { _ in NumpyArray(shape: [1, 263], dtype: t.dtype, data: allBytes(t) + allBytes(t)[100..<107]) }
    }

    // Exact ties (a ratio of one half): the NEON path rounds them toward +infinity, the scalar tail away from zero.
    static let requantizeTails: [Recipe] = [(QuantizedType.int8, QuantizedType.uint8), (.uint8, .int8),
                                            (.int8, .int8)].map { s, d in
        ("requantize_\(s.name)_to_\(d.name)_ties_and_tail",
         unary(.quantize, s, d, shape: [1, 263], xq: (0.05, s == .int8 ? 3 : 131),
               yq: s != d ? (0.1, d == .int8 ? -7 : 121) : (0.0001, 5), version: 2, inputs: tailInputs(s)))
    } + [
        ("requantize_uint8_ratio_1_over_300_tail", unary(.quantize, .uint8, .uint8, shape: [1, 263], xq: (0.3, 140),
                                                         yq: (90, 128), version: 2, inputs: tailInputs(.uint8))),
        ("hard_swish_int8_tail", unary(.hardSwish, .int8, .int8, shape: [1, 263], inputs: tailInputs(.int8))),
    ]
}

// MARK: - Pooling, means, softmax, resizing, concatenation, padding

extension QuantizedOpCase {
    static func pool(_ code: BuiltinOperator, _ t: QuantizedType, _ shape: [Int], k: Int, stride: Int, padding: Padding,
                     activation: FusedActivation = .none) -> Make {
        { b in
            let q = b.random.q(t)
            let size = { (s: Int) in padding == .same ? (s + stride - 1) / stride : (s - k) / stride + 1 }
            let x = b.tensor("x", shape, t, q)
            let y = b.tensor("y", [shape[0], size(shape[1]), size(shape[2]), shape[3]], t, q)
            let o = OperatorOptions.Pool2D(padding: padding, strideW: stride, strideH: stride, filterW: k, filterH: k,
                                           activation: activation)
            b.op(code, version: 2, [x], [y], .pool2D(o), graphInputs: [x])
            return [b.random.values(shape, t)]
        }
    }

    static let pools: [Recipe] = QuantizedType.allCases.flatMap { t -> [Recipe] in
        [(BuiltinOperator.averagePool2D, "average_pool"), (.maxPool2D, "max_pool")].flatMap { code, name in [
            ("\(name)_\(t.name)_3x3_stride2_same", pool(code, t, [1, 9, 10, 13], k: 3, stride: 2, padding: .same)),
            ("\(name)_\(t.name)_2x2_valid_relu6", pool(code, t, [2, 7, 8, 6], k: 2, stride: 2, padding: .valid,
                                                       activation: .relu6)),
        ] } + [("average_pool_\(t.name)_global_7x7", pool(.averagePool2D, t, [1, 7, 7, 40], k: 7, stride: 1,
                                                           padding: .valid))]
    }

    static func mean(_ t: QuantizedType, _ shape: [Int], axes: [Int], keepDims: Bool) -> Make {
        { b in
            let x = b.tensor("x", shape, t, b.random.q(t))
            let a = b.int32s("axes", [axes.count], axes)
            let out = keepDims ? shape.indices.map { axes.contains($0) ? 1 : shape[$0] }
                : shape.indices.filter { !axes.contains($0) }.map { shape[$0] }
            let y = b.tensor("y", out, t, b.random.q(t))
            b.op(.mean, version: 2, [x, a], [y], .reducer(keepDims: keepDims), graphInputs: [x])
            return [b.random.values(shape, t)]
        }
    }

    static let means: [Recipe] = QuantizedType.allCases.flatMap { t -> [Recipe] in [
        ("mean_\(t.name)_spatial_keep_dims", mean(t, [1, 7, 6, 24], axes: [1, 2], keepDims: true)),
        ("mean_\(t.name)_spatial", mean(t, [2, 5, 5, 9], axes: [1, 2], keepDims: false)),
        ("mean_\(t.name)_last_axis", mean(t, [3, 4, 50], axes: [2], keepDims: false)),
    ] }

    static func softmax(_ t: QuantizedType, rows: Int, depth: Int, beta: Float) -> Make {
        { b in
            let x = b.tensor("x", [rows, depth], t, b.random.q(t, (0.02, 0.3)))
            let y = b.tensor("y", [rows, depth], t, (1 / 256, t.low))
            b.op(.softmax, version: 2, [x], [y], .softmax(beta: beta), graphInputs: [x])
            return [b.random.values([rows, depth], t)]
        }
    }

    static let softmaxes: [Recipe] = QuantizedType.allCases.flatMap { t -> [Recipe] in [
        ("softmax_\(t.name)", softmax(t, rows: 3, depth: 1000, beta: 1)),
        ("softmax_\(t.name)_beta", softmax(t, rows: 4, depth: 37, beta: 0.7)),
    ] }

    static func resize(_ code: BuiltinOperator, _ t: QuantizedType, _ shape: [Int], to size: [Int],
                       alignCorners: Bool = false, halfPixelCenters: Bool = false) -> Make {
        { b in
            let q = b.random.q(t)
            let x = b.tensor("x", shape, t, q)
            let s = b.int32s("size", [2], size)
            let y = b.tensor("y", [shape[0], size[0], size[1], shape[3]], t, q)
            let options: OperatorOptions = code == .resizeBilinear
                ? .resizeBilinear(alignCorners: alignCorners, halfPixelCenters: halfPixelCenters)
                : .resizeNearestNeighbor(alignCorners: alignCorners, halfPixelCenters: halfPixelCenters)
            b.op(code, version: 3, [x, s], [y], options, graphInputs: [x])
            return [b.random.values(shape, t)]
        }
    }

    static let resizes: [Recipe] = QuantizedType.allCases.flatMap { t -> [Recipe] in
        [(BuiltinOperator.resizeBilinear, "resize_bilinear"), (.resizeNearestNeighbor, "resize_nearest")].flatMap {
            code, name -> [Recipe] in [
                ("\(name)_\(t.name)", resize(code, t, [1, 5, 7, 6], to: [9, 13])),
                ("\(name)_\(t.name)_half_pixel", resize(code, t, [1, 5, 7, 6], to: [9, 13], halfPixelCenters: true)),
                ("\(name)_\(t.name)_align_corners", resize(code, t, [1, 5, 7, 6], to: [9, 13], alignCorners: true)),
                ("\(name)_\(t.name)_down", resize(code, t, [1, 6, 9, 3], to: [4, 5])),
            ]
        }
    }

    static func concatenation(_ t: QuantizedType, _ shapes: [[Int]], axis: Int, sameQuantization: Bool) -> Make {
        { b in
            let q = b.random.q(t)
            let xs = shapes.enumerated().map { i, s in b.tensor("x\(i)", s, t, sameQuantization ? q : b.random.q(t)) }
            var out = shapes[0]
            out[axis] = shapes.map { $0[axis] }.reduce(0, +)
            let y = b.tensor("y", out, t, sameQuantization ? q : b.random.q(t))
            b.op(.concatenation, version: 2, xs, [y], .concatenation(axis: axis, activation: .none), graphInputs: xs)
            return shapes.map { b.random.values($0, t) }
        }
    }

    static let concatenations: [Recipe] = QuantizedType.allCases.map { t in
        ("concatenation_\(t.name)_channels",
         concatenation(t, [[1, 3, 4, 5], [1, 3, 4, 7], [1, 3, 4, 2]], axis: 3, sameQuantization: true))
    } + [
        // Inputs quantized otherwise than the output: TFLite's built-in kernel requantizes uint8 ones (int8 ones it
        // refuses: its int8 CONCATENATION needs one scale and zero point throughout, and so does the engine).
        ("concatenation_uint8_other_scales",
         concatenation(.uint8, [[1, 3, 4, 5], [1, 2, 4, 5]], axis: 1, sameQuantization: false)),
    ]

    static func pad(_ t: QuantizedType, constant: Bool) -> Make {
        { b in
            let q = b.random.q(t)
            let x = b.tensor("x", [1, 4, 5, 6], t, q)
            let p = b.int32s("pads", [4, 2], [0, 0, 1, 2, 2, 1, 0, 3])
            let y = b.tensor("y", [1, 7, 8, 9], t, q)
            var inputs = [x, p]
            if constant {
                inputs.append(b.tensor("value", [1], t.tensorType, scales: [q.scale], zeroPoint: q.zeroPoint,
                                       data: [17]))
            }
            b.op(constant ? .padV2 : .pad, version: 2, inputs, [y], graphInputs: [x])
            return [b.random.values([1, 4, 5, 6], t)]
        }
    }

    static let pads: [Recipe] = QuantizedType.allCases.map { t in ("pad_\(t.name)", pad(t, constant: false)) }
        + [("padv2_int8", pad(.int8, constant: true))]
}

