/// MAX_POOL_2D over NHWC, vectorized over channels; taps outside the image are
/// ignored (TFLite pads max pooling with nothing, not zeros).
final class MaxPool2DLayer: Layer {
    let kind = "MAX_POOL_2D"
    let g: ConvGeometry
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let epilogue: Epilogue

    init(geometry: ConvGeometry, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, epilogue: Epilogue) {
        g = geometry
        self.input = input
        self.output = output
        self.epilogue = epilogue
    }

    var flops: Double { Double(g.batch * g.outH * g.outW * g.outC * g.kH * g.kW) }

    func run(_ context: RunContext) {
        let c = g.inC
        parallelFor(g.batch * g.outH, threads: context.threads) { item, _ in
            let n = item / g.outH, oy = item % g.outH
            for ox in 0..<g.outW {
                let out = output + ((n * g.outH + oy) * g.outW + ox) * c
                let y0 = max(0, oy * g.strideH - g.padTop), y1 = min(g.inH, oy * g.strideH - g.padTop + g.kH)
                let x0 = max(0, ox * g.strideW - g.padLeft), x1 = min(g.inW, ox * g.strideW - g.padLeft + g.kW)
                var ch = 0
                while ch + 8 <= c {
                    var m = SIMD8<Float>(repeating: -.infinity)
                    for iy in y0..<y1 {
                        for ix in x0..<x1 {
                            let v = load8(input + ((n * g.inH + iy) * g.inW + ix) * c + ch)
                            m = maxLanes(v, m)
                        }
                    }
                    store8(m, out + ch)
                    ch += 8
                }
                while ch < c {
                    var m = -Float.infinity
                    for iy in y0..<y1 { for ix in x0..<x1 { m = max(m, input[((n * g.inH + iy) * g.inW + ix) * c + ch]) } }
                    out[ch] = m
                    ch += 1
                }
                epilogue.apply(out, rows: 1, channels: c, stride: c)
            }
        }
    }
}
