import TasksVisionFormat

/// DEPTHWISE_CONV_2D: a direct NHWC kernel, vectorized over channels.
///
/// For each output pixel and each block of eight channels the accumulator stays
/// in registers across all taps (bias first, the clamp/PReLU epilogue last), and
/// taps outside the image are skipped, which is zero padding. Rows of output are
/// the unit of parallel work.
final class DepthwiseConv2DLayer: Layer {
    let kind = "DEPTHWISE_CONV_2D"
    let g: ConvGeometry
    let multiplier: Int
    let input: UnsafeMutablePointer<Float>
    let output: UnsafeMutablePointer<Float>
    /// [1, kH, kW, Cout]
    let weights: UnsafePointer<Float>
    let epilogue: Epilogue

    init(geometry: ConvGeometry, multiplier: Int, input: UnsafeMutablePointer<Float>, output: UnsafeMutablePointer<Float>,
         weights: UnsafePointer<Float>, epilogue: Epilogue) {
        g = geometry
        self.multiplier = multiplier
        self.input = input
        self.output = output
        self.weights = weights
        self.epilogue = epilogue
    }

    var flops: Double { 2.0 * Double(g.batch * g.outH * g.outW * g.outC * g.kH * g.kW) }

    func run(_ context: RunContext) {
        parallelFor(g.batch * g.outH, threads: context.threads) { item, _ in
            if multiplier == 1 { row(item) } else { rowWithMultiplier(item) }
        }
    }

    @inline(__always)
    func row(_ item: Int) {
        let n = item / g.outH, oy = item % g.outH
        let c = g.inC
        let inBase = input + n * g.inH * g.inW * c
        let outRow = output + (n * g.outH + oy) * g.outW * c
        // Taps of this output row that fall inside the image.
        let iy0 = oy * g.strideH - g.padTop
        var kyLo = 0, kyHi = g.kH
        while kyLo < kyHi && iy0 + kyLo * g.dilationH < 0 { kyLo += 1 }
        while kyHi > kyLo && iy0 + (kyHi - 1) * g.dilationH >= g.inH { kyHi -= 1 }
        let (lo, hi) = epilogue.bounds
        let lo8 = SIMD8<Float>(repeating: lo), hi8 = SIMD8<Float>(repeating: hi), zero8 = SIMD8<Float>(repeating: 0)
        let bias = epilogue.bias, alpha = epilogue.alpha
        let tanhOutput = epilogue.activation == .tanh
        for ox in 0..<g.outW {
            let ix0 = ox * g.strideW - g.padLeft
            var kxLo = 0, kxHi = g.kW
            while kxLo < kxHi && ix0 + kxLo * g.dilationW < 0 { kxLo += 1 }
            while kxHi > kxLo && ix0 + (kxHi - 1) * g.dilationW >= g.inW { kxHi -= 1 }
            let out = outRow + ox * c
            var ch = 0
            while ch + 8 <= c {
                var acc = bias.map { load8($0 + ch) } ?? zero8
                for ky in kyLo..<kyHi {
                    let inRow = inBase + ((iy0 + ky * g.dilationH) * g.inW + ix0) * c + ch
                    let wRow = weights + (ky * g.kW) * c + ch
                    for kx in kxLo..<kxHi {
                        acc = acc + load8(inRow + kx * g.dilationW * c) * load8(wRow + kx * c)
                    }
                }
                acc = acc.replacing(with: lo8, where: acc .< lo8).replacing(with: hi8, where: acc .> hi8)
                if let a = alpha { acc = acc.replacing(with: acc * load8(a + ch), where: acc .< zero8) }
                store8(acc, out + ch)
                ch += 8
            }
            while ch < c {
                var acc = bias?[ch] ?? 0
                for ky in kyLo..<kyHi {
                    let inRow = inBase + ((iy0 + ky * g.dilationH) * g.inW + ix0) * c + ch
                    let wRow = weights + (ky * g.kW) * c + ch
                    for kx in kxLo..<kxHi { acc += inRow[kx * g.dilationW * c] * wRow[kx * c] }
                }
                acc = min(max(acc, lo), hi)
                if let a = alpha, acc < 0 { acc *= a[ch] }
                out[ch] = acc
                ch += 1
            }
            if tanhOutput { for i in 0..<c { out[i] = tanhf(out[i]) } }
        }
    }

    /// General depth multiplier: output channel `o` reads input channel `o / multiplier`.
    func rowWithMultiplier(_ item: Int) {
        let n = item / g.outH, oy = item % g.outH
        for ox in 0..<g.outW {
            let out = output + ((n * g.outH + oy) * g.outW + ox) * g.outC
            for o in 0..<g.outC {
                var acc = epilogue.bias?[o] ?? 0
                for ky in 0..<g.kH {
                    let iy = oy * g.strideH - g.padTop + ky * g.dilationH
                    if iy < 0 || iy >= g.inH { continue }
                    for kx in 0..<g.kW {
                        let ix = ox * g.strideW - g.padLeft + kx * g.dilationW
                        if ix < 0 || ix >= g.inW { continue }
                        acc += input[((n * g.inH + iy) * g.inW + ix) * g.inC + o / multiplier] * weights[(ky * g.kW + kx) * g.outC + o]
                    }
                }
                out[o] = acc
            }
            Epilogue(bias: nil, activation: epilogue.activation, alpha: epilogue.alpha).apply(out, rows: 1, channels: g.outC, stride: g.outC)
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
