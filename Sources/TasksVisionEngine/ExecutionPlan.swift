import TasksVisionFormat

/// The load-time passes that turn a model into what `Interpreter` runs, each a function of its
/// own: `loadGraph` (parse, check, fuse), `schedule` (views share memory, inverted-residual
/// blocks grouped into one step), `planMemory` (lifetimes by step, one arena), `placeConstants`
/// and `buildLayers`.
enum ExecutionPlan {
    /// One step of the schedule: a single node, or an inverted-residual block (a CONV_2D, the
    /// DEPTHWISE_CONV_2D that reads its output and, when one reads the depthwise output, the
    /// pointwise CONV_2D projection), which may run interleaved tile by tile
    /// (`ConvolutionThenDepthwiseLayer`). Every member's inputs live until the step ends.
    struct Step {
        var nodes: [Graph.Node]
        var isBlock: Bool { nodes.count > 1 }
        /// Tensors the step reads, fused operands included.
        var reads: [Int] { nodes.flatMap(\.reads) }
        var outputs: [Int] { nodes.flatMap(\.outputs) }
    }

    /// The model as a checked, fused graph: unsupported operators (and quantized ones on type combinations the engine
    /// does not run), activations that are neither float32 nor quantized 8-bit, bad quantization parameters and empty
    /// shapes are reported before any memory is planned.
    static func loadGraph(_ model: TFLiteModel) throws -> Graph {
        var graph = try Graph(model: model)
        for node in graph.nodes {
            if QuantizedOps.isQuantized(node, graph) {
                do { try QuantizedOps.check(node, graph) } catch let error as EngineError { throw error.naming(node) }
            } else if !OpRegistry.isSupported(node.op) && !OpRegistry.isSupported(custom: node.customCode) {
                throw EngineError.unsupportedOperator(model: model.name, operatorIndex: node.index, op: node.op.name)
            }
        }
        graph.markSparseInference()
        graph.fuse()
        for node in graph.nodes {
            for t in node.inputs + node.outputs where t >= 0 {
                let tensor = graph.tensors[t]
                if tensor.constant == nil && tensor.type != .float32 && !tensor.isQuantized8Bit {
                    let what = tensor.type == .int8 || tensor.type == .uint8 ? "\(tensor.type) without quantization "
                        + "parameters" : "\(tensor.type)"
                    throw EngineError.unsupportedFeature(model: model.name, operatorIndex: node.index, op: node.op.name,
                        reason: "tensor '\(tensor.name)' is \(what); the engine runs float32 and quantized int8/uint8 "
                                + "activations")
                }
                if tensor.constant == nil && tensor.elementCount == 0 {
                    throw EngineError.invalidModel(model: model.name, reason: "\(graph.describe(node)) uses tensor "
                            + "'\(tensor.name)' with an empty shape \(tensor.shape)")
                }
            }
        }
        for t in graph.inputs + graph.outputs
        where graph.tensors[t].type != .float32 && !graph.tensors[t].isQuantized8Bit {
            throw EngineError.unsupportedFeature(model: model.name, operatorIndex: -1, op: "graph",
                                                reason: "input/output '\(graph.tensors[t].name)' is "
                                                        + "\(graph.tensors[t].type); only float32 and quantized "
                                                        + "int8/uint8 are supported")
        }
        return graph
    }

    /// The steps to run and, per tensor, the tensor whose memory it shares (`root`): views
    /// (RESHAPE and the like) alias their input; a depthwise convolution moves up to just after
    /// the convolution it reads (over independent steps such as a pooling branch), and each
    /// convolution -> depthwise (-> projection) chain becomes one block step.
    static func schedule(_ graph: Graph) -> (steps: [Step], root: [Int]) {
        var root = Array(0..<graph.tensors.count)
        func find(_ t: Int) -> Int { var t = t; while root[t] != t { t = root[t] }; return t }
        var nodes: [Graph.Node] = []
        for node in graph.nodes {
            if OpRegistry.aliasing.contains(node.op), let i = node.inputs.first, i >= 0,
                graph.tensors[i].constant == nil,
               let o = node.outputs.first, !graph.inputs.contains(o),
               graph.tensors[i].elementCount == graph.tensors[o].elementCount {
                root[o] = find(i)
            } else {
                nodes.append(node)
            }
        }
        for t in 0..<root.count { root[t] = find(t) }

        var j = 0
        while j < nodes.count {
            defer { j += 1 }
            guard nodes[j].op == .depthwiseConv2D, !QuantizedOps.isQuantized(nodes[j], graph),
                  let input = nodes[j].inputs.first, input >= 0,
                  let i = nodes[..<j].lastIndex(where: { $0.outputs.contains(input) }), i + 1 < j,
                  nodes[i].op == .conv2D,
                  nodes[j].reads.allSatisfy({ $0 < 0 || $0 == input || graph.tensors[$0].constant != nil }) else {
                      continue
                  }
            let depthwise = nodes.remove(at: j)
            nodes.insert(depthwise, at: i + 1)
        }

        func reads(_ b: Graph.Node, outputOf a: Graph.Node) -> Bool {
            a.outputs.first != nil && b.inputs.first == a.outputs.first
        }
        var steps: [Step] = []
        var s = 0
        while s < nodes.count {
            var members = [nodes[s]]
            if nodes[s].op == .conv2D, !QuantizedOps.isQuantized(nodes[s], graph), s + 1 < nodes.count,
               nodes[s + 1].op == .depthwiseConv2D,
                reads(nodes[s + 1], outputOf: nodes[s]) {
                members.append(nodes[s + 1])
                if s + 2 < nodes.count, nodes[s + 2].op == .conv2D, reads(nodes[s + 2], outputOf: nodes[s + 1]) {
                    members.append(nodes[s + 2])
                }
            }
            steps.append(Step(nodes: members))
            s += members.count
        }
        return (steps, root)
    }

    /// Offsets of every activation buffer (by root tensor) in one arena: each buffer lives from
    /// the step that writes it to the last step that reads it (graph inputs from before the first
    /// step, graph outputs to after the last).
    static func planMemory(_ graph: Graph, _ steps: [Step], root: [Int]) -> (offsets: [Int: Int], size: Int) {
        var first = [Int: Int](), last = [Int: Int]()
        func touch(_ t: Int, _ step: Int) {
            let r = root[t]
            first[r] = min(first[r] ?? step, step)
            last[r] = max(last[r] ?? step, step)
        }
        for t in graph.inputs { touch(t, -1) }
        for (s, step) in steps.enumerated() {
            for t in step.reads where t >= 0 && graph.tensors[t].constant == nil { touch(t, s) }
            for t in step.outputs { touch(t, s) }
        }
        for t in graph.outputs where graph.tensors[t].constant == nil { touch(t, steps.count) }
        let requests = first.keys.sorted().compactMap { r -> MemoryPlanner.Request? in
            guard let f = first[r], let l = last[r] else { return nil }
            return MemoryPlanner.Request(id: r, bytes: max(graph.tensors[r].elementCount, 1)
                                                           * max(graph.tensors[r].type.byteSize, 1),
                                         firstStep: f, lastStep: l)
        }
        return MemoryPlanner.plan(requests)
    }

    /// Where each float constant the steps read goes in the constant buffer (16-float aligned),
    /// and the buffer's size in floats. Filters that FMA kernel sets pack at load
    /// (`packedFilters`) get no place: their packed copy replaces them.
    static func placeConstants(_ graph: Graph, _ steps: [Step],
                               packedFilters: Set<Int>) -> (offsets: [Int: Int], count: Int) {
        var offsets: [Int: Int] = [:]
        var count = 0
        for step in steps {
            for node in step.nodes {
                for t in node.reads where t >= 0 && offsets[t] == nil && !packedFilters.contains(t) {
                    if let c = graph.tensors[t].constant, c.type == .float32 || c.type == .float16 {
                        offsets[t] = count
                        count += (c.count + 15) / 16 * 16
                    }
                }
            }
        }
        // Graph outputs that are constants still need memory to be read from.
        for t in graph.outputs where offsets[t] == nil && graph.tensors[t].constant != nil {
            offsets[t] = count
            count += (graph.tensors[t].elementCount + 15) / 16 * 16
        }
        return (offsets, count)
    }

    /// The filters an FMA kernel set packs at load and never reads again: those of CONV_2D and
    /// FULLY_CONNECTED nodes, when nothing else reads them.
    static func packedFilters(_ graph: Graph, _ steps: [Step], kernels: Microkernels) -> Set<Int> {
        guard !kernels.gemms.isEmpty else { return [] }
        // Readers, graph outputs counted as one: a filter read once is read by its node alone.
        let readers = graph.consumerCounts()
        var filters = Set<Int>()
        for step in steps {
            for node in step.nodes where node.op == .conv2D || node.op == .fullyConnected {
                if node.inputs.count > 1, node.inputs[1] >= 0, graph.tensors[node.inputs[1]].constant != nil,
                   readers[node.inputs[1]] == 1 {
                    filters.insert(node.inputs[1])
                }
            }
        }
        return filters
    }

    /// One layer per step; a block step becomes one interleaved layer where the options ask for
    /// it and its members can run so (`ConvolutionThenDepthwiseLayer.canInterleave`), else its
    /// members one after the other.
    static func buildLayers(_ steps: [Step], _ graph: Graph, _ binder: TensorBinder) throws -> [Layer] {
        let consumers = graph.consumerCounts()
        func readElsewhere(_ t: Int) -> Bool { consumers[t] != 1 || graph.outputs.contains(t) }
        var layers: [Layer] = []
        for step in steps {
            guard step.isBlock else {
                layers.append(try OpRegistry.makeLayer(step.nodes[0], graph, binder))
                continue
            }
            let convolution = try OpRegistry.buildConvolution(step.nodes[0], graph, binder)
            let depthwise = try OpRegistry.buildDepthwise(step.nodes[1], graph, binder)
            let projection = try step.nodes.count > 2 ? OpRegistry.buildConvolution(step.nodes[2], graph, binder) : nil
            guard binder.interleavesBlocks, ConvolutionThenDepthwiseLayer.canInterleave(convolution, depthwise) else {
                layers += [convolution, depthwise] + (projection.map { [$0] } ?? [])
                continue
            }
            let joined = projection.flatMap { ConvolutionThenDepthwiseLayer.canProject(depthwise, $0) ? $0 : nil }
            layers.append(ConvolutionThenDepthwiseLayer(convolution, depthwise, projection: joined,
                                                        convolutionOutputRead: readElsewhere(step.nodes[0].outputs[0]),
                                                        depthwiseOutputRead: readElsewhere(step.nodes[1].outputs[0]),
                                                        threads: binder.threads))
            if let projection, joined == nil { layers.append(projection) }
        }
        return layers
    }
}
