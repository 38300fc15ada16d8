/// GATHER along one axis with constant indices (batch_dims 0).
final class GatherLayer: Layer {
    let kind = "GATHER"
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let outer: Int, axisSize: Int, inner: Int
    let indices: [Int]

    init(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, outer: Int, axisSize: Int, inner: Int,
         indices: [Int]) {
        self.input = input
        self.output = output
        self.outer = outer; self.axisSize = axisSize; self.inner = inner
        self.indices = indices
    }

    func run(_ context: RunContext) {
        var o = output
        for i in 0..<outer {
            for index in indices {
                o.update(from: input + (i * axisSize + index) * inner, count: inner)
                o += inner
            }
        }
    }
}
