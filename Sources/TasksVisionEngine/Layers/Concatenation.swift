/// CONCATENATION along any axis: for each outer index, each input's contiguous
/// block is copied in turn.
final class ConcatenationLayer: Layer {
    let kind = "CONCATENATION"
    let inputs: [(pointer: UnsafePointer<Float>, block: Int)]
    let output: UnsafeMutablePointer<Float>
    let outer: Int
    let epilogue: Epilogue
    let channels: Int
    let count: Int

    init(inputs: [(UnsafePointer<Float>, Int)], output: UnsafeMutablePointer<Float>, outer: Int, channels: Int,
         epilogue: Epilogue) {
        self.inputs = inputs.map { (pointer: $0.0, block: $0.1) }
        self.output = output
        self.outer = outer
        self.epilogue = epilogue
        self.channels = max(channels, 1)
        self.count = outer * inputs.reduce(0) { $0 + $1.1 }
    }

    func run(_ context: RunContext) {
        var o = output
        for i in 0..<outer {
            for input in inputs {
                o.update(from: input.pointer + i * input.block, count: input.block)
                o += input.block
            }
        }
        epilogue.apply(output, rows: count / channels, channels: channels, stride: channels)
    }
}

/// A plain copy, for RESHAPE-like ops whose output cannot share the input's memory.
final class CopyLayer: Layer {
    let kind: String
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let count: Int

    init(kind: String, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int) {
        self.kind = kind
        self.input = input
        self.output = output
        self.count = count
    }

    func run(_ context: RunContext) {
        if UnsafePointer(output) != input { output.update(from: input, count: count) }
    }
}
