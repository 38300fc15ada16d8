import TasksVisionFormat

/// Where a builder finds the memory of each tensor.
struct TensorBinder {
    let graph: Graph
    let pointers: [UnsafeMutablePointer<Float>?]
    /// The kernel set's microkernels, for the layers that take theirs from it.
    var kernels: Microkernels = .portable
    /// The interpreter's threads (blocks split their work for them).
    var threads = 1
    /// Whether blocks become interleaved layers (`Interpreter.Options.interleavesBlocks`).
    var interleavesBlocks = true
    /// `Interpreter.Options.reducesOverUnitAxesContiguously`.
    var reducesOverUnitAxesContiguously = false

    func pointer(_ t: Int, _ node: Graph.Node) throws -> UnsafeMutablePointer<Float> {
        guard t >= 0, t < pointers.count, let p = pointers[t] else {
            throw EngineError.invalidModel(model: graph.modelName,
                                           reason: "\(graph.describe(node)) reads tensor \(t), which has no data")
        }
        return p
    }
    func input(_ node: Graph.Node, _ i: Int) throws -> UnsafePointer<Float> {
        guard i < node.inputs.count else {
            throw EngineError.invalidModel(model: graph.modelName,
                reason: "\(graph.describe(node)) has \(node.inputs.count) inputs, needs at least \(i + 1)")
        }
        return UnsafePointer(try pointer(node.inputs[i], node))
    }
    /// A filter's values for the duration of `body`: from the constant buffer, or, for a filter
    /// the kernel set packs (which gets no place there), from a temporary copy.
    func withFilter<R>(_ node: Graph.Node, _ i: Int, _ body: (UnsafePointer<Float>) throws -> R) throws -> R {
        guard i < node.inputs.count, node.inputs[i] >= 0, node.inputs[i] < pointers.count else {
            throw EngineError.invalidModel(model: graph.modelName, reason: "\(graph.describe(node)) has no input \(i)")
        }
        let t = node.inputs[i]
        if let p = pointers[t] { return try body(UnsafePointer(p)) }
        // float32 weights in the model's own bytes are read where they are (a packing layer copies them once more;
        // a float copy here would be a third, a large fully connected layer's peak), when they are aligned.
        if let c = graph.tensors[t].constant, c.type == .float32, c.count >= graph.tensors[t].elementCount,
           let result = try c.bytes.withUnsafeBytes({ raw -> R? in
               guard let base = raw.baseAddress, Int(bitPattern: base) % MemoryLayout<Float>.alignment == 0,
                     !raw.isEmpty else { return nil }
               return try raw.withMemoryRebound(to: Float.self) { floats in
                   guard let p = floats.baseAddress else { return nil }
                   return try body(p)
               }
           }) {
            return result
        }
        guard let values = graph.tensors[t].constant?.floats(), values.count >= graph.tensors[t].elementCount else {
            throw EngineError.invalidModel(model: graph.modelName,
                                           reason: "\(graph.describe(node)) reads tensor \(t), which has no data")
        }
        return try values.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else {
                throw EngineError.invalidModel(model: graph.modelName,
                                               reason: "\(graph.describe(node)) reads tensor \(t), which is empty")
            }
            return try body(base)
        }
    }

    func output(_ node: Graph.Node, _ i: Int = 0) throws -> UnsafeMutablePointer<Float> {
        guard i < node.outputs.count else {
            throw EngineError.invalidModel(model: graph.modelName, reason: "\(graph.describe(node)) has no output \(i)")
        }
        return try pointer(node.outputs[i], node)
    }
}

/// The operators the engine implements, each with the function that turns a
/// graph node into a layer (as tract's TFLite op registry does).
enum OpRegistry {
    typealias Builder = (Graph.Node, Graph, TensorBinder) throws -> Layer

    static let builders: [BuiltinOperator: Builder] = [
        .conv2D: buildConv2D,
        .depthwiseConv2D: buildDepthwiseConv2D,
        .fullyConnected: buildFullyConnected,
        .add: { try buildBinary($0, $1, $2, .add) },
        .sub: { try buildBinary($0, $1, $2, .sub) },
        .mul: { try buildBinary($0, $1, $2, .mul) },
        .div: { try buildBinary($0, $1, $2, .div) },
        .maximum: { try buildBinary($0, $1, $2, .maximum) },
        .minimum: { try buildBinary($0, $1, $2, .minimum) },
        .squaredDifference: { try buildBinary($0, $1, $2, .squaredDifference) },
        .prelu: { try buildBinary($0, $1, $2, .prelu) },
        .relu: { try buildUnary($0, $1, $2, .relu) },
        .relu6: { try buildUnary($0, $1, $2, .relu6) },
        .reluN1To1: { try buildUnary($0, $1, $2, .reluN1To1) },
        .logistic: { try buildUnary($0, $1, $2, .logistic) },
        .tanh: { try buildUnary($0, $1, $2, .tanh) },
        .neg: { try buildUnary($0, $1, $2, .neg) },
        .sqrt: { try buildUnary($0, $1, $2, .sqrt) },
        .rsqrt: { try buildUnary($0, $1, $2, .rsqrt) },
        .transpose: buildTranspose,
        .hardSwish: { try buildUnary($0, $1, $2, .hardSwish) },
        .averagePool2D: buildAveragePool2D,
        .maxPool2D: buildMaxPool2D,
        .pad: buildPad,
        .padV2: buildPad,
        .reshape: buildCopy,
        .squeeze: buildCopy,
        .expandDims: buildCopy,
        .concatenation: buildConcatenation,
        .resizeBilinear: buildResizeBilinear,
        .depthToSpace: buildDepthToSpace,
        .mean: { try buildReduce($0, $1, $2, .mean) },
        .sum: { try buildReduce($0, $1, $2, .sum) },
        .reduceMax: { try buildReduce($0, $1, $2, .max) },
        .reduceMin: { try buildReduce($0, $1, $2, .min) },
        .gather: buildGather,
        .unpack: buildUnpack,
        .stridedSlice: buildStridedSlice,
        .softmax: buildSoftmax,
    ]

    /// Custom operators by name (MediaPipe's, as TFLite's XNNPACK delegate takes them).
    static let customBuilders: [String: Builder] = [
        "Convolution2DTransposeBias": buildConvolution2DTransposeBias,
    ]

    static func isSupported(custom code: String?) -> Bool { code.map { customBuilders[$0] != nil } ?? false }

    /// Ops that only change the view of their input: the output shares the input's memory.
    static let aliasing: Set<BuiltinOperator> = [.reshape, .squeeze, .expandDims]

    static func isSupported(_ op: BuiltinOperator) -> Bool { builders[op] != nil }

    static func makeLayer(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        if QuantizedOps.isQuantized(node, graph) {
            do { return try QuantizedOps.makeLayer(node, graph, binder) } catch let error as EngineError {
                throw error.naming(node)
            }
        }
        if node.op == .custom, let code = node.customCode, let builder = customBuilders[code] {
            return try builder(node, graph, binder)
        }
        guard let builder = builders[node.op] else {
            throw EngineError.unsupportedOperator(model: graph.modelName, operatorIndex: node.index, op: node.op.name)
        }
        return try builder(node, graph, binder)
    }

    // MARK: helpers

    static func fail(_ graph: Graph, _ node: Graph.Node, _ reason: String) -> EngineError {
        .unsupportedFeature(model: graph.modelName, operatorIndex: node.index, op: node.customCode ?? node.op.name,
                            reason: reason)
    }

    static func shape(_ graph: Graph, _ t: Int) -> [Int] {
        t >= 0 && t < graph.tensors.count ? graph.tensors[t].shape : []
    }

    static func constantInts(_ graph: Graph, _ node: Graph.Node, input i: Int, what: String) throws -> [Int] {
        guard i < node.inputs.count, node.inputs[i] >= 0, let c = graph.tensors[node.inputs[i]].constant,
            let v = c.ints() else {
            throw fail(graph, node, "\(what) must be a constant int32 tensor")
        }
        return v
    }

    static func epilogue(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder, own: FusedActivation,
                         bias: Int?) throws -> Epilogue {
        var e = Epilogue()
        if let b = bias, b >= 0 { e.bias = UnsafePointer(try binder.pointer(b, node)) }
        e.activation = node.fusedActivation ?? own
        if e.activation == .signBit { throw fail(graph, node, "fused activation SIGN_BIT is not supported") }
        if let a = node.fusedPReLUAlpha { e.alpha = UnsafePointer(try binder.pointer(a, node)) }
        if let r = node.fusedResidual {
            e.residual = UnsafePointer(try binder.pointer(r, node))
            e.residualChannels = node.fusedResidualChannels
        }
        return e
    }

    static func requireRank(_ graph: Graph, _ node: Graph.Node, _ s: [Int], _ rank: Int, _ what: String) throws {
        if s.count != rank { throw fail(graph, node, "\(what) has shape \(s), expected rank \(rank)") }
    }

    // MARK: builders

    static func convGeometry(_ graph: Graph, _ node: Graph.Node, input: [Int], output: [Int], kH: Int, kW: Int,
                             padding: Padding, strideH: Int, strideW: Int, dilationH: Int,
                             dilationW: Int) throws -> ConvGeometry {
        try requireRank(graph, node, input, 4, "input")
        try requireRank(graph, node, output, 4, "output")
        guard strideH > 0, strideW > 0, dilationH > 0, dilationW > 0, kH > 0, kW > 0 else {
            throw fail(graph, node, "strides \(strideH)x\(strideW), dilation \(dilationH)x\(dilationW), kernel "
                                    + "\(kH)x\(kW) must be positive")
        }
        var inH = input[1], inW = input[2]
        var padTop = 0, padLeft = 0, outH: Int, outW: Int
        if let p = node.fusedPadding {
            inH += p.top + p.bottom; inW += p.left + p.right
            padTop = p.top; padLeft = p.left
            outH = ConvGeometry.padding(.valid, input: inH, kernel: kH, stride: strideH, dilation: dilationH).out
            outW = ConvGeometry.padding(.valid, input: inW, kernel: kW, stride: strideW, dilation: dilationW).out
        } else {
            let y = ConvGeometry.padding(padding, input: inH, kernel: kH, stride: strideH, dilation: dilationH)
            let x = ConvGeometry.padding(padding, input: inW, kernel: kW, stride: strideW, dilation: dilationW)
            outH = y.out; outW = x.out; padTop = y.before; padLeft = x.before
        }
        guard outH == output[1], outW == output[2], output[0] == input[0] else {
            throw EngineError.invalidModel(model: graph.modelName, reason: "\(graph.describe(node)) output shape "
                    + "\(output) does not follow from input \(input) (expected \(outH)x\(outW))")
        }
        return ConvGeometry(batch: input[0], inH: input[1], inW: input[2], inC: input[3], outH: outH, outW: outW,
                            outC: output[3],
                            kH: kH, kW: kW, strideH: strideH, strideW: strideW, dilationH: dilationH,
                            dilationW: dilationW,
                            padTop: padTop, padLeft: padLeft)
    }

    static func buildConv2D(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        try buildConvolution(node, graph, binder)
    }

    static func buildDepthwiseConv2D(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        try buildDepthwise(node, graph, binder)
    }

    static func buildConvolution(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Conv2DLayer {
        guard case .conv2D(let o) = node.options, node.inputs.count >= 2 else {
            throw fail(graph, node, "missing options or inputs")
        }
        let w = shape(graph, node.inputs[1])
        try requireRank(graph, node, w, 4, "filter")
        guard graph.tensors[node.inputs[1]].constant != nil else { throw fail(graph, node, "filter must be constant") }
        let input = shape(graph, node.inputs[0]), output = shape(graph, node.outputs[0])
        var g = try convGeometry(graph, node, input: input, output: output, kH: w[1], kW: w[2], padding: o.padding,
                                 strideH: o.strideH, strideW: o.strideW, dilationH: o.dilationH, dilationW: o.dilationW)
        guard w[0] == output[3] else {
            throw fail(graph, node, "filter \(w) has \(w[0]) output channels, output has \(output[3])")
        }
        guard w[3] == input[3] else {
            throw fail(graph, node, "grouped convolution (filter \(w), input \(input)) is not supported")
        }
        g.outC = w[0]
        let bias = node.inputs.count > 2 ? node.inputs[2] : -1
        if bias >= 0 && graph.tensors[bias].elementCount != w[0] {
            throw fail(graph, node, "bias of \(graph.tensors[bias].elementCount) values for \(w[0]) channels")
        }
        let inputPointer = try binder.pointer(node.inputs[0], node), outputPointer = try binder.output(node)
        let epilogue = try epilogue(node, graph, binder, own: o.activation, bias: bias)
        return try binder.withFilter(node, 1) { weights in
            Conv2DLayer(geometry: g, input: inputPointer, output: outputPointer, weights: weights, epilogue: epilogue,
                        kernels: binder.kernels, sparseInference: node.sparseInference)
        }
    }

    static func buildDepthwise(_ node: Graph.Node, _ graph: Graph,
                               _ binder: TensorBinder) throws -> DepthwiseConv2DLayer {
        guard case .depthwiseConv2D(let o) = node.options, node.inputs.count >= 2 else {
            throw fail(graph, node, "missing options or inputs")
        }
        let w = shape(graph, node.inputs[1])
        try requireRank(graph, node, w, 4, "filter")
        let input = shape(graph, node.inputs[0]), output = shape(graph, node.outputs[0])
        let g = try convGeometry(graph, node, input: input, output: output, kH: w[1], kW: w[2], padding: o.padding,
                                 strideH: o.strideH, strideW: o.strideW, dilationH: o.dilationH, dilationW: o.dilationW)
        guard w[0] == 1, w[3] == output[3], input[3] > 0, output[3] % input[3] == 0 else {
            throw fail(graph, node, "filter \(w) does not fit input \(input) and output \(output)")
        }
        let bias = node.inputs.count > 2 ? node.inputs[2] : -1
        if bias >= 0 && graph.tensors[bias].elementCount != w[3] {
            throw fail(graph, node, "bias of \(graph.tensors[bias].elementCount) values for \(w[3]) channels")
        }
        return DepthwiseConv2DLayer(geometry: g, multiplier: output[3] / input[3],
                                    input: try binder.pointer(node.inputs[0], node),
                                    output: try binder.output(node), weights: try binder.input(node, 1),
                                    epilogue: try epilogue(node, graph, binder, own: o.activation, bias: bias),
                                    kernels: binder.kernels, sparseInference: node.sparseInference)
    }

    static func buildFullyConnected(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        guard case .fullyConnected(let o) = node.options, node.inputs.count >= 2 else {
            throw fail(graph, node, "missing options or inputs")
        }
        guard o.weightsFormat == 0 else { throw fail(graph, node, "shuffled weights format \(o.weightsFormat)") }
        let w = shape(graph, node.inputs[1])
        try requireRank(graph, node, w, 2, "weights")
        let inCount = graph.tensors[node.inputs[0]].elementCount
        guard w[1] > 0, inCount % w[1] == 0 else {
            throw fail(graph, node, "input of \(inCount) values does not split into rows of \(w[1])")
        }
        let rows = inCount / w[1]
        guard graph.tensors[node.outputs[0]].elementCount == rows * w[0] else {
            throw fail(graph, node,
                       "output shape \(shape(graph, node.outputs[0])) does not hold \(rows)x\(w[0]) values")
        }
        let bias = node.inputs.count > 2 ? node.inputs[2] : -1
        if bias >= 0 && graph.tensors[bias].elementCount != w[0] {
            throw fail(graph, node, "bias of \(graph.tensors[bias].elementCount) values for \(w[0]) units")
        }
        let input = try binder.input(node, 0), output = try binder.output(node)
        let epilogue = try epilogue(node, graph, binder, own: o.activation, bias: bias)
        return try binder.withFilter(node, 1) { weights in
            FullyConnectedLayer(input: input, weights: weights, output: output, rows: rows, inputs: w[1], units: w[0],
                                epilogue: epilogue, kernels: binder.kernels)
        }
    }

    static func buildBinary(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder,
                            _ operation: BinaryOperation) throws -> Layer {
        guard node.inputs.count == 2 else { throw fail(graph, node, "expects 2 inputs") }
        let a = shape(graph, node.inputs[0]), b = shape(graph, node.inputs[1]), out = shape(graph, node.outputs[0])
        guard let s = BinaryElementwiseLayer.broadcastShape(a, b), s.reduce(1, *) == out.reduce(1, *),
            s.count <= 6 else {
            throw fail(graph, node, "shapes \(a) and \(b) do not broadcast to \(out)")
        }
        var own = FusedActivation.none
        if case .activation(let act) = node.options { own = act }
        if let shift = node.fusedShift, graph.tensors[shift].elementCount != max(s.last ?? 1, 1) {
            throw fail(graph, node,
                "the folded ADD's constant has \(graph.tensors[shift].elementCount) values for \(s.last ?? 1) channels")
        }
        return BinaryElementwiseLayer(kind: node.op.name, operation: operation, a: try binder.input(node, 0), aShape: a,
                                      b: try binder.input(node, 1), bShape: b, output: try binder.output(node),
                                      outShape: s, epilogue: try epilogue(node, graph, binder, own: own,
                                                                          bias: node.fusedShift),
                                      kernels: binder.kernels)
    }

    static func buildUnary(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder,
                           _ f: UnaryElementwiseLayer.Function) throws -> Layer {
        let count = graph.tensors[node.outputs[0]].elementCount
        guard graph.tensors[node.inputs[0]].elementCount == count else {
            throw fail(graph, node, "input and output sizes differ")
        }
        return UnaryElementwiseLayer(kind: node.op.name, function: f, input: try binder.input(node, 0),
                                     output: try binder.output(node), count: count,
                                     kernels: binder.kernels)
    }

    static func buildMaxPool2D(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        guard case .pool2D(let o) = node.options else { throw fail(graph, node, "missing options") }
        let input = shape(graph, node.inputs[0]), output = shape(graph, node.outputs[0])
        let g = try convGeometry(graph, node, input: input, output: output, kH: o.filterH, kW: o.filterW,
                                 padding: o.padding,
                                 strideH: o.strideH, strideW: o.strideW, dilationH: 1, dilationW: 1)
        guard input[3] == output[3] else { throw fail(graph, node, "channels change from \(input[3]) to \(output[3])") }
        return MaxPool2DLayer(geometry: g, input: try binder.input(node, 0), output: try binder.output(node),
                              epilogue: try epilogue(node, graph, binder, own: o.activation, bias: nil),
                              kernels: binder.kernels)
    }

    static func buildAveragePool2D(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        guard case .pool2D(let o) = node.options else { throw fail(graph, node, "missing options") }
        let input = shape(graph, node.inputs[0]), output = shape(graph, node.outputs[0])
        let g = try convGeometry(graph, node, input: input, output: output, kH: o.filterH, kW: o.filterW,
                                 padding: o.padding, strideH: o.strideH, strideW: o.strideW, dilationH: 1, dilationW: 1)
        guard input[3] == output[3] else { throw fail(graph, node, "channels change from \(input[3]) to \(output[3])") }
        // XNNPACK leaves padded positions out of the average (its pavgpool kernels); only unpadded windows here.
        let v = ConvGeometry.padding(o.padding, input: input[1], kernel: o.filterH, stride: o.strideH, dilation: 1)
        let h = ConvGeometry.padding(o.padding, input: input[2], kernel: o.filterW, stride: o.strideW, dilation: 1)
        guard v.before + v.after + h.before + h.after == 0, node.fusedPadding == nil else {
            throw fail(graph, node, "padded windows (\(o.filterH)x\(o.filterW) over \(input[1])x\(input[2]), "
                                    + "stride \(o.strideH)x\(o.strideW)) are not supported")
        }
        return AveragePool2DLayer(geometry: g, input: try binder.input(node, 0), output: try binder.output(node),
                                  epilogue: try epilogue(node, graph, binder, own: o.activation, bias: nil),
                                  kernels: binder.kernels)
    }

    static func buildConvolution2DTransposeBias(_ node: Graph.Node, _ graph: Graph,
                                                _ binder: TensorBinder) throws -> Layer {
        guard node.inputs.count == 3 else { throw fail(graph, node, "expects 3 inputs (input, filter, bias)") }
        // TfLiteTransposeConvParams: padding (1 SAME, 2 VALID), stride width, stride height.
        let o = node.customOptions
        guard o.count >= 12 else { throw fail(graph, node, "custom options of \(o.count) bytes, expected 12") }
        let word = { (i: Int) in Int(Int32(bitPattern: UInt32(o[i]) | UInt32(o[i + 1]) << 8 | UInt32(o[i + 2]) << 16
                                                         | UInt32(o[i + 3]) << 24)) }
        let padding = word(0), strideW = word(4), strideH = word(8)
        let input = shape(graph, node.inputs[0]), w = shape(graph, node.inputs[1])
        let output = shape(graph, node.outputs[0])
        try requireRank(graph, node, input, 4, "input")
        try requireRank(graph, node, w, 4, "filter")
        try requireRank(graph, node, output, 4, "output")
        guard graph.tensors[node.inputs[1]].constant != nil, graph.tensors[node.inputs[2]].constant != nil else {
            throw fail(graph, node, "filter and bias must be constant")
        }
        guard padding == 1 || padding == 2 else {
            throw fail(graph, node, "padding \(padding) is neither SAME (1) nor VALID (2)")
        }
        guard w[3] == input[3], w[0] == output[3], graph.tensors[node.inputs[2]].elementCount == w[0] else {
            throw fail(graph, node, "filter \(w) and bias do not fit input \(input) and output \(output)")
        }
        // A kernel equal to the stride over an output of input x stride: no padding, one tap per output pixel.
        guard w[1] == strideH, w[2] == strideW,
              output == [input[0], input[1] * strideH, input[2] * strideW, w[0]] else {
            throw fail(graph, node, "only kernels equal to the strides are supported (filter \(w), strides "
                                    + "\(strideH)x\(strideW), input \(input), output \(output))")
        }
        let inputPointer = try binder.pointer(node.inputs[0], node), outputPointer = try binder.output(node)
        return try binder.withFilter(node, 1) { filter in
            try binder.withFilter(node, 2) { bias in
                Convolution2DTransposeBiasLayer(batch: input[0], inH: input[1], inW: input[2], inC: input[3],
                                                kH: w[1], kW: w[2], outC: w[0], input: inputPointer, filter: filter,
                                                bias: bias, output: outputPointer, kernels: binder.kernels)
            }
        }
    }

    static func buildPad(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        let input = shape(graph, node.inputs[0]), output = shape(graph, node.outputs[0])
        let pads = try constantInts(graph, node, input: 1, what: "paddings")
        guard pads.count == 2 * input.count, input.count <= 6, pads.allSatisfy({ $0 >= 0 }) else {
            throw fail(graph, node, "paddings \(pads) for input \(input)")
        }
        var expected: [Int] = []
        for d in 0..<input.count { expected.append(input[d] + pads[2 * d] + pads[2 * d + 1]) }
        guard expected == output else {
            throw fail(graph, node, "output \(output) does not match padded input \(expected)")
        }
        var value: Float = 0
        if node.inputs.count > 2, node.inputs[2] >= 0 {
            guard let v = graph.tensors[node.inputs[2]].constant?.floats()?.first else {
                throw fail(graph, node, "pad value must be a constant")
            }
            value = v
        }
        return PadLayer(input: try binder.input(node, 0), inShape: input, output: try binder.output(node),
                        outShape: output,
                        before: (0..<input.count).map { pads[2 * $0] }, value: value)
    }

    static func buildCopy(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        let count = graph.tensors[node.outputs[0]].elementCount
        guard graph.tensors[node.inputs[0]].elementCount == count else {
            throw fail(graph, node,
                "input \(shape(graph, node.inputs[0])) and output \(shape(graph, node.outputs[0])) differ in size")
        }
        return CopyLayer(kind: node.op.name, input: try binder.input(node, 0), output: try binder.output(node),
                         count: count)
    }

    static func buildConcatenation(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        guard case .concatenation(var axis, let act) = node.options else { throw fail(graph, node, "missing options") }
        let out = shape(graph, node.outputs[0])
        if axis < 0 { axis += out.count }
        guard axis >= 0 && axis < out.count else { throw fail(graph, node, "axis \(axis) for rank \(out.count)") }
        let outer = out[..<axis].reduce(1, *)
        var inputs: [(UnsafePointer<Float>, Int)] = []
        var total = 0
        for (i, t) in node.inputs.enumerated() {
            let s = shape(graph, t)
            guard s.count == out.count, (0..<out.count).allSatisfy({ $0 == axis || s[$0] == out[$0] }) else {
                throw fail(graph, node, "input \(s) does not fit output \(out) along axis \(axis)")
            }
            total += s[axis]
            inputs.append((try binder.input(node, i), s[axis...].reduce(1, *)))
        }
        guard total == out[axis] else {
            throw fail(graph, node, "inputs add up to \(total) along axis \(axis), output has \(out[axis])")
        }
        var e = Epilogue(); e.activation = act
        return ConcatenationLayer(inputs: inputs, output: try binder.output(node), outer: outer,
                                  channels: out.last ?? 1, epilogue: e)
    }

    static func buildResizeBilinear(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        guard case .resizeBilinear(let alignCorners, let halfPixel) = node.options else {
            throw fail(graph, node, "missing options")
        }
        let input = shape(graph, node.inputs[0]), output = shape(graph, node.outputs[0])
        try requireRank(graph, node, input, 4, "input")
        let size = try constantInts(graph, node, input: 1, what: "size")
        guard size.count == 2, output == [input[0], size[0], size[1], input[3]], size[0] > 0, size[1] > 0 else {
            throw fail(graph, node, "size \(size) does not match output \(output)")
        }
        return ResizeBilinearLayer(input: try binder.input(node, 0), output: try binder.output(node), batch: input[0],
                                   inH: input[1], inW: input[2],
                                   channels: input[3], outH: size[0], outW: size[1], alignCorners: alignCorners,
                                   halfPixelCenters: halfPixel,
                                   kernels: binder.kernels, sparseInference: node.sparseInference)
    }

    static func buildDepthToSpace(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        guard case .depthToSpace(let b) = node.options else { throw fail(graph, node, "missing options") }
        let input = shape(graph, node.inputs[0]), output = shape(graph, node.outputs[0])
        try requireRank(graph, node, input, 4, "input")
        guard b > 0, input[3] % (b * b) == 0,
            output == [input[0], input[1] * b, input[2] * b, input[3] / (b * b)] else {
            throw fail(graph, node, "block size \(b) does not map \(input) to \(output)")
        }
        return DepthToSpaceLayer(input: try binder.input(node, 0), output: try binder.output(node), batch: input[0],
                                 inH: input[1],
                                 inW: input[2], inC: input[3], block: b)
    }

    static func buildReduce(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder,
                            _ f: ReduceLayer.Function) throws -> Layer {
        let input = shape(graph, node.inputs[0])
        var axes = Set<Int>()
        for a in try constantInts(graph, node, input: 1, what: "axes") {
            let axis = a < 0 ? a + input.count : a
            guard axis >= 0 && axis < input.count else { throw fail(graph, node, "axis \(a) for input \(input)") }
            axes.insert(axis)
        }
        let outCount = input.enumerated().reduce(1) { $0 * (axes.contains($1.offset) ? 1 : $1.element) }
        guard outCount == graph.tensors[node.outputs[0]].elementCount else {
            throw fail(graph, node, "output size does not match the reduction")
        }
        return ReduceLayer(kind: node.op.name, function: f, input: try binder.input(node, 0), inShape: input,
                           axes: axes, output: try binder.output(node),
                           unitAxesContiguous: binder.reducesOverUnitAxesContiguously)
    }

    static func buildTranspose(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        let input = shape(graph, node.inputs[0])
        let permutation = try constantInts(graph, node, input: 1, what: "permutation")
        guard permutation.count == input.count, Set(permutation) == Set(0..<input.count), input.count <= 6 else {
            throw fail(graph, node, "permutation \(permutation) of a rank-\(input.count) input")
        }
        let out = permutation.map { input[$0] }
        guard out == shape(graph, node.outputs[0]) || out.reduce(1, *) == graph.tensors[node.outputs[0]].elementCount
        else { throw fail(graph, node, "permutation \(permutation) of \(input) does not give the output's shape") }
        return TransposeLayer(input: try binder.input(node, 0), inShape: input, permutation: permutation,
                              output: try binder.output(node))
    }

    static func buildGather(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        guard case .gather(var axis, let batchDims) = node.options, batchDims == 0 else {
            throw fail(graph, node, "batch_dims other than 0")
        }
        let input = shape(graph, node.inputs[0])
        if axis < 0 { axis += input.count }
        guard axis >= 0 && axis < input.count else { throw fail(graph, node, "axis \(axis) for input \(input)") }
        let indices = try constantInts(graph, node, input: 1, what: "indices")
        guard indices.allSatisfy({ $0 >= 0 && $0 < input[axis] }) else {
            throw fail(graph, node, "index out of range 0..<\(input[axis])")
        }
        let outer = input[..<axis].reduce(1, *), inner = input[(axis + 1)...].reduce(1, *)
        guard outer * indices.count * inner == graph.tensors[node.outputs[0]].elementCount else {
            throw fail(graph, node, "output size does not match")
        }
        return GatherLayer(input: try binder.input(node, 0), output: try binder.output(node), outer: outer,
                           axisSize: input[axis], inner: inner, indices: indices)
    }

    static func buildUnpack(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        guard case .unpack(let num, var axis) = node.options else { throw fail(graph, node, "missing options") }
        let input = shape(graph, node.inputs[0])
        if axis < 0 { axis += input.count }
        guard axis >= 0 && axis < input.count, input[axis] == num, node.outputs.count == num else {
            throw fail(graph, node,
                       "unpacking \(num) along axis \(axis) of \(input) into \(node.outputs.count) outputs")
        }
        let outer = input[..<axis].reduce(1, *), inner = input[(axis + 1)...].reduce(1, *)
        return UnpackLayer(input: try binder.input(node, 0), outputs: try (0..<num).map { try binder.output(node, $0) },
                           outer: outer, inner: inner)
    }

    static func buildStridedSlice(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        guard case .stridedSlice(let o) = node.options else { throw fail(graph, node, "missing options") }
        guard o.ellipsisMask == 0, o.newAxisMask == 0 else {
            throw fail(graph, node, "ellipsis and new-axis masks are not supported")
        }
        let input = shape(graph, node.inputs[0])
        let begin = try constantInts(graph, node, input: 1, what: "begin")
        let end = try constantInts(graph, node, input: 2, what: "end")
        let strides = node.inputs.count > 3
            ? try constantInts(graph, node, input: 3, what: "strides") : [Int](repeating: 1, count: begin.count)
        guard let r = StridedSliceLayer.resolve(shape: input, begin: begin, end: end, strides: strides,
                                                beginMask: o.beginMask,
                                                endMask: o.endMask, shrinkMask: o.shrinkAxisMask, offset: o.offset),
              r.outShape.reduce(1, *) == graph.tensors[node.outputs[0]].elementCount else {
            throw fail(graph, node,
                "slice \(begin)..<\(end) step \(strides) of \(input) does not give \(shape(graph, node.outputs[0]))")
        }
        return StridedSliceLayer(input: try binder.input(node, 0), inShape: input, output: try binder.output(node),
                                 starts: r.starts, stops: r.stops, strides: r.strides)
    }

    static func buildSoftmax(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        guard case .softmax(let beta) = node.options else { throw fail(graph, node, "missing options") }
        let s = shape(graph, node.inputs[0])
        let depth = max(s.last ?? 1, 1)
        let count = graph.tensors[node.inputs[0]].elementCount
        return SoftmaxLayer(input: try binder.input(node, 0), output: try binder.output(node), rows: count / depth,
                            depth: depth, beta: beta,
                            kernels: binder.kernels)
    }
}
