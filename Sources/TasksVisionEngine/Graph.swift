import TasksVisionFormat

/// The engine's view of a model: tensors (with folded constants) and the nodes
/// that remain to run, after load-time folding and fusion.
struct Graph {
    struct Tensor {
        var name: String
        var shape: [Int]
        var type: TensorType
        /// Constant contents, for weights and for tensors folded at load (DEQUANTIZE, DENSIFY).
        var constant: ConstantData?
        /// The affine quantization of an int8, uint8 or int32 tensor (nil on float tensors).
        var quantization: TFLiteModel.Quantization? = nil
        var elementCount: Int { shape.reduce(1, *) }
        /// Whether the tensor holds 8-bit quantized values (the quantized ops' activations and weights).
        var isQuantized8Bit: Bool { (type == .int8 || type == .uint8) && quantization != nil }
    }

    /// Explicit spatial padding of a convolution or pool.
    struct SpatialPadding: Equatable {
        var top = 0, bottom = 0, left = 0, right = 0
    }

    struct Node {
        var op: BuiltinOperator
        /// Index of the operator in the model (for error messages).
        var index: Int
        var inputs: [Int]
        var outputs: [Int]
        var options: OperatorOptions
        /// A custom operator's name (`Convolution2DTransposeBias`) and options bytes.
        var customCode: String? = nil
        var customOptions: [UInt8] = []
        /// Padding taken over from a PAD op that fed this convolution.
        var fusedPadding: SpatialPadding? = nil
        /// Activation taken over from a following RELU/RELU6 op.
        var fusedActivation: FusedActivation? = nil
        /// Per-channel PReLU slopes taken over from a following PRELU op.
        var fusedPReLUAlpha: Int? = nil
        /// The other operand of an ADD folded into this convolution's epilogue.
        var fusedResidual: Int? = nil
        /// Channels of that operand when a zero channel PAD in front of the ADD was folded in too.
        var fusedResidualChannels = 0
        /// The per-channel constant of an ADD folded into this MUL: added to each stored product.
        var fusedShift: Int? = nil
        /// Whether XNNPACK's arm64 build runs this node in the NCHW layout of its sparse inference
        /// (`markSparseInference`), where its convolutions, depthwise convolutions and bilinear resizes sum in other
        /// orders than in NHWC.
        var sparseInference = false

        /// Every tensor the node reads, fused operands included.
        var reads: [Int] { inputs + [fusedPReLUAlpha, fusedResidual, fusedShift].compactMap { $0 } }
    }

    let modelName: String
    var tensors: [Tensor]
    /// The weights TFLite's XNNPACK delegate knows as sparse: DENSIFY outputs, and DEQUANTIZE outputs of them.
    var sparseWeights = Set<Int>()
    var nodes: [Node]
    var inputs: [Int]
    var outputs: [Int]

    init(model: TFLiteModel) throws {
        guard let sg = model.subgraphs.first else {
            throw EngineError.invalidModel(model: model.name, reason: "no subgraph")
        }
        modelName = model.name
        inputs = sg.inputs
        outputs = sg.outputs
        tensors = sg.tensors.map { t in
            var constant: ConstantData? = nil
            if let data = model.constantData(of: t) { constant = ConstantData(type: t.type, bytes: data) }
            return Tensor(name: t.name, shape: t.shape, type: t.type, constant: constant, quantization: t.quantization)
        }
        // Check constant sizes against shapes (sparse tensors hold fewer values).
        for t in sg.tensors where t.sparsity == nil {
            if let c = tensors[t.index].constant, t.type.byteSize > 0,
                c.bytes.count != t.elementCount * t.type.byteSize {
                throw EngineError.invalidModel(model: modelName, reason: "tensor \(t.index) '\(t.name)' has "
                        + "\(c.bytes.count) bytes of data but its shape \(t.shape) of \(t.type) needs "
                        + "\(t.elementCount * t.type.byteSize)")
            }
        }
        nodes = []
        for op in sg.operators {
            if op.opcode == .custom && !OpRegistry.isSupported(custom: op.customCode) {
                throw EngineError.unsupportedOperator(model: modelName, operatorIndex: op.index,
                                                      op: "CUSTOM(\(op.customCode ?? "?"))")
            }
            try Self.checkArity(op, model: modelName)
            nodes.append(Node(op: op.opcode, index: op.index, inputs: op.inputs, outputs: op.outputs,
                              options: op.options, customCode: op.customCode, customOptions: op.customOptions))
        }
        try foldConstants(model: model, subgraph: sg)
    }

    func describe(_ node: Node) -> String { "operator \(node.index) (\(node.customCode ?? node.op.name))" }

    /// Every operator needs an output, and only the inputs TFLite declares optional may be
    /// absent (-1): the bias of CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED, and the shape
    /// of RESHAPE. Checked once here so that fusion and the op builders can index freely.
    static func checkArity(_ op: TFLiteModel.Operator, model: String) throws {
        let what = "operator \(op.index) (\(op.opcode.name))"
        guard !op.outputs.isEmpty else {
            throw EngineError.invalidModel(model: model, reason: "\(what) has no outputs")
        }
        guard !op.inputs.isEmpty else { throw EngineError.invalidModel(model: model, reason: "\(what) has no inputs") }
        for (i, t) in op.inputs.enumerated() where t < 0 {
            let optional: Bool
            switch op.opcode {
            case .conv2D, .depthwiseConv2D, .fullyConnected: optional = i == 2
            case .reshape: optional = i == 1
            default: optional = false
            }
            guard optional else {
                throw EngineError.invalidModel(model: model, reason: "\(what) input \(i) is missing")
            }
        }
    }

    /// Evaluates at load the nodes whose inputs are all constant and which only convert weights:
    /// DEQUANTIZE (fp16, read as fp32 wherever it is used), DENSIFY (sparse → dense) and RESHAPE
    /// of a constant.
    mutating func foldConstants(model: TFLiteModel, subgraph sg: TFLiteModel.Subgraph) throws {
        var kept: [Node] = []
        for node in nodes {
            let constantInputs = node.inputs.allSatisfy { $0 < 0 || tensors[$0].constant != nil }
            guard constantInputs, let out = node.outputs.first, !outputs.contains(out) else {
                kept.append(node); continue
            }
            switch node.op {
            case .dequantize:
                guard let input = node.inputs.first, input >= 0, let c = tensors[input].constant else {
                    kept.append(node); continue
                }
                if c.type == .int8 || c.type == .uint8 {
                    // Quantized weights of a float op: their float values, once (`QuantizedWeights.dequantized`).
                    do {
                        tensors[out].constant = try QuantizedWeights.dequantized(tensors[input], model: modelName)
                    } catch let error as EngineError { throw error.naming(node) }
                    continue
                }
                guard c.type == .float16 || c.type == .float32 else {
                    throw EngineError.unsupportedFeature(model: modelName, operatorIndex: node.index, op: "DEQUANTIZE",
                        reason: "dequantizing \(c.type) weights is not supported (only float16, int8 and uint8)")
                }
                guard c.count == tensors[out].elementCount else {
                    throw EngineError.invalidModel(model: modelName,
                        reason: "\(describe(node)) input has \(c.count) values for output shape \(tensors[out].shape)")
                }
                // The float16 data itself: converted when a layer reads or packs it, so the model's
                // weights are never held as float32 beside their packed copy.
                tensors[out].constant = c
                if sparseWeights.contains(input) { sparseWeights.insert(out) }
            case .densify:
                guard let input = node.inputs.first, input >= 0, let c = tensors[input].constant,
                      let sparsity = sg.tensors[input].sparsity else {
                    throw EngineError.invalidModel(model: modelName,
                                                   reason: "\(describe(node)) input has no sparsity parameters")
                }
                let dense = try Densify.densify(values: c, sparsity: sparsity, denseShape: tensors[input].shape,
                                                what: "\(modelName): \(describe(node))")
                guard dense.count == tensors[out].elementCount else {
                    throw EngineError.invalidModel(model: modelName,
                        reason: "\(describe(node)) output shape \(tensors[out].shape) does not match its input")
                }
                tensors[out].constant = dense
                sparseWeights.insert(out)
            case .reshape:
                guard let input = node.inputs.first, input >= 0, let c = tensors[input].constant else {
                    kept.append(node); continue
                }
                tensors[out].constant = c
            default:
                kept.append(node)
            }
        }
        nodes = kept
    }

    /// How many nodes read each tensor, plus one for each graph output.
    func consumerCounts() -> [Int] {
        var counts = [Int](repeating: 0, count: tensors.count)
        for n in nodes { for i in n.reads where i >= 0 { counts[i] += 1 } }
        for o in outputs { counts[o] += 1 }
        return counts
    }
}
