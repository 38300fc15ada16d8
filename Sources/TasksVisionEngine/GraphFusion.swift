import TasksVisionFormat

/// Load-time rewrites that remove whole passes over activations, as XNNPACK does:
/// a zero PAD feeding a VALID convolution becomes the convolution's own padding,
/// RELU/RELU6/PRELU after a convolution, fully connected layer or ADD become
/// that op's epilogue, and so does the ADD of a per-channel constant after a MUL.
extension Graph {
    mutating func fuse() {
        fusePadIntoConvolution()
        fuseResidualAdd()
        fuseScaleShift()
        fuseActivations()
    }

    /// A MUL whose product only an ADD of a per-channel constant reads (a batch normalization, as between the gesture
    /// embedder's blocks): the constant becomes the MUL's epilogue bias, added to each product after it is rounded,
    /// so both roundings stay and the values are the two ops' own. One pass and one layer instead of two.
    mutating func fuseScaleShift() {
        var removed = Set<Int>()
        let counts = consumerCounts()
        for (ni, node) in nodes.enumerated() where node.op == .mul && !QuantizedOps.isQuantized(node, self) {
            guard ownActivation(node) == FusedActivation.none, node.fusedActivation == nil, node.fusedPReLUAlpha == nil,
                  node.fusedResidual == nil, node.fusedShift == nil, let out = node.outputs.first,
                  let ai = soleConsumer(of: out, counts: counts), ai > ni, !removed.contains(ai) else { continue }
            let add = nodes[ai]
            guard add.op == .add, add.inputs.count == 2, case .activation(let act) = add.options, act != .signBit,
                  let addOut = add.outputs.first, tensors[addOut].shape == tensors[out].shape else { continue }
            let shift = add.inputs[0] == out ? add.inputs[1] : add.inputs[0]
            let channels = tensors[out].shape.last ?? 0
            guard shift != out, shift >= 0, let constant = tensors[shift].constant,
                  constant.type == .float32 || constant.type == .float16, constant.count == channels,
                  tensors[shift].shape.last == channels else { continue }
            nodes[ni].fusedShift = shift
            if act != .none { nodes[ni].fusedActivation = act }
            nodes[ni].outputs[0] = addOut
            removed.insert(ai)
        }
        nodes = nodes.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
    }

    /// CONV_2D or FULLY_CONNECTED followed by an ADD of a same-shaped tensor: the addition (and
    /// the ADD's activation) moves into the product's epilogue, saving a full pass (the ADD's own
    /// rounding of the sum, so the same values).
    /// When the other operand is produced after the convolution (BlazeFace pads its skip
    /// connection there), the convolution moves down to the ADD's place; a zero PAD that
    /// only widens the channels of that operand is folded in as well.
    mutating func fuseResidualAdd() {
        var ni = 0
        while ni < nodes.count {
            defer { ni += 1 }
            let node = nodes[ni]
            let counts = consumerCounts()
            guard node.op == .conv2D || node.op == .fullyConnected, !QuantizedOps.isQuantized(node, self),
                  ownActivation(node) == FusedActivation.none,
                node.fusedActivation == nil, node.fusedPReLUAlpha == nil,
                  node.fusedResidual == nil, let out = node.outputs.first,
                  let ai = soleConsumer(of: out, counts: counts), ai > ni else { continue }
            let add = nodes[ai]
            guard add.op == .add, add.inputs.count == 2, case .activation(let act) = add.options,
                  let addOut = add.outputs.first else { continue }
            var other = add.inputs[0] == out ? add.inputs[1] : add.inputs[0]
            guard other != out, other >= 0, tensors[addOut].shape == tensors[out].shape else { continue }
            var residualChannels = 0
            var removePad: Int? = nil
            // A PAD that only appends zero channels to the other operand, read by this ADD alone,
            // is folded in too: the epilogue adds the narrower tensor to the first channels.
            if let pi = nodes.firstIndex(where: { $0.outputs.first == other }), nodes[pi].op == .pad,
                counts[other] == 1,
               nodes[pi].inputs.count == 2, let pads = tensors[nodes[pi].inputs[1]].constant?.ints(),
               let src = nodes[pi].inputs.first, src >= 0, tensors[src].constant == nil,
               tensors[src].shape.count == tensors[out].shape.count, pads.count == 2 * tensors[out].shape.count,
               pads.dropLast(1).allSatisfy({ $0 == 0 }),
               Array(tensors[src].shape.dropLast()) == Array(tensors[out].shape.dropLast()) {
                residualChannels = tensors[src].shape.last ?? 0
                removePad = pi
                other = src
            } else if tensors[other].shape != tensors[out].shape {
                continue
            }
            // The residual's producer must run before the convolution's new place.
            let producer = nodes.firstIndex { $0.outputs.contains(other) }
            var fused = node
            fused.fusedResidual = other
            fused.fusedResidualChannels = residualChannels
            if act != .none { fused.fusedActivation = act }
            fused.outputs[0] = addOut
            if let p = producer, p > ni, p > ai { continue }
            // Replace the ADD by the fused convolution, then drop the original convolution (and PAD).
            nodes[ai] = fused
            var drop = [ni]
            if let pi = removePad { drop.append(pi) }
            for i in drop.sorted(by: >) { nodes.remove(at: i) }
            ni -= drop.filter { $0 <= ni }.count
        }
    }

    /// Index of the single node reading `tensor`, when exactly one node does and it is not a graph output.
    func soleConsumer(of tensor: Int, counts: [Int]) -> Int? {
        guard counts[tensor] == 1 else { return nil }
        return nodes.firstIndex { $0.inputs.contains(tensor) }
    }

    /// A zero PAD whose readers are all VALID convolutions (the pose detector's heads share one)
    /// becomes each one's own padding, as XNNPACK folds it.
    mutating func fusePadIntoConvolution() {
        let counts = consumerCounts()
        var removed = Set<Int>()
        for (pi, pad) in nodes.enumerated() where pad.op == .pad && !QuantizedOps.isQuantized(pad, self) {
            guard pad.inputs.count == 2, let out = pad.outputs.first,
                  let padsData = tensors[pad.inputs[1]].constant, let pads = padsData.ints(), pads.count == 8,
                  tensors[pad.inputs[0]].shape.count == 4,
                  pads[0] == 0, pads[1] == 0, pads[6] == 0, pads[7] == 0, pads.allSatisfy({ $0 >= 0 }) else { continue }
            // Every read of the PAD's output is the first input of one of these (none is a graph output).
            let readers = nodes.indices.filter { nodes[$0].reads.contains(out) }
            guard !readers.isEmpty, readers.count == counts[out], readers.allSatisfy({ ci in
                let conv = nodes[ci]
                guard conv.inputs.first == out, conv.fusedPadding == nil else { return false }
                switch conv.options {
                case .conv2D(let o) where o.padding == .valid: return true
                case .depthwiseConv2D(let o) where o.padding == .valid: return true
                default: return false
                }
            }) else { continue }
            for ci in readers {
                nodes[ci].inputs[0] = pad.inputs[0]
                nodes[ci].fusedPadding = SpatialPadding(top: pads[2], bottom: pads[3], left: pads[4], right: pads[5])
            }
            removed.insert(pi)
        }
        nodes = nodes.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
    }

    func ownActivation(_ node: Node) -> FusedActivation? {
        switch node.options {
        case .conv2D(let o): return o.activation
        case .depthwiseConv2D(let o): return o.activation
        case .fullyConnected(let o): return o.activation
        case .activation(let a) where node.op == .add || node.op == .sub || node.op == .mul: return a
        default: return nil
        }
    }

    mutating func fuseActivations() {
        var removed = Set<Int>()
        let counts = consumerCounts()
        for (ni, node) in nodes.enumerated() where !removed.contains(ni) {
            guard [.conv2D, .depthwiseConv2D, .fullyConnected, .add].contains(node.op),
                  !QuantizedOps.isQuantized(node, self),
                  ownActivation(node) == FusedActivation.none,
                  (node.fusedActivation ?? FusedActivation.none) == FusedActivation.none,
                  node.fusedPReLUAlpha == nil,
                  let out = node.outputs.first, let ci = soleConsumer(of: out, counts: counts),
                  !removed.contains(ci) else { continue }
            let next = nodes[ci]
            guard next.inputs.first == out, let nextOut = next.outputs.first else { continue }
            let channels = tensors[out].shape.last ?? 0
            let previousActivation = nodes[ni].fusedActivation
            switch next.op {
            case .relu: nodes[ni].fusedActivation = .relu
            case .relu6: nodes[ni].fusedActivation = .relu6
            case .reluN1To1: nodes[ni].fusedActivation = .reluN1To1
            case .prelu:
                // Only slopes that vary along channels alone (shape [..., 1, C]) fold into a per-channel epilogue.
                guard next.inputs.count == 2, let alpha = tensors[next.inputs[1]].constant,
                    alpha.type == .float32 || alpha.type == .float16,
                      alpha.count == channels, tensors[next.inputs[1]].shape.last == channels else { continue }
                nodes[ni].fusedPReLUAlpha = next.inputs[1]
            default: continue
            }
            guard tensors[nextOut].shape == tensors[out].shape else {
                nodes[ni].fusedActivation = previousActivation; nodes[ni].fusedPReLUAlpha = nil; continue
            }
            nodes[ni].outputs[0] = nextOut
            removed.insert(ci)
        }
        nodes = nodes.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
    }
}
