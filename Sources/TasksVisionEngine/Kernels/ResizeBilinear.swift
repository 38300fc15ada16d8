/// RESIZE_BILINEAR over NHWC, as XNNPACK computes it (what MediaPipe runs): each output
/// pixel's source position is `dst * scale + (0.5 * scale - 0.5)` with half-pixel centers
/// (`dst * scale` in TensorFlow's legacy mode and with `align_corners`), clamped to the
/// image; its integer part picks the top-left neighbour, the fraction weighs the others:
/// top = tl + (tr - tl) * ax, bottom = bl + (br - bl) * ax, out = top + (bottom - top) * ay,
/// each product and sum rounded to float in that order (XNNPACK's SSE kernel).
final class ResizeBilinearLayer: Layer {
    let kind = "RESIZE_BILINEAR"
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let batch: Int, inH: Int, inW: Int, channels: Int, outH: Int, outW: Int
    let ys: [(lo: Int, hi: Int, frac: Float)]
    let xs: [(lo: Int, hi: Int, frac: Float)]

    /// XNNPACK's `xnn_indirection_init_resize_bilinear2d_hwc_f32`, one axis.
    static func axis(out: Int, in size: Int, alignCorners: Bool, halfPixel: Bool) -> [(lo: Int, hi: Int, frac: Float)] {
        let adjustment = alignCorners && out != 1 ? 1 : 0
        let scale = Float(size - adjustment) / Float(out - adjustment)
        let last = Float(size - 1)
        let offset: Float = 0.5 * scale - 0.5
        return (0..<out).map { d in
            let s: Float = alignCorners || !halfPixel ? min(Float(d) * scale, last) : min(max(Float(d) * scale + offset, 0), last)
            let lo = Int(s)
            return (lo, min(lo + 1, size - 1), s - Float(lo))
        }
    }

    init(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, batch: Int, inH: Int, inW: Int, channels: Int,
         outH: Int, outW: Int, alignCorners: Bool, halfPixelCenters: Bool) {
        self.input = input
        self.output = output
        self.batch = batch; self.inH = inH; self.inW = inW; self.channels = channels; self.outH = outH; self.outW = outW
        ys = Self.axis(out: outH, in: inH, alignCorners: alignCorners, halfPixel: halfPixelCenters)
        xs = Self.axis(out: outW, in: inW, alignCorners: alignCorners, halfPixel: halfPixelCenters)
    }

    var flops: Double { Double(batch * outH * outW * channels * 8) }

    func run(_ context: RunContext) {
        let c = channels
        ys.withUnsafeBufferPointer { ys in
            xs.withUnsafeBufferPointer { xs in
                parallelFor(batch * outH, context: context) { item, _ in
                    let n = item / outH, oy = item % outH
                    let y = ys[oy]
                    let dy = y.frac
                    let row0 = input + (n * inH + y.lo) * inW * c
                    let row1 = input + (n * inH + y.hi) * inW * c
                    for ox in 0..<outW {
                        let x = xs[ox]
                        let dx = x.frac
                        let p00 = row0 + x.lo * c, p01 = row0 + x.hi * c
                        let p10 = row1 + x.lo * c, p11 = row1 + x.hi * c
                        let out = output + ((n * outH + oy) * outW + ox) * c
                        let ax = SIMD8<Float>(repeating: dx), ay = SIMD8<Float>(repeating: dy)
                        var ch = 0
                        while ch &+ 8 <= c {
                            let tl = load8(p00 + ch), tr = load8(p01 + ch), bl = load8(p10 + ch), br = load8(p11 + ch)
                            let top = tl + (tr - tl) * ax, bottom = bl + (br - bl) * ax
                            store8(top + (bottom - top) * ay, out + ch)
                            ch &+= 8
                        }
                        while ch < c {
                            let top = p00[ch] + (p01[ch] - p00[ch]) * dx, bottom = p10[ch] + (p11[ch] - p10[ch]) * dx
                            out[ch] = top + (bottom - top) * dy
                            ch &+= 1
                        }
                    }
                }
            }
        }
    }
}
