/// AVERAGE_POOL_2D over NHWC windows without padding, summed as XNNPACK's `f32-avgpool-9p` kernels sum
/// (TFLite's XNNPACK delegate defines every pool larger than 1x1 as an XNNPACK average pooling):
/// the window's elements column by column (its indirection buffer: kx outer, ky inner), in passes of 9,
/// each pass a fixed tree, `((i2 + i3) + (i4 + i5)) + (((i0 + i1) + i8) + (i6 + i7))`, added to the sum of
/// the passes before it (zero at first; the last pass has 1 to 9 elements, zeros in place of the rest), then
/// times the float `1 / (kH * kW)`, then the activation's clamp. Additions only, so every kernel set gives
/// the same bits.
final class AveragePool2DLayer: PoolingLayer {
    let kind = "AVERAGE_POOL_2D"
    let g: ConvGeometry
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let epilogue: Epilogue

    init(geometry: ConvGeometry, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
         epilogue: Epilogue) {
        g = geometry
        self.input = input
        self.output = output
        self.epilogue = epilogue
    }

    func run(_ context: RunContext) {
        let c = g.inC
        parallelFor(g.batch * g.outH, context: context) { item, _ in
            let n = item / g.outH, oy = item % g.outH
            for ox in 0..<g.outW {
                let out = output + ((n * g.outH + oy) * g.outW + ox) * c
                let origin = input + ((n * g.inH + oy * g.strideH) * g.inW + ox * g.strideW) * c
                var ch = 0
                while ch < c {
                    let lanes = min(8, c - ch)
                    storeLanes(window(origin + ch, lanes: lanes), out + ch, lanes: lanes)
                    ch += lanes
                }
                epilogue.apply(out, rows: 1, channels: c, stride: c)
            }
        }
    }

    /// The average of up to 8 channels of one window starting at `origin`.
    @inline(__always)
    private func window(_ origin: UnsafePointer<Float>, lanes: Int) -> SIMD8<Float> {
        let elements = g.kH * g.kW, kH = g.kH, rowStride = g.inW * g.inC, c = g.inC
        // Element j of the window, column-major; zeros past the end (XNNPACK's zero buffer).
        @inline(__always) func e(_ j: Int) -> SIMD8<Float> {
            guard j < elements else { return SIMD8<Float>() }
            return loadLanes(origin + (j % kH) * rowStride + (j / kH) * c, lanes: lanes)
        }
        var acc = SIMD8<Float>()
        var j = 0
        while true {
            let s018 = (e(j) + e(j + 1)) + e(j + 8)
            let s2345 = (e(j + 2) + e(j + 3)) + (e(j + 4) + e(j + 5))
            let s67 = e(j + 6) + e(j + 7)
            acc = acc + (s2345 + (s018 + s67))
            if elements - j <= 9 { break }
            j += 9
        }
        return acc * SIMD8<Float>(repeating: 1 / Float(elements))
    }

    @inline(__always)
    private func loadLanes(_ p: UnsafePointer<Float>, lanes: Int) -> SIMD8<Float> {
        if lanes == 8 { return load8(p) }
        var v = SIMD8<Float>()
        for i in 0..<lanes { v[i] = p[i] }
        return v
    }

    @inline(__always)
    private func storeLanes(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>, lanes: Int) {
        if lanes == 8 { store8(v, p); return }
        for i in 0..<lanes { p[i] = v[i] }
    }
}
