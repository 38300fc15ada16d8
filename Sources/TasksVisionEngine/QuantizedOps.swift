import TasksVisionFormat
import TasksVisionKernels

/// The operators on 8-bit quantized tensors and the layers that run them, each following the kernel the references
/// run for it (docs/engine.md, "Quantized models"): XNNPACK's QS8/QU8 operators where TFLite's XNNPACK delegate takes
/// the node, TFLite's built-in kernels where it does not. `OpRegistry.makeLayer` hands every node with an 8-bit
/// activation here.
enum QuantizedOps {
    /// Whether `node` reads or writes an 8-bit activation (a non-constant int8 or uint8 tensor).
    static func isQuantized(_ node: Graph.Node, _ graph: Graph) -> Bool {
        (node.inputs + node.outputs).contains { t in
            t >= 0 && t < graph.tensors.count && graph.tensors[t].constant == nil
                && (graph.tensors[t].type == .int8 || graph.tensors[t].type == .uint8)
        }
    }

    /// The type combinations each operator runs on: its activations' types (inputs, then outputs).
    static func supports(_ op: BuiltinOperator, inputs: [TensorType], outputs: [TensorType]) -> Bool {
        let eight: Set<TensorType> = [.int8, .uint8]
        guard let out = outputs.first, outputs.count == 1 else { return false }
        let same = inputs.allSatisfy { $0 == out } && eight.contains(out)
        switch op {
        case .quantize:
            return inputs.count == 1 && (inputs[0] == .float32 || eight.contains(inputs[0])) && eight.contains(out)
        case .dequantize:
            return inputs.count == 1 && eight.contains(inputs[0]) && out == .float32
        case .conv2D, .depthwiseConv2D, .fullyConnected:
            return inputs == [.int8] && out == .int8
        case .add, .sub, .mul:
            return same && (1...2).contains(inputs.count)
        case .averagePool2D, .maxPool2D, .logistic, .tanh, .hardSwish, .relu, .relu6, .reluN1To1, .leakyRelu,
             .resizeNearestNeighbor, .resizeBilinear, .mean, .reshape, .squeeze, .expandDims, .pad, .padV2:
            return same && inputs.count == 1
        case .elu:
            return inputs == [.int8] && out == .int8
        case .softmax:
            return inputs.count == 1 && eight.contains(inputs[0]) && eight.contains(out)
        case .concatenation:
            return same && !inputs.isEmpty
        default:
            return false
        }
    }

    /// The non-constant inputs of a node (its activations), and every output.
    static func activations(_ node: Graph.Node, _ graph: Graph) -> (inputs: [Int], outputs: [Int]) {
        (node.inputs.filter { $0 >= 0 && graph.tensors[$0].constant == nil }, node.outputs)
    }

    /// "int8 input 'a', int8 input 'b' -> uint8 output 'y'", for error messages.
    static func describeTypes(_ node: Graph.Node, _ graph: Graph) -> String {
        let (ins, outs) = activations(node, graph)
        let i = ins.map { "\(graph.tensors[$0].type) input '\(graph.tensors[$0].name)'" }
        let o = outs.map { "\(graph.tensors[$0].type) output '\(graph.tensors[$0].name)'" }
        return (i.isEmpty ? "" : i.joined(separator: ", ") + " -> ") + o.joined(separator: ", ")
    }

    /// Checks at load that the engine runs `node` on its types, and that every 8-bit activation it touches has a
    /// usable scale and zero point (`EngineError.invalidQuantization` names the tensor).
    static func check(_ node: Graph.Node, _ graph: Graph) throws {
        let (ins, outs) = activations(node, graph)
        let name = node.customCode ?? node.op.name
        let inputTypes = ins.map { graph.tensors[$0].type }, outputTypes = outs.map { graph.tensors[$0].type }
        guard node.op != .custom, supports(node.op, inputs: inputTypes, outputs: outputTypes) else {
            throw EngineError.unsupportedFeature(model: graph.modelName, operatorIndex: node.index, op: name,
                reason: "\(describeTypes(node, graph)): the engine does not run \(name) on these types")
        }
        for t in ins + outs where graph.tensors[t].type == .int8 || graph.tensors[t].type == .uint8 {
            _ = try QuantizedWeights.activation(graph, t)
        }
    }

    static func makeLayer(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        try check(node, graph)
        switch node.op {
        case .conv2D, .fullyConnected: return try buildConvolution(node, graph, binder)
        case .depthwiseConv2D: return try buildDepthwise(node, graph, binder)
        case .quantize: return try buildQuantize(node, graph, binder)
        case .dequantize:
            return DequantizeLayer(input: try raw(binder, node, 0), output: try binder.output(node),
                                   count: graph.tensors[node.outputs[0]].elementCount,
                                   quantization: try QuantizedWeights.activation(graph, node.inputs[0]),
                                   kernel: QuantizedMicrokernels(binder.kernels.set).dequantize)
        case .add: return try buildBinary(node, graph, binder, .add)
        case .sub: return try buildBinary(node, graph, binder, .sub)
        case .mul: return try buildBinary(node, graph, binder, .mul)
        case .averagePool2D: return try buildPool(node, graph, binder, .average)
        case .maxPool2D: return try buildPool(node, graph, binder, .max)
        case .logistic, .tanh, .elu, .hardSwish, .relu, .relu6, .reluN1To1, .leakyRelu:
            return try buildLookupTable(node, graph, binder)
        case .mean: return try buildMean(node, graph, binder)
        case .resizeBilinear: return try buildResizeBilinear(node, graph, binder)
        case .softmax: return try buildSoftmax(node, graph, binder)
        case .resizeNearestNeighbor: return try buildResizeNearest(node, graph, binder)
        case .concatenation: return try buildConcatenation(node, graph, binder)
        case .pad, .padV2: return try buildPad(node, graph, binder)
        case .reshape, .squeeze, .expandDims:
            let count = graph.tensors[node.outputs[0]].elementCount
            guard graph.tensors[node.inputs[0]].elementCount == count else {
                throw OpRegistry.fail(graph, node, "input and output sizes differ")
            }
            try requireSameQuantization(node, graph, node.inputs[0], node.outputs[0])
            return ByteCopyLayer(kind: node.op.name, input: try raw(binder, node, 0),
                                 output: UnsafeMutableRawPointer(try binder.output(node)),
                                 count: count * graph.tensors[node.outputs[0]].type.byteSize)
        default:
            throw EngineError.unsupportedOperator(model: graph.modelName, operatorIndex: node.index, op: node.op.name)
        }
    }

    // MARK: helpers

    static func raw(_ binder: TensorBinder, _ node: Graph.Node, _ i: Int) throws -> UnsafeRawPointer {
        UnsafeRawPointer(try binder.input(node, i))
    }

    static func rawOutput(_ binder: TensorBinder, _ node: Graph.Node) throws -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(try binder.output(node))
    }

    /// An op that only moves bytes needs its input and output quantized alike.
    static func requireSameQuantization(_ node: Graph.Node, _ graph: Graph, _ a: Int, _ b: Int) throws {
        let qa = try QuantizedWeights.activation(graph, a), qb = try QuantizedWeights.activation(graph, b)
        guard qa == qb else {
            throw OpRegistry.fail(graph, node, "input '\(graph.tensors[a].name)' (scale \(qa.scale), zero point "
                                  + "\(qa.zeroPoint)) and output '\(graph.tensors[b].name)' (scale \(qb.scale), zero "
                                  + "point \(qb.zeroPoint)) are quantized differently")
        }
    }

    static func ownActivation(_ node: Graph.Node, _ graph: Graph) throws -> FusedActivation {
        let a: FusedActivation
        switch node.options {
        case .conv2D(let o): a = o.activation
        case .depthwiseConv2D(let o): a = o.activation
        case .fullyConnected(let o): a = o.activation
        case .pool2D(let o): a = o.activation
        case .activation(let x): a = x
        case .concatenation(_, let x): a = x
        default: a = .none
        }
        return a
    }

    /// XNNPACK's bounds for the node's fused activation on output `q`.
    static func xnnpackBounds(_ node: Graph.Node, _ graph: Graph, _ q: QuantizedActivation) throws
        -> (min: Int32, max: Int32) {
        let a = try ownActivation(node, graph)
        guard let b = QuantizedArithmetic.xnnpackActivationBounds(a, scale: q.scale, zeroPoint: q.zeroPoint,
                                                                  lo: q.lo, hi: q.hi) else {
            throw OpRegistry.fail(graph, node, "fused activation \(a) is not supported on quantized tensors")
        }
        return b
    }

    // MARK: builders

    static func buildConvolution(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        let xq = try QuantizedWeights.activation(graph, node.inputs[0])
        let yq = try QuantizedWeights.activation(graph, node.outputs[0])
        guard node.inputs.count >= 2, node.inputs[1] >= 0 else { throw OpRegistry.fail(graph, node, "no filter") }
        let filter = node.inputs[1]
        let w = OpRegistry.shape(graph, filter)
        let g: ConvGeometry
        if node.op == .fullyConnected {
            guard case .fullyConnected(let o) = node.options, o.weightsFormat == 0 else {
                throw OpRegistry.fail(graph, node, "only the default weights format is supported")
            }
            guard w.count == 2, w[1] > 0, graph.tensors[node.inputs[0]].elementCount % w[1] == 0 else {
                throw OpRegistry.fail(graph, node, "filter \(w) does not fit input "
                                      + "\(OpRegistry.shape(graph, node.inputs[0]))")
            }
            let rows = graph.tensors[node.inputs[0]].elementCount / w[1]
            guard graph.tensors[node.outputs[0]].elementCount == rows * w[0] else {
                throw OpRegistry.fail(graph, node, "output \(OpRegistry.shape(graph, node.outputs[0])) is not "
                                      + "\(rows) rows of \(w[0])")
            }
            g = ConvGeometry(batch: 1, inH: rows, inW: 1, inC: w[1], outH: rows, outW: 1, outC: w[0], kH: 1, kW: 1,
                             strideH: 1, strideW: 1, padTop: 0, padLeft: 0)
        } else {
            guard case .conv2D(let o) = node.options else { throw OpRegistry.fail(graph, node, "missing options") }
            try OpRegistry.requireRank(graph, node, w, 4, "filter")
            let input = OpRegistry.shape(graph, node.inputs[0]), output = OpRegistry.shape(graph, node.outputs[0])
            g = try OpRegistry.convGeometry(graph, node, input: input, output: output, kH: w[1], kW: w[2],
                                            padding: o.padding, strideH: o.strideH, strideW: o.strideW,
                                            dilationH: o.dilationH, dilationW: o.dilationW)
            guard w[3] == input[3], w[0] == output[3] else {
                throw OpRegistry.fail(graph, node, "filter \(w) does not fit input \(input) and output \(output)")
            }
        }
        let scales = try QuantizedWeights.weightScales(graph, filter, dimension: 0, channels: g.outC)
        let bias = try QuantizedWeights.bias(graph, node, input: 2, count: g.outC)
        let requantization = scales.map { xq.scale * $0 / yq.scale }
        let bounds = try xnnpackBounds(node, graph, yq)
        let kernels = QuantizedMicrokernels(binder.kernels.set)
        let realK = g.kH * g.kW * g.inC
        let weights = QuantizedWeights.int8s(graph, filter)
        guard weights.count == g.outC * realK else {
            throw OpRegistry.fail(graph, node, "filter has \(weights.count) values, expected \(g.outC * realK)")
        }
        let packed = weights.withUnsafeBufferPointer { buffer in
            QS8PackedWeights(weights: buffer.baseAddress!, n: g.outC, realK: realK, bias: bias,
                             scales: requantization, inputZeroPoint: xq.zeroPoint,
                             inputOffset: kernels.gemm.inputOffset, nr: kernels.gemm.nr, kr: kernels.gemm.kr)
        }
        return QuantizedConvolutionLayer(kind: node.op.name, geometry: g, weights: packed,
                                         input: try raw(binder, node, 0).assumingMemoryBound(to: Int8.self),
                                         output: try rawOutput(binder, node).assumingMemoryBound(to: Int8.self),
                                         quantization: QS8Output(zeroPoint: yq.zeroPoint, min: bounds.min,
                                                                 max: bounds.max),
                                         inputZeroPoint: Int8(truncatingIfNeeded: xq.zeroPoint),
                                         gemm: kernels.gemm.run)
    }

    static func buildDepthwise(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        guard case .depthwiseConv2D(let o) = node.options else { throw OpRegistry.fail(graph, node, "missing options") }
        let xq = try QuantizedWeights.activation(graph, node.inputs[0])
        let yq = try QuantizedWeights.activation(graph, node.outputs[0])
        guard node.inputs.count >= 2, node.inputs[1] >= 0 else { throw OpRegistry.fail(graph, node, "no filter") }
        let filter = node.inputs[1]
        let w = OpRegistry.shape(graph, filter)
        try OpRegistry.requireRank(graph, node, w, 4, "filter")
        let input = OpRegistry.shape(graph, node.inputs[0]), output = OpRegistry.shape(graph, node.outputs[0])
        let g = try OpRegistry.convGeometry(graph, node, input: input, output: output, kH: w[1], kW: w[2],
                                            padding: o.padding, strideH: o.strideH, strideW: o.strideW,
                                            dilationH: o.dilationH, dilationW: o.dilationW)
        guard w[0] == 1, w[3] == output[3], input[3] > 0, output[3] % input[3] == 0 else {
            throw OpRegistry.fail(graph, node, "filter \(w) does not fit input \(input) and output \(output)")
        }
        let scales = try QuantizedWeights.weightScales(graph, filter, dimension: 3, channels: g.outC)
        let bias = try QuantizedWeights.bias(graph, node, input: 2, count: g.outC)
        let requantization = scales.map { xq.scale * $0 / yq.scale }
        let bounds = try xnnpackBounds(node, graph, yq)
        let kernels = QuantizedMicrokernels(binder.kernels.set)
        let weights = QuantizedWeights.int8s(graph, filter)
        guard weights.count == g.kH * g.kW * g.outC else {
            throw OpRegistry.fail(graph, node, "filter has \(weights.count) values, expected \(g.kH * g.kW * g.outC)")
        }
        // Sixteen-bit products where two of them always fit (no weight of -128).
        let multiplier = output[3] / input[3]
        let row = multiplier == 1 && !weights.contains(-128) ? kernels.depthwiseRowMul16 ?? kernels.depthwiseRow
                                                             : kernels.depthwiseRow
        let packed = weights.withUnsafeBufferPointer { buffer in
            QS8PackedDepthwiseWeights(weights: buffer.baseAddress!, channels: g.outC, taps: g.kH * g.kW, bias: bias,
                                      scales: requantization, inputZeroPoint: xq.zeroPoint, cr: row.cr)
        }
        return QuantizedDepthwiseLayer(geometry: g, multiplier: multiplier, weights: packed,
                                       input: try raw(binder, node, 0).assumingMemoryBound(to: Int8.self),
                                       output: try rawOutput(binder, node).assumingMemoryBound(to: Int8.self),
                                       quantization: QS8Output(zeroPoint: yq.zeroPoint, min: bounds.min,
                                                               max: bounds.max),
                                       inputZeroPoint: Int8(truncatingIfNeeded: xq.zeroPoint),
                                       row: row.run)
    }

    static func buildQuantize(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        let count = graph.tensors[node.outputs[0]].elementCount
        guard graph.tensors[node.inputs[0]].elementCount == count else {
            throw OpRegistry.fail(graph, node, "input and output sizes differ")
        }
        let yq = try QuantizedWeights.activation(graph, node.outputs[0])
        if graph.tensors[node.inputs[0]].type == .float32 {
            return QuantizeLayer(input: try binder.input(node, 0), output: try rawOutput(binder, node), count: count,
                                 quantization: yq)
        }
        return RequantizeLayer(input: try raw(binder, node, 0), output: try rawOutput(binder, node), count: count,
                               from: try QuantizedWeights.activation(graph, node.inputs[0]), to: yq)
    }

    static func buildBinary(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder,
                            _ operation: QuantizedBinaryLayer.Operation) throws -> Layer {
        guard node.inputs.count == 2 else { throw OpRegistry.fail(graph, node, "expects 2 inputs") }
        let a = node.inputs[0], b = node.inputs[1]
        guard graph.tensors[a].constant == nil, graph.tensors[b].constant == nil else {
            throw OpRegistry.fail(graph, node, "a constant operand is not supported on quantized tensors")
        }
        let aq = try QuantizedWeights.activation(graph, a), bq = try QuantizedWeights.activation(graph, b)
        let oq = try QuantizedWeights.activation(graph, node.outputs[0])
        if operation != .mul && !QuantizedBinaryLayer.addRatiosSupported(aq, bq, oq) {
            throw OpRegistry.fail(graph, node, "input-to-output scale ratios \(aq.scale / oq.scale) and "
                                  + "\(bq.scale / oq.scale) are outside XNNPACK's [2^-10, 2^8)")
        }
        let aShape = OpRegistry.shape(graph, a), bShape = OpRegistry.shape(graph, b)
        let outShape = OpRegistry.shape(graph, node.outputs[0])
        let rank = max(aShape.count, bShape.count)
        let pa = [Int](repeating: 1, count: rank - aShape.count) + aShape
        let pb = [Int](repeating: 1, count: rank - bShape.count) + bShape
        let expected = zip(pa, pb).map { max($0, $1) }
        guard zip(pa, pb).allSatisfy({ $0 == $1 || $0 == 1 || $1 == 1 }),
              expected.reduce(1, *) == outShape.reduce(1, *) else {
            throw OpRegistry.fail(graph, node, "shapes \(aShape) and \(bShape) do not broadcast to \(outShape)")
        }
        return QuantizedBinaryLayer(kind: node.op.name, operation: operation, a: try raw(binder, node, 0),
                                    aShape: pa, aq: aq, b: try raw(binder, node, 1), bShape: pb, bq: bq,
                                    output: try rawOutput(binder, node), outShape: expected, oq: oq,
                                    bounds: try xnnpackBounds(node, graph, oq),
                                    kernel: QuantizedMicrokernels(binder.kernels.set).binary)
    }

    static func buildPool(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder,
                          _ function: QuantizedPoolingLayer.Function) throws -> Layer {
        guard case .pool2D(let o) = node.options else { throw OpRegistry.fail(graph, node, "missing options") }
        let input = OpRegistry.shape(graph, node.inputs[0]), output = OpRegistry.shape(graph, node.outputs[0])
        let g = try OpRegistry.convGeometry(graph, node, input: input, output: output, kH: o.filterH, kW: o.filterW,
                                            padding: o.padding, strideH: o.strideH, strideW: o.strideW,
                                            dilationH: 1, dilationW: 1)
        guard input[3] == output[3] else {
            throw OpRegistry.fail(graph, node, "channels change from \(input[3]) to \(output[3])")
        }
        let oq = try QuantizedWeights.activation(graph, node.outputs[0])
        let bounds: (min: Int32, max: Int32)
        if function == .max {
            try requireSameQuantization(node, graph, node.inputs[0], node.outputs[0])
            bounds = try xnnpackBounds(node, graph, oq)
        } else {
            guard let b = QuantizedArithmetic.tfliteActivationBounds(o.activation, scale: oq.scale,
                                                                     zeroPoint: oq.zeroPoint, lo: oq.lo, hi: oq.hi)
            else { throw OpRegistry.fail(graph, node, "fused activation \(o.activation) is not supported") }
            bounds = b
        }
        return QuantizedPoolingLayer(function: function, geometry: g, input: try raw(binder, node, 0),
                                     output: try rawOutput(binder, node), type: oq.type, bounds: bounds)
    }

    static func buildLookupTable(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        let count = graph.tensors[node.outputs[0]].elementCount
        guard graph.tensors[node.inputs[0]].elementCount == count else {
            throw OpRegistry.fail(graph, node, "input and output sizes differ")
        }
        let xq = try QuantizedWeights.activation(graph, node.inputs[0])
        let yq = try QuantizedWeights.activation(graph, node.outputs[0])
        let table: [UInt8]
        switch node.op {
        case .logistic:
            table = QuantizedLookupTableLayer.xnnpackTable(from: xq, to: yq, QuantizedLookupTableLayer.xnnpackSigmoid)
        case .tanh:
            table = QuantizedLookupTableLayer.xnnpackTable(from: xq, to: yq) { tanhf($0) }
        case .elu:
            table = QuantizedLookupTableLayer.xnnpackTable(from: xq, to: yq) { $0 < 0 ? 1 * expm1f($0) : $0 }
        case .hardSwish:
            table = QuantizedLookupTableLayer.tfliteHardSwishTable(from: xq, to: yq)
        case .relu:
            table = QuantizedLookupTableLayer.tfliteReluTable(from: xq, to: yq, low: 0, high: nil)
        case .relu6:
            table = QuantizedLookupTableLayer.tfliteReluTable(from: xq, to: yq, low: 0, high: 6)
        case .reluN1To1:
            table = QuantizedLookupTableLayer.tfliteReluTable(from: xq, to: yq, low: -1, high: 1)
        case .leakyRelu:
            guard case .leakyRelu(let alpha) = node.options else { throw OpRegistry.fail(graph, node, "missing options") }
            table = QuantizedLookupTableLayer.xnnpackLeakyReluTable(from: xq, to: yq, alpha: alpha)
        default:
            throw EngineError.unsupportedOperator(model: graph.modelName, operatorIndex: node.index, op: node.op.name)
        }
        return QuantizedLookupTableLayer(kind: node.op.name, input: try raw(binder, node, 0),
                                         output: try rawOutput(binder, node), count: count, table: table,
                                         kernel: QuantizedMicrokernels(binder.kernels.set).lookup)
    }

    static func buildMean(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        let input = OpRegistry.shape(graph, node.inputs[0])
        var axes = Set<Int>()
        for a in try OpRegistry.constantInts(graph, node, input: 1, what: "axes") {
            let axis = a < 0 ? a + input.count : a
            guard axis >= 0 && axis < input.count else {
                throw OpRegistry.fail(graph, node, "axis \(a) for input \(input)")
            }
            axes.insert(axis)
        }
        let outCount = input.enumerated().reduce(1) { $0 * (axes.contains($1.offset) ? 1 : $1.element) }
        guard outCount == graph.tensors[node.outputs[0]].elementCount, !axes.isEmpty else {
            throw OpRegistry.fail(graph, node, "output size does not match the reduction")
        }
        return QuantizedMeanLayer(input: try raw(binder, node, 0), inShape: input, axes: axes,
                                  output: try rawOutput(binder, node),
                                  from: try QuantizedWeights.activation(graph, node.inputs[0]),
                                  to: try QuantizedWeights.activation(graph, node.outputs[0]))
    }

    static func buildResizeBilinear(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        guard case .resizeBilinear(let alignCorners, let halfPixel) = node.options else {
            throw OpRegistry.fail(graph, node, "missing options")
        }
        let input = OpRegistry.shape(graph, node.inputs[0]), output = OpRegistry.shape(graph, node.outputs[0])
        try OpRegistry.requireRank(graph, node, input, 4, "input")
        let size = try OpRegistry.constantInts(graph, node, input: 1, what: "size")
        guard size.count == 2, output == [input[0], size[0], size[1], input[3]], size[0] > 0, size[1] > 0 else {
            throw OpRegistry.fail(graph, node, "size \(size) does not match output \(output)")
        }
        try requireSameQuantization(node, graph, node.inputs[0], node.outputs[0])
        return QuantizedResizeBilinearLayer(input: try raw(binder, node, 0), output: try rawOutput(binder, node),
                                            type: graph.tensors[node.inputs[0]].type, batch: input[0], inH: input[1],
                                            inW: input[2], channels: input[3], outH: size[0], outW: size[1],
                                            alignCorners: alignCorners, halfPixelCenters: halfPixel)
    }

    static func buildSoftmax(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        guard case .softmax(let beta) = node.options else { throw OpRegistry.fail(graph, node, "missing options") }
        let s = OpRegistry.shape(graph, node.inputs[0])
        let depth = max(s.last ?? 1, 1), count = graph.tensors[node.inputs[0]].elementCount
        guard graph.tensors[node.outputs[0]].elementCount == count else {
            throw OpRegistry.fail(graph, node, "input and output sizes differ")
        }
        return QuantizedSoftmaxLayer(input: try raw(binder, node, 0), output: try rawOutput(binder, node),
                                     rows: count / depth, depth: depth, beta: beta,
                                     from: try QuantizedWeights.activation(graph, node.inputs[0]),
                                     to: try QuantizedWeights.activation(graph, node.outputs[0]))
    }

    static func buildResizeNearest(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        guard case .resizeNearestNeighbor(let alignCorners, let halfPixel) = node.options else {
            throw OpRegistry.fail(graph, node, "missing options")
        }
        let input = OpRegistry.shape(graph, node.inputs[0]), output = OpRegistry.shape(graph, node.outputs[0])
        try OpRegistry.requireRank(graph, node, input, 4, "input")
        let size = try OpRegistry.constantInts(graph, node, input: 1, what: "size")
        guard size.count == 2, output == [input[0], size[0], size[1], input[3]], size[0] > 0, size[1] > 0 else {
            throw OpRegistry.fail(graph, node, "size \(size) does not match output \(output)")
        }
        try requireSameQuantization(node, graph, node.inputs[0], node.outputs[0])
        return QuantizedResizeNearestLayer(input: try raw(binder, node, 0), output: try rawOutput(binder, node),
                                           batch: input[0], inH: input[1], inW: input[2], channels: input[3],
                                           outH: size[0], outW: size[1], alignCorners: alignCorners,
                                           halfPixelCenters: halfPixel)
    }

    static func buildConcatenation(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        guard case .concatenation(var axis, let activation) = node.options else {
            throw OpRegistry.fail(graph, node, "missing options")
        }
        guard activation == .none else {
            throw OpRegistry.fail(graph, node, "fused activation \(activation) is not supported on quantized tensors")
        }
        let out = OpRegistry.shape(graph, node.outputs[0])
        if axis < 0 { axis += out.count }
        guard axis >= 0 && axis < out.count else {
            throw OpRegistry.fail(graph, node, "axis \(axis) for rank \(out.count)")
        }
        let oq = try QuantizedWeights.activation(graph, node.outputs[0])
        var parts: [QuantizedConcatenationLayer.Part] = []
        var total = 0
        for (i, t) in node.inputs.enumerated() {
            let s = OpRegistry.shape(graph, t)
            guard s.count == out.count, (0..<out.count).allSatisfy({ $0 == axis || s[$0] == out[$0] }) else {
                throw OpRegistry.fail(graph, node, "input \(s) does not fit output \(out) along axis \(axis)")
            }
            total += s[axis]
            let q = try QuantizedWeights.activation(graph, t)
            if q != oq && oq.type == .int8 {
                throw OpRegistry.fail(graph, node, "int8 input '\(graph.tensors[t].name)' (scale \(q.scale), zero point "
                    + "\(q.zeroPoint)) is quantized otherwise than the output (scale \(oq.scale), zero point "
                    + "\(oq.zeroPoint)); TFLite runs an int8 CONCATENATION with one scale and zero point throughout")
            }
            parts.append(.init(input: try raw(binder, node, i).assumingMemoryBound(to: UInt8.self),
                               run: s[axis...].reduce(1, *),
                               table: q == oq ? nil : QuantizedConcatenationLayer.tfliteTable(from: q, to: oq)))
        }
        guard total == out[axis] else {
            throw OpRegistry.fail(graph, node, "inputs add up to \(total) along axis \(axis), output has \(out[axis])")
        }
        return QuantizedConcatenationLayer(parts: parts, output: try rawOutput(binder, node),
                                           outer: out[..<axis].reduce(1, *))
    }

    static func buildPad(_ node: Graph.Node, _ graph: Graph, _ binder: TensorBinder) throws -> Layer {
        let input = OpRegistry.shape(graph, node.inputs[0]), output = OpRegistry.shape(graph, node.outputs[0])
        let pads = try OpRegistry.constantInts(graph, node, input: 1, what: "paddings")
        guard pads.count == 2 * input.count, input.count <= 6, pads.allSatisfy({ $0 >= 0 }) else {
            throw OpRegistry.fail(graph, node, "paddings \(pads) for input \(input)")
        }
        var expected: [Int] = []
        for d in 0..<input.count { expected.append(input[d] + pads[2 * d] + pads[2 * d + 1]) }
        guard expected == output else {
            throw OpRegistry.fail(graph, node, "output \(output) does not match padded input \(expected)")
        }
        try requireSameQuantization(node, graph, node.inputs[0], node.outputs[0])
        let oq = try QuantizedWeights.activation(graph, node.outputs[0])
        var value = UInt8(truncatingIfNeeded: oq.zeroPoint)
        if node.inputs.count > 2, node.inputs[2] >= 0 {
            let v = graph.tensors[node.inputs[2]]
            guard let c = v.constant, c.bytes.count == 1, v.type == oq.type else {
                throw OpRegistry.fail(graph, node, "the pad value must be one constant \(oq.type)")
            }
            value = c.bytes[c.bytes.startIndex]
        }
        return QuantizedPadLayer(kind: node.op.name, input: try raw(binder, node, 0), inShape: input,
                                 output: try rawOutput(binder, node), outShape: output,
                                 before: (0..<input.count).map { pads[2 * $0] }, value: value)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif
