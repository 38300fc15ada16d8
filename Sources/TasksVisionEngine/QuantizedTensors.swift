import TasksVisionFormat

/// The checked quantization of one 8-bit activation tensor: its type's range, one scale, one zero point.
struct QuantizedActivation: Equatable {
    let type: TensorType
    let scale: Float
    let zeroPoint: Int32
    var lo: Int32 { type.quantizedRange?.lo ?? -128 }
    var hi: Int32 { type.quantizedRange?.hi ?? 127 }
}

/// Reading and checking quantized tensors: activations (per-tensor), weights (per-tensor or per-channel along
/// `quantized_dimension`), int32 biases; and the float values of quantized weights read by a float op.
enum QuantizedWeights {
    /// The scale and zero point of an int8 or uint8 activation tensor, checked: one positive finite scale, a zero
    /// point within the type's range.
    static func activation(_ graph: Graph, _ t: Int) throws -> QuantizedActivation {
        let tensor = graph.tensors[t]
        guard let range = tensor.type.quantizedRange else {
            throw EngineError.invalidModel(model: graph.modelName,
                                           reason: "tensor '\(tensor.name)' is \(tensor.type), not int8 or uint8")
        }
        guard let q = tensor.quantization, !q.scales.isEmpty else {
            throw EngineError.invalidQuantization(model: graph.modelName, tensor: tensor.name,
                                                  reason: "\(tensor.type) without a scale and zero point")
        }
        guard q.scales.count == 1, q.zeroPoints.count <= 1 else {
            throw EngineError.invalidQuantization(model: graph.modelName, tensor: tensor.name,
                reason: "\(q.scales.count) scales on an activation; only weights may have one per channel")
        }
        let zeroPoint = q.zeroPoints.first ?? 0
        try checkScale(q.scales[0], graph, tensor)
        guard zeroPoint >= Int64(range.lo) && zeroPoint <= Int64(range.hi) else {
            throw EngineError.invalidQuantization(model: graph.modelName, tensor: tensor.name,
                reason: "zero point \(zeroPoint) outside the \(tensor.type) range \(range.lo)...\(range.hi)")
        }
        return QuantizedActivation(type: tensor.type, scale: q.scales[0], zeroPoint: Int32(zeroPoint))
    }

    static func checkScale(_ scale: Float, _ graph: Graph, _ tensor: Graph.Tensor, channel: Int? = nil) throws {
        guard scale > 0 && scale.isFinite else {
            throw EngineError.invalidQuantization(model: graph.modelName, tensor: tensor.name,
                reason: "scale \(scale)\(channel.map { " of channel \($0)" } ?? ""); scales must be positive and "
                        + "finite")
        }
    }

    /// The per-channel scales of a constant int8 weight tensor along `dimension` (`channels` of them; one per-tensor
    /// scale repeated), checked: positive finite scales, zero points all 0 (TFLite's and XNNPACK's int8 filters).
    static func weightScales(_ graph: Graph, _ t: Int, dimension: Int, channels: Int) throws -> [Float] {
        let tensor = graph.tensors[t]
        guard tensor.type == .int8, tensor.constant != nil else {
            throw EngineError.invalidModel(model: graph.modelName,
                                           reason: "weights '\(tensor.name)' are \(tensor.type)"
                                                   + "\(tensor.constant == nil ? ", not a constant" : "")")
        }
        guard let q = tensor.quantization, !q.scales.isEmpty else {
            throw EngineError.invalidQuantization(model: graph.modelName, tensor: tensor.name,
                                                  reason: "int8 weights without a scale")
        }
        if q.scales.count > 1 {
            guard q.scales.count == channels, q.quantizedDimension == dimension else {
                throw EngineError.invalidQuantization(model: graph.modelName, tensor: tensor.name,
                    reason: "\(q.scales.count) scales along dimension \(q.quantizedDimension) of \(tensor.shape); "
                            + "expected \(channels) along dimension \(dimension)")
            }
        }
        for (c, s) in q.scales.enumerated() { try checkScale(s, graph, tensor, channel: q.scales.count > 1 ? c : nil) }
        if let bad = q.zeroPoints.first(where: { $0 != 0 }) {
            throw EngineError.invalidQuantization(model: graph.modelName, tensor: tensor.name,
                reason: "zero point \(bad) on int8 weights; int8 filters are symmetric (zero point 0)")
        }
        return q.scales.count == 1 ? [Float](repeating: q.scales[0], count: channels) : q.scales
    }

    /// A constant's bytes as int8 values.
    static func int8s(_ graph: Graph, _ t: Int) -> [Int8] {
        guard let c = graph.tensors[t].constant else { return [] }
        return c.bytes.map { Int8(bitPattern: $0) }
    }

    /// An int32 bias of `count` values (zeros when the op has none), checked against its count.
    static func bias(_ graph: Graph, _ node: Graph.Node, input i: Int, count: Int) throws -> [Int32] {
        guard i < node.inputs.count, node.inputs[i] >= 0 else { return [Int32](repeating: 0, count: count) }
        let tensor = graph.tensors[node.inputs[i]]
        guard tensor.type == .int32, let c = tensor.constant, c.bytes.count == count * 4 else {
            let constant = tensor.constant == nil ? ", not a constant" : ""
            throw EngineError.unsupportedFeature(model: graph.modelName, operatorIndex: node.index, op: node.op.name,
                reason: "bias '\(tensor.name)' is \(tensor.type) \(tensor.shape)\(constant); a quantized op takes a "
                        + "constant int32 bias of \(count) values")
        }
        return c.bytes.withUnsafeBytes { raw in (0..<count).map { raw.loadUnaligned(fromByteOffset: 4 * $0,
                                                                                      as: Int32.self) } }
    }

    /// The float values of constant int8 or uint8 weights (`scale * (q - zeroPoint)`, per channel along the
    /// quantized dimension), for a DEQUANTIZE folded at load in front of a float op.
    static func dequantized(_ tensor: Graph.Tensor, model: String) throws -> ConstantData {
        guard let c = tensor.constant, let q = tensor.quantization, !q.scales.isEmpty else {
            throw EngineError.invalidQuantization(model: model, tensor: tensor.name,
                                                  reason: "\(tensor.type) weights without a scale")
        }
        let shape = tensor.shape
        let perChannel = q.scales.count > 1
        let dimension = q.quantizedDimension
        guard !perChannel || (dimension >= 0 && dimension < shape.count && shape[dimension] == q.scales.count) else {
            throw EngineError.invalidQuantization(model: model, tensor: tensor.name,
                reason: "\(q.scales.count) scales along dimension \(dimension) of \(shape)")
        }
        let inner = perChannel ? shape[(dimension + 1)...].reduce(1, *) : 1
        var values = [Float](repeating: 0, count: c.bytes.count)
        for (i, byte) in c.bytes.enumerated() {
            let channel = perChannel ? (i / inner) % q.scales.count : 0
            let zp = Int32(q.zeroPoints.count > channel ? q.zeroPoints[channel] : (q.zeroPoints.first ?? 0))
            let v = tensor.type == .int8 ? Int32(Int8(bitPattern: byte)) : Int32(byte)
            values[i] = Float(v - zp) * q.scales[channel]
        }
        return .float32(values)
    }
}
