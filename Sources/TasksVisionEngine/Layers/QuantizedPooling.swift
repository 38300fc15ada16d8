import TasksVisionFormat

/// 8-bit MAX_POOL_2D (XNNPACK's `s8-maxpool` / `u8-maxpool`: the largest input of each window, taps outside the
/// image left out, then the fused activation's clamp, its bounds `xnnpackActivationBounds`) and AVERAGE_POOL_2D
/// (TFLite's built-in int8 kernel, which the delegate does not take: the raw values summed over the window's taps
/// inside the image, divided by their count rounding half away from zero, clamped to TFLite's activation bounds).
/// One output row per item.
final class QuantizedPoolingLayer: Layer {
    enum Function { case max, average }

    let kind: String
    let function: Function
    let g: ConvGeometry
    let input: UnsafeRawPointer
    let output: UnsafeMutableRawPointer
    let type: TensorType
    let lo: Int32, hi: Int32

    init(function: Function, geometry: ConvGeometry, input: UnsafeRawPointer, output: UnsafeMutableRawPointer,
         type: TensorType, bounds: (min: Int32, max: Int32)) {
        kind = function == .max ? "MAX_POOL_2D" : "AVERAGE_POOL_2D"
        self.function = function; g = geometry; self.input = input; self.output = output; self.type = type
        lo = bounds.min; hi = bounds.max
    }

    var flops: Double { Double(g.batch * g.outH * g.outW * g.outC * g.kH * g.kW) }
    var parallelWork: Double { flops * memoryBoundWorkFactor }

    func run(_ context: RunContext) {
        if type == .int8 {
            run(input.assumingMemoryBound(to: Int8.self), output.assumingMemoryBound(to: Int8.self), context)
        } else {
            run(input.assumingMemoryBound(to: UInt8.self), output.assumingMemoryBound(to: UInt8.self), context)
        }
    }

    private func run<T: FixedWidthInteger>(_ x: UnsafePointer<T>, _ y: UnsafeMutablePointer<T>, _ context: RunContext) {
        let c = g.inC
        if function == .max {
            // Channel runs, tap by tap into the output (loops LLVM vectorizes), then the clamp.
            parallelFor(g.batch * g.outH, context: context) { item, _ in
                let n = item / g.outH, oy = item % g.outH
                let iy0 = oy * g.strideH - g.padTop
                let kyLo = max(0, -iy0), kyHi = min(g.kH, g.inH - iy0)
                let image = x + n * g.inH * g.inW * c
                let low = T(truncatingIfNeeded: lo), high = T(truncatingIfNeeded: hi)
                for ox in 0..<g.outW {
                    let ix0 = ox * g.strideW - g.padLeft
                    let kxLo = max(0, -ix0), kxHi = min(g.kW, g.inW - ix0)
                    let out = y + ((n * g.outH + oy) * g.outW + ox) * c
                    out.update(repeating: T.min, count: c)
                    for ky in kyLo..<max(kyLo, kyHi) {
                        for kx in kxLo..<max(kxLo, kxHi) {
                            let tap = image + ((iy0 + ky) * g.inW + ix0 + kx) * c
                            for ch in 0..<c { out[ch] = tap[ch] > out[ch] ? tap[ch] : out[ch] }
                        }
                    }
                    for ch in 0..<c { out[ch] = out[ch] < low ? low : (out[ch] > high ? high : out[ch]) }
                }
            }
            return
        }
        // Per output pixel, the taps' channel runs added into 32-bit sums (loops LLVM vectorizes), then each sum
        // divided. Channels in blocks of 256 sums on the stack.
        let block = 256
        parallelFor(g.batch * g.outH, context: context) { item, _ in
            let n = item / g.outH, oy = item % g.outH
            let iy0 = oy * g.strideH - g.padTop
            let kyLo = max(0, -iy0), kyHi = min(g.kH, g.inH - iy0)
            let image = x + n * g.inH * g.inW * c
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: block) { sums in
                for ox in 0..<g.outW {
                    let ix0 = ox * g.strideW - g.padLeft
                    let kxLo = max(0, -ix0), kxHi = min(g.kW, g.inW - ix0)
                    let out = y + ((n * g.outH + oy) * g.outW + ox) * c
                    let taps = max(kyHi - kyLo, 0) * max(kxHi - kxLo, 0)
                    // optimized_integer_ops::AveragePool: C's truncating division of the nudged sum.
                    let half = Int32(taps / 2), count = Int32(max(taps, 1))
                    for c0 in stride(from: 0, to: c, by: block) {
                        let width = min(block, c - c0)
                        for j in 0..<width { sums[j] = 0 }
                        for ky in kyLo..<max(kyLo, kyHi) {
                            for kx in kxLo..<max(kxLo, kxHi) {
                                let tap = image + ((iy0 + ky) * g.inW + ix0 + kx) * c + c0
                                for j in 0..<width { sums[j] &+= Int32(tap[j]) }
                            }
                        }
                        for j in 0..<width {
                            let acc = sums[j]
                            let v = acc > 0 ? (acc + half) / count : (acc - half) / count
                            out[c0 + j] = T(truncatingIfNeeded: min(max(v, lo), hi))
                        }
                    }
                }
            }
        }
    }
}
