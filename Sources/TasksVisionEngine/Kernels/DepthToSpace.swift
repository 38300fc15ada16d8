/// DEPTH_TO_SPACE (DCR order, as TFLite): output pixel (y, x) channel c reads
/// input pixel (y / b, x / b) channel ((y % b) * b + x % b) * Cout + c.
final class DepthToSpaceLayer: Layer {
    let kind = "DEPTH_TO_SPACE"
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let batch: Int, inH: Int, inW: Int, inC: Int, block: Int

    init(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, batch: Int, inH: Int, inW: Int, inC: Int, block: Int) {
        self.input = input
        self.output = output
        self.batch = batch; self.inH = inH; self.inW = inW; self.inC = inC; self.block = block
    }

    func run(_ context: RunContext) {
        let outC = inC / (block * block), outW = inW * block, outH = inH * block
        for n in 0..<batch {
            for oy in 0..<outH {
                for ox in 0..<outW {
                    let src = input + ((n * inH + oy / block) * inW + ox / block) * inC + ((oy % block) * block + ox % block) * outC
                    (output + ((n * outH + oy) * outW + ox) * outC).update(from: src, count: outC)
                }
            }
        }
    }
}
