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
        for i in 0..<outer {
            for (k, out) in outputs.enumerated() {
                (out + i * inner).update(from: input + (i * num + k) * inner, count: inner)
            }
        }
    }
}
