/// UNPACK: splits a tensor along an axis into `num` tensors with that axis removed.
final class UnpackLayer: Layer {
    let kind = "UNPACK"
    let input: UnsafePointer<Float>
    let outputs: [UnsafeMutablePointer<Float>]
    let outer: Int, inner: Int

    init(input: UnsafePointer<Float>, outputs: [UnsafeMutablePointer<Float>], outer: Int, inner: Int) {
        self.input = input
        self.outputs = outputs
        self.outer = outer
        self.inner = inner
    }

    func run(_ context: RunContext) {
        let num = outputs.count
        outputs.withUnsafeBufferPointer { outs in
            if inner == 1 {
                // The last axis (x, y, z of landmarks): element by element, not a copy call per float.
                for k in 0..<num {
                    let out = outs[k]
                    for i in 0..<outer { out[i] = input[i &* num &+ k] }
                }
                return
            }
            for i in 0..<outer {
                for k in 0..<num { (outs[k] + i * inner).update(from: input + (i * num + k) * inner, count: inner) }
            }
        }
    }
}
