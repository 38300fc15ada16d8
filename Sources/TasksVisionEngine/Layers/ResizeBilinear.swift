import TasksVisionKernels
import TasksVisionKernelsPortable

/// RESIZE_BILINEAR over NHWC, as XNNPACK computes it (what MediaPipe runs): each output
/// pixel's source position is `dst * scale + (0.5 * scale - 0.5)` with half-pixel centers
/// (`dst * scale` in TensorFlow's legacy mode and with `align_corners`), clamped to the
/// image; its integer part picks the top-left neighbour, the fraction weighs the others:
/// top = tl + (tr - tl) * ax, bottom = bl + (br - bl) * ax, out = top + (bottom - top) * ay,
/// each product and sum rounded to float in that order (XNNPACK's SSE kernel; on arm64 each
/// product and sum is one fused multiply-add, as its neonfma kernel), on the set's row kernel.
/// Where XNNPACK's arm64 build runs the layer NCHW (its sparse inference), its CHW kernel's sum:
/// left = tl + (bl - tl) * ay, right = tr + (br - tr) * ay, out = left + (right - left) * ax,
/// and a source column on the last one reads the last two with ax = 1.
final class ResizeBilinearLayer: Layer {
    let kind = "RESIZE_BILINEAR"
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let batch: Int, inH: Int, inW: Int, channels: Int, outH: Int, outW: Int
    let ys: [(lo: Int, hi: Int, frac: Float)]
    /// Per output column: the left and right neighbours' offsets (in floats) and the weight of the right one.
    let xLow: UnsafeMutablePointer<Int>, xHigh: UnsafeMutablePointer<Int>, xFraction: UnsafeMutablePointer<Float>
    let rowKernel: (ResizeRowArguments) -> Void
    /// XNNPACK's arm64 NCHW order (`ResizeRowArguments.rowsFirst`).
    let rowsFirst: Bool

    /// XNNPACK's `xnn_indirection_init_resize_bilinear2d_hwc_f32`, one axis.
    static func axis(out: Int, in size: Int, alignCorners: Bool, halfPixel: Bool) -> [(lo: Int, hi: Int, frac: Float)] {
        let adjustment = alignCorners && out != 1 ? 1 : 0
        let scale = Float(size - adjustment) / Float(out - adjustment)
        let last = Float(size - 1)
        let offset: Float = 0.5 * scale - 0.5
        return (0..<out).map { d in
            let s: Float = alignCorners || !halfPixel
                ? min(Float(d) * scale, last) : min(max(Float(d) * scale + offset, 0), last)
            let lo = Int(s)
            return (lo, min(lo + 1, size - 1), s - Float(lo))
        }
    }

    init(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, batch: Int, inH: Int, inW: Int,
         channels: Int,
         outH: Int, outW: Int, alignCorners: Bool, halfPixelCenters: Bool, kernels: Microkernels = .portable,
         sparseInference: Bool = false) {
        self.input = input
        self.output = output
        self.batch = batch; self.inH = inH; self.inW = inW; self.channels = channels; self.outH = outH; self.outW = outW
        ys = Self.axis(out: outH, in: inH, alignCorners: alignCorners, halfPixel: halfPixelCenters)
        rowsFirst = sparseInference && kernels.followsSparseInference && inW > 1
        var xs = Self.axis(out: outW, in: inW, alignCorners: alignCorners, halfPixel: halfPixelCenters)
        if rowsFirst {
            // XNNPACK's `xnn_indirection_init_resize_bilinear2d_chw_f32`: its kernel reads a column and the next.
            xs = xs.map { $0.lo == inW - 1 ? (inW - 2, inW - 1, 1) : $0 }
        }
        xLow = .allocate(capacity: max(outW, 1))
        xHigh = .allocate(capacity: max(outW, 1))
        xFraction = .allocate(capacity: max(outW, 1))
        for (x, s) in xs.enumerated() {
            (xLow + x).initialize(to: s.lo * channels)
            (xHigh + x).initialize(to: s.hi * channels)
            (xFraction + x).initialize(to: s.frac)
        }
        rowKernel = kernels.resizeRow(channels: channels) ?? TasksVisionKernelsPortable.f32ResizeRow
    }

    deinit {
        xLow.deallocate(); xHigh.deallocate(); xFraction.deallocate()
    }

    var flops: Double { Double(batch * outH * outW * channels * 8) }
    /// Memory-bound: four reads per output.
    var parallelWork: Double { Double(batch * outH * outW * channels * 4) * memoryBoundWorkFactor }

    func run(_ context: RunContext) {
        parallelFor(batch * outH, context: context) { item, _ in
            let n = item / outH, y = ys[item % outH]
            var arguments = ResizeRowArguments(top: input + (n * inH + y.lo) * inW * channels,
                                               bottom: input + (n * inH + y.hi) * inW * channels, xLow: xLow,
                                               xHigh: xHigh, xFraction: xFraction, yFraction: y.frac,
                                               channels: channels,
                                               output: output + (n * outH + item % outH) * outW * channels, outW: outW)
            arguments.rowsFirst = rowsFirst
            rowKernel(arguments)
        }
    }
}
