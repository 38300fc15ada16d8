import COpenBLAS
import TasksVisionFormat

/// Geometry of a 2-D convolution or pool over NHWC tensors.
struct ConvGeometry: Equatable {
    var batch: Int
    var inH: Int, inW: Int, inC: Int
    var outH: Int, outW: Int, outC: Int
    var kH: Int, kW: Int
    var strideH: Int, strideW: Int
    var dilationH: Int = 1, dilationW: Int = 1
    var padTop: Int, padLeft: Int

    /// TFLite's padding rule: SAME pads `max((out-1)*stride + k_eff - in, 0)`, the smaller half first.
    static func padding(_ p: Padding, input: Int, kernel: Int, stride: Int, dilation: Int) -> (out: Int, before: Int, after: Int) {
        let effective = (kernel - 1) * dilation + 1
        switch p {
        case .same:
            let out = (input + stride - 1) / stride
            let total = max((out - 1) * stride + effective - input, 0)
            return (out, total / 2, total - total / 2)
        case .valid:
            return ((input - effective + stride) / stride, 0, 0)
        }
    }
}

/// CONV_2D through OpenBLAS `sgemm` on NHWC data.
///
/// A 1x1 stride-1 unpadded convolution is one GEMM straight on the input
/// (pixels x Cin times Cin x Cout); any other shape gathers a tile of output
/// pixels' receptive fields (im2col, zeros for padding) into scratch first.
/// Output pixels are processed in fixed tiles so that the bias/activation
/// epilogue runs while the tile is still in cache and so that threads split the
/// work the same way at any thread count.
final class Conv2DLayer: Layer, CustomStringConvertible {
    var description: String { "\(g.inH)x\(g.inW)x\(g.inC) k\(g.kH)x\(g.kW) s\(g.strideH) -> \(g.outH)x\(g.outW)x\(g.outC) tile \(tileRows)" }
    let kind = "CONV_2D"
    let g: ConvGeometry
    let input: UnsafeMutablePointer<Float>
    let output: UnsafeMutablePointer<Float>
    /// [Cout, kH, kW, Cin] as in the model: exactly the transposed B of the GEMM.
    let weights: UnsafePointer<Float>
    let epilogue: Epilogue
    let pointwise: Bool
    let k: Int
    let tileRows: Int
    let pixels: Int

    init(geometry: ConvGeometry, input: UnsafeMutablePointer<Float>, output: UnsafeMutablePointer<Float>,
         weights: UnsafePointer<Float>, epilogue: Epilogue) {
        g = geometry
        self.input = input
        self.output = output
        self.weights = weights
        self.epilogue = epilogue
        k = g.kH * g.kW * g.inC
        pointwise = g.kH == 1 && g.kW == 1 && g.strideH == 1 && g.strideW == 1 && g.padTop == 0 && g.padLeft == 0
            && g.inH == g.outH && g.inW == g.outW
        pixels = g.outH * g.outW
        // About 128 KiB of A (or C) per tile: big enough for GEMM efficiency, small enough for L2.
        let widest = max(pointwise ? g.inC : k, g.outC, 1)
        let rows = max(32, min(1024, (32 * 1024) / widest))
        tileRows = min(pixels, (rows + 7) / 8 * 8)
    }

    var flops: Double { 2.0 * Double(g.batch * pixels * g.outC * k) }
    var scratchFloatsPerWorker: Int { pointwise ? 0 : tileRows * k }

    func run(_ context: RunContext) {
        let tilesPerImage = (pixels + tileRows - 1) / tileRows
        parallelFor(g.batch * tilesPerImage, threads: context.threads) { item, worker in
            let n = item / tilesPerImage
            let p0 = (item % tilesPerImage) * tileRows
            let rows = min(tileRows, pixels - p0)
            let out = output + (n * pixels + p0) * g.outC
            let a: UnsafePointer<Float>
            if pointwise {
                a = UnsafePointer(input + (n * pixels + p0) * g.inC)
            } else {
                let scratch = context.scratch(forWorker: worker)
                im2col(image: n, firstPixel: p0, rows: rows, into: scratch)
                a = UnsafePointer(scratch)
            }
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Int32(rows), Int32(g.outC), Int32(k),
                        1, a, Int32(k), weights, Int32(k), 0, out, Int32(g.outC))
            epilogue.apply(out, rows: rows, channels: g.outC, stride: g.outC, offset: (n * pixels + p0) * g.outC)
        }
    }

    /// Gathers the receptive fields of `rows` output pixels into rows of `k` floats.
    @inline(__always)
    func im2col(image n: Int, firstPixel p0: Int, rows: Int, into dst: UnsafeMutablePointer<Float>) {
        let c = g.inC
        let base = input + n * g.inH * g.inW * c
        for r in 0..<rows {
            let p = p0 + r
            let oy = p / g.outW, ox = p % g.outW
            var d = dst + r * k
            for ky in 0..<g.kH {
                let iy = oy * g.strideH - g.padTop + ky * g.dilationH
                if iy < 0 || iy >= g.inH {
                    d.initialize(repeating: 0, count: g.kW * c)
                    d += g.kW * c
                    continue
                }
                let row = base + iy * g.inW * c
                let ix0 = ox * g.strideW - g.padLeft
                if g.dilationW == 1 && ix0 >= 0 && ix0 + g.kW <= g.inW {
                    // The kernel row is one contiguous run of kW * C floats.
                    let src = row + ix0 * c
                    for i in 0..<(g.kW * c) { d[i] = src[i] }
                    d += g.kW * c
                    continue
                }
                for kx in 0..<g.kW {
                    let ix = ox * g.strideW - g.padLeft + kx * g.dilationW
                    if ix < 0 || ix >= g.inW {
                        d.initialize(repeating: 0, count: c)
                    } else {
                        d.update(from: row + ix * c, count: c)
                    }
                    d += c
                }
            }
        }
    }
}
