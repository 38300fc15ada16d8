/// DEPTH_TO_SPACE (DCR order, as TFLite): output pixel (y, x) channel c reads
/// input pixel (y / b, x / b) channel ((y % b) * b + x % b) * Cout + c.
final class DepthToSpaceLayer: Layer {
    let kind = "DEPTH_TO_SPACE"
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let batch: Int, inH: Int, inW: Int, inC: Int, block: Int

    init(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, batch: Int, inH: Int, inW: Int, inC: Int,
         block: Int) {
        self.input = input
        self.output = output
        self.batch = batch; self.inH = inH; self.inW = inW; self.inC = inC; self.block = block
    }

    /// Memory-bound: each element is read and written once.
    var parallelWork: Double { Double(batch * inH * inW * inC) * memoryBoundWorkFactor }

    func run(_ context: RunContext) {
        let outC = inC / (block * block), outW = inW * block, outH = inH * block
        parallelFor(batch * outH, context: context) { item, _ in
            let n = item / outH, oy = item % outH
            let row = input + ((n * inH + oy / block) * inW) * inC + (oy % block) * block * outC
            let out = output + (n * outH + oy) * outW * outC
            for ox in 0..<outW {
                (out + ox * outC).update(from: row + (ox / block) * inC + (ox % block) * outC, count: outC)
            }
        }
    }
}
