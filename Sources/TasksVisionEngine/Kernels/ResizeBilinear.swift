/// RESIZE_BILINEAR over NHWC, as TFLite's reference kernel computes it
/// (`align_corners` and `half_pixel_centers` included): source coordinate
/// `(dst + 0.5) * scale - 0.5` with half-pixel centers, the lower neighbour
/// clamped at 0 and the upper at size - 1.
final class ResizeBilinearLayer: Layer {
    let kind = "RESIZE_BILINEAR"
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let batch: Int, inH: Int, inW: Int, channels: Int, outH: Int, outW: Int
    let ys: [(lo: Int, hi: Int, frac: Float)]
    let xs: [(lo: Int, hi: Int, frac: Float)]

    static func axis(out: Int, in size: Int, alignCorners: Bool, halfPixel: Bool) -> [(lo: Int, hi: Int, frac: Float)] {
        let scale: Float = alignCorners && out > 1 ? Float(size - 1) / Float(out - 1) : Float(size) / Float(out)
        return (0..<out).map { d in
            let s: Float = halfPixel ? (Float(d) + 0.5) * scale - 0.5 : Float(d) * scale
            let f = s.rounded(.down)
            let lo = max(Int(f), 0)
            let hi = min(Int(s.rounded(.up)), size - 1)
            return (lo, hi, s - Float(lo))
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
                        // Same expression and order as TFLite's reference kernel.
                        let w00 = (1 - dy) * (1 - dx), w10 = dy * (1 - dx), w01 = (1 - dy) * dx, w11 = dy * dx
                        // Eight channels at a time, each lane the same expression as the scalar tail.
                        let v00 = SIMD8(repeating: w00), v10 = SIMD8(repeating: w10), v01 = SIMD8(repeating: w01), v11 = SIMD8(repeating: w11)
                        var ch = 0
                        while ch &+ 8 <= c {
                            store8(load8(p00 + ch) * v00 + load8(p10 + ch) * v10 + load8(p01 + ch) * v01 + load8(p11 + ch) * v11, out + ch)
                            ch &+= 8
                        }
                        while ch < c {
                            out[ch] = p00[ch] * w00 + p10[ch] * w10 + p01[ch] * w01 + p11[ch] * w11
                            ch &+= 1
                        }
                    }
                }
            }
        }
    }
}
