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
        parallelFor(g.batch * g.outH, context: context) { item, _ in
            let n = item / g.outH, oy = item % g.outH
            for ox in 0..<g.outW {
                let out = output + ((n * g.outH + oy) * g.outW + ox) * c
                let y0 = max(0, oy * g.strideH - g.padTop), y1 = min(g.inH, oy * g.strideH - g.padTop + g.kH)
                let x0 = max(0, ox * g.strideW - g.padLeft), x1 = min(g.inW, ox * g.strideW - g.padLeft + g.kW)
                var ch = 0
                if y1 - y0 == 2 && x1 - x0 == 2 {
                    // The common full 2x2 window: four loads per vector, no loops.
                    let a = input + ((n &* g.inH &+ y0) &* g.inW &+ x0) &* c, b = a + g.inW &* c
                    while ch &+ 8 <= c {
                        store8(maxLanes(maxLanes(load8(a + ch), load8(a + (c &+ ch))), maxLanes(load8(b + ch), load8(b + (c &+ ch)))), out + ch)
                        ch &+= 8
                    }
                }
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
            }
            epilogue.apply(output + (n * g.outH + oy) * g.outW * c, rows: g.outW, channels: c, stride: c)
        }
    }
}
