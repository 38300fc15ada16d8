import TasksVisionFormat

/// Which nodes XNNPACK runs in the NCHW layout of its sparse inference, as its `xnn_subgraph_rewrite_for_nchw`
/// decides (src/subgraph.c). TFLite's delegate asks for it when a node reads weights a DENSIFY unpacked; XNNPACK
/// switches it off on x86 processors with AVX and runs it on arm64, where its NCHW kernels sum otherwise than its
/// NHWC ones (spmm: one chain; depthwise: their own tap orders; the first 3x3 convolution: kx, channel, ky; bilinear
/// resize: rows first). The layout itself changes no value, so the engine stays NHWC and takes those orders for the
/// marked nodes (`Node.sparseInference`) on the arm64 set.
///
/// XNNPACK's rules, on its own view of the graph (a zero PAD with one reader folded into that convolution's
/// padding; TensorFlow SAME padding made explicit for stride 1 only):
/// - node kinds: a 1x1 convolution of stride 1 without padding, a depthwise convolution of multiplier 1, stride 1 or
///   2, 3x3 padded by 1 or 5x5 padded by 2 on every side, ADD and MUL of 4-D tensors, bilinear resize from more than
///   one row and column, unary ops of 4-D tensors and fully connected layers run NCHW in and out; the 3x3 stride-2
///   convolution of 3 channels padded by 1 goes NHWC to NCHW; DEPTH_TO_SPACE and MEAN go NCHW to NHWC;
/// - clusters grow from each NCHW-to-NHWC node through its producers while they are of those kinds; a cluster that
///   reads a graph input (but through that first convolution), or a tensor a node outside it also reads, stays NHWC;
/// - a cluster switches only if more than 2/3 of its 1x1 convolutions' and fully connected layers' weights are zero.
extension Graph {
    mutating func markSparseInference() {
        guard nodes.contains(where: { node in node.inputs.contains { sparseWeights.contains($0) } }) else { return }
        var view = SparseInferenceView(self)
        for n in view.nodesRunningNCHW() { nodes[n].sparseInference = true }
    }
}

/// XNNPACK's view of a graph for its NCHW rewrite: its nodes (this graph's, a folded PAD left out) with their layout
/// flags and cluster leaders.
private struct SparseInferenceView {
    static let nchw = 1, intoNCHW = 2, outOfNCHW = 4, incompatible = 8

    let graph: Graph
    /// Per node: its first input as XNNPACK sees it (a folded PAD's input) and its padding (top, right, bottom,
    /// left), for convolutions; nil for a PAD folded away.
    var inputs: [[Int]?]
    var padding: [(Int, Int, Int, Int)]
    var sameFlag: [Bool]
    var flags: [Int]
    var leader: [Int]
    var producer: [Int: Int] = [:]

    init(_ graph: Graph) {
        self.graph = graph
        let count = graph.nodes.count
        inputs = graph.nodes.map { Optional($0.inputs) }
        padding = Array(repeating: (0, 0, 0, 0), count: count)
        sameFlag = Array(repeating: false, count: count)
        flags = Array(repeating: 0, count: count)
        leader = Array(0..<count)
        for (n, node) in graph.nodes.enumerated() {
            let k: (Int, Int)? = kernel(node)
            switch node.options {
            case .conv2D(let o):
                explicitPadding(n, o.padding, strides: (o.strideH, o.strideW), dilations: (o.dilationH, o.dilationW),
                                kernel: k)
            case .depthwiseConv2D(let o):
                explicitPadding(n, o.padding, strides: (o.strideH, o.strideW), dilations: (o.dilationH, o.dilationW),
                                kernel: k)
            default: break
            }
        }
        foldPads()
        for (n, node) in graph.nodes.enumerated() where inputs[n] != nil {
            for t in node.outputs where t >= 0 { producer[t] = n }
        }
        for n in graph.nodes.indices where inputs[n] != nil { flags[n] = compatibility(n) }
    }

    func kernel(_ node: Graph.Node) -> (Int, Int)? {
        guard node.inputs.count > 1, node.inputs[1] >= 0 else { return nil }
        let w = graph.tensors[node.inputs[1]].shape
        return w.count == 4 ? (w[1], w[2]) : nil
    }

    /// XNNPACK's define-time padding: TensorFlow SAME made explicit for stride 1 (half the window, the smaller half
    /// first), kept as a flag otherwise.
    mutating func explicitPadding(_ n: Int, _ p: Padding, strides: (Int, Int), dilations: (Int, Int),
                                  kernel: (Int, Int)?) {
        guard p == .same, let kernel else { return }
        guard strides.0 == 1 && strides.1 == 1 else { sameFlag[n] = true; return }
        let h = (kernel.0 - 1) * dilations.0, w = (kernel.1 - 1) * dilations.1
        padding[n] = (h / 2, w - w / 2, h - h / 2, w / 2)
    }

    /// Readers per tensor as XNNPACK counts them: once per node however many of its inputs it is, once more for a
    /// graph output.
    func consumers() -> [Int] {
        var counts = [Int](repeating: 0, count: graph.tensors.count)
        for n in graph.nodes.indices {
            guard let ins = inputs[n] else { continue }
            for t in Set(ins) where t >= 0 { counts[t] += 1 }
        }
        for o in graph.outputs { counts[o] += 1 }
        return counts
    }

    /// A zero PAD of the spatial dimensions whose output one convolution or depthwise convolution without the SAME
    /// flag reads (and nothing else): its padding goes into that node's, as `xnn_subgraph_fusion` does.
    mutating func foldPads() {
        let counts = consumers()
        for (p, pad) in graph.nodes.enumerated() where pad.op == .pad {
            guard pad.inputs.count == 2, let out = pad.outputs.first, out >= 0, counts[out] == 1,
                  let pads = graph.tensors[pad.inputs[1]].constant?.ints(), pads.count == 8,
                  graph.tensors[out].shape.count == 4, pads[0] == 0, pads[1] == 0, pads[6] == 0, pads[7] == 0,
                  let c = graph.nodes.indices.first(where: { inputs[$0]?.first == out }),
                  graph.nodes[c].op == .conv2D || graph.nodes[c].op == .depthwiseConv2D, !sameFlag[c] else { continue }
            let (top, right, bottom, left) = padding[c]
            padding[c] = (top + pads[2], right + pads[5], bottom + pads[3], left + pads[4])
            inputs[c]?[0] = pad.inputs[0]
            inputs[p] = nil
        }
    }

    func isStatic(_ t: Int) -> Bool { graph.tensors[t].constant != nil }
    func rank(_ t: Int) -> Int { graph.tensors[t].shape.count }

    /// `xnn_check_nchw_compatibility`.
    func compatibility(_ n: Int) -> Int {
        let node = graph.nodes[n]
        guard let ins = inputs[n], let first = ins.first, first >= 0 else { return 0 }
        let (top, right, bottom, left) = padding[n]
        switch node.options {
        case .conv2D(let o):
            guard o.dilationH == 1, o.dilationW == 1, let (kh, kw) = kernel(node) else { return 0 }
            if kh == 1 && kw == 1 {
                return top | right | bottom | left == 0 && o.strideH == 1 && o.strideW == 1 && !sameFlag[n]
                    ? Self.nchw : 0
            }
            let channels = graph.tensors[first].shape.last ?? 0
            return kh == 3 && kw == 3 && (top, right, bottom, left) == (1, 1, 1, 1) && o.strideH == 2
                && o.strideW == 2 && channels == 3 && !sameFlag[n] ? Self.intoNCHW : 0
        case .depthwiseConv2D(let o):
            guard o.dilationH == 1, o.dilationW == 1, !sameFlag[n], multiplierIsOne(node),
                  o.strideH == o.strideW, o.strideH == 1 || o.strideH == 2, let (kh, kw) = kernel(node), kh == kw
            else { return 0 }
            let p = kh == 3 ? 1 : kh == 5 ? 2 : -1
            return (top, right, bottom, left) == (p, p, p, p) ? Self.nchw : 0
        default:
            break
        }
        switch node.op {
        case .fullyConnected:
            return Self.nchw
        case .depthToSpace:
            return Self.outOfNCHW
        case .mean:
            return rank(first) == 4 ? Self.nchw | Self.outOfNCHW : 0
        case .add, .mul:
            guard ins.count == 2, ins[1] >= 0, rank(ins[0]) == 4, rank(ins[1]) == 4 else { return 0 }
            // XNNPACK counts the first input's dimensions for a constant second input too.
            let nonUnit = graph.tensors[ins[0]].shape.filter { $0 != 1 }.count
            if isStatic(ins[0]) && nonUnit > 1 || isStatic(ins[1]) && nonUnit > 1 { return 0 }
            return Self.nchw
        case .resizeBilinear:
            let s = graph.tensors[first].shape
            return s.count == 4 && s[1] > 1 && s[2] > 1 ? Self.nchw : 0
        case .logistic, .relu, .relu6, .reluN1To1, .tanh:
            return rank(first) == 4 ? Self.nchw : 0
        default:
            return 0
        }
    }

    /// As many output channels as input channels (the delegate's multiplier: their ratio, not the options' field).
    func multiplierIsOne(_ node: Graph.Node) -> Bool {
        guard let input = node.inputs.first, input >= 0, let out = node.outputs.first, out >= 0 else { return false }
        return graph.tensors[input].shape.last == graph.tensors[out].shape.last
    }

    /// The producers of node `n`'s non-constant inputs join its cluster while they may; any other input makes the
    /// cluster incompatible. Returns whether a leader changed.
    mutating func join(_ n: Int) -> Bool {
        guard let ins = inputs[n] else { return false }
        var changed = false
        for t in ins where t >= 0 && !isStatic(t) {
            if graph.inputs.contains(t) || graph.outputs.contains(t) {
                flags[n] |= Self.incompatible
                continue
            }
            guard let p = producer[t], flags[p] & (Self.intoNCHW | Self.nchw) != 0,
                  flags[p] & Self.incompatible == 0 else {
                flags[n] |= Self.incompatible
                continue
            }
            flags[p] &= ~Self.outOfNCHW
            if leader[p] != leader[n] {
                let l = max(leader[p], leader[n])
                leader[p] = l
                leader[n] = l
                changed = true
            }
        }
        return changed
    }

    /// `xnn_subgraph_rewrite_for_nchw`: the nodes whose output (convolutions) or input (the rest) becomes NCHW.
    mutating func nodesRunningNCHW() -> [Int] {
        let count = graph.nodes.count
        var update = false
        for n in 0..<count where flags[n] & Self.outOfNCHW != 0 {
            if join(n) { update = true }
        }
        guard update else { return [] }
        while update {
            update = false
            for n in 0..<count where flags[n] & Self.incompatible == 0 && flags[n] & (Self.nchw | Self.outOfNCHW) != 0 {
                if join(n) { update = true }
            }
        }
        for n in 0..<count { flags[leader[n]] |= flags[n] & Self.incompatible }
        func accepted(_ n: Int) -> Bool {
            flags[leader[n]] & Self.incompatible == 0 && flags[n] & (Self.nchw | Self.outOfNCHW) != 0
        }
        // Every non-constant input of a cluster's node must have only that cluster's nodes as readers.
        let readers = consumers()
        var nchwReaders = [Int](repeating: 0, count: graph.tensors.count)
        for n in 0..<count where accepted(n) {
            for t in inputs[n] ?? [] where t >= 0 && !isStatic(t) { nchwReaders[t] += 1 }
        }
        for n in 0..<count where accepted(n) {
            for t in inputs[n] ?? [] where t >= 0 && !isStatic(t) && nchwReaders[t] != readers[t] {
                flags[leader[n]] |= Self.incompatible
            }
        }
        // Zero weights of the 1x1 convolutions and fully connected layers, per cluster.
        var parameters = [Int](repeating: 0, count: count), zeros = [Int](repeating: 0, count: count)
        for n in 0..<count where inputs[n] != nil && flags[leader[n]] & Self.incompatible == 0 {
            let node = graph.nodes[n]
            let pointwise = node.op == .conv2D && kernel(node).map { max($0.0, $0.1) == 1 } == true
            guard pointwise || node.op == .fullyConnected, node.inputs.count > 1, node.inputs[1] >= 0,
                  let w = graph.tensors[node.inputs[1]].constant?.floats(),
                  let shape = Optional(graph.tensors[node.inputs[1]].shape), let first = shape.first,
                  let last = shape.last else { continue }
            let size = min(first * last, w.count)
            parameters[leader[n]] += size
            zeros[leader[n]] += w[0..<size].filter { $0 == 0 }.count
        }
        var nchwTensors = Set<Int>()
        for n in 0..<count where accepted(n) && zeros[leader[n]] * 3 > parameters[leader[n]] * 2 {
            for t in inputs[n] ?? [] where t >= 0 && !isStatic(t) { nchwTensors.insert(t) }
        }
        // Convolutions run NCHW by their output's layout, the others by their input's.
        return (0..<count).filter { n in
            let node = graph.nodes[n]
            guard inputs[n] != nil else { return false }
            switch node.op {
            case .conv2D, .depthwiseConv2D: return node.outputs.first.map(nchwTensors.contains) ?? false
            case .resizeBilinear: return node.inputs.first.map(nchwTensors.contains) ?? false
            default: return false
            }
        }
    }
}
