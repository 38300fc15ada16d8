/// A CONV_2D and the DEPTHWISE_CONV_2D right after it that reads its output (the expansion
/// and depthwise steps of an inverted-residual block), run interleaved on one thread.
///
/// Run one after the other, the convolution's output (up to 3 MB at 112x112x64) has left the
/// 2 MB L2 cache by the time the depthwise convolution reads its first rows back. Here each
/// GEMM tile is followed by the depthwise rows whose input rows are now complete, which read
/// them while they are still cached. Every value is computed exactly as by the two layers
/// apart (same tiles, same rows, only their order changes), so results are bit-identical; with
/// more than one thread the two run apart, each split over the workers.
///
/// The convolution's inputs stay allocated until the depthwise step (the interpreter extends
/// their lifetime), since the depthwise output is written while the convolution still reads.
final class ConvolutionThenDepthwiseLayer: Layer, CustomStringConvertible {
    var description: String { "\(convolution.description) => \(depthwise.description)" }
    let kind = "CONV_2D+DEPTHWISE_CONV_2D"
    let convolution: Conv2DLayer
    let depthwise: DepthwiseConv2DLayer

    /// Whether `depthwise` reads exactly `convolution`'s output and both take paths that
    /// interleave: tiled GEMM, one image, one channel per input channel. A depthwise layer that
    /// works from a zero-bordered copy of its input (small maps) shares worker 0's scratch with
    /// the convolution's im2col, so it only pairs with a pointwise convolution (which has none).
    static func canInterleave(_ convolution: Conv2DLayer, _ depthwise: DepthwiseConv2DLayer) -> Bool {
        let c = convolution.g, d = depthwise.g
        return c.batch == 1 && d.batch == 1 && c.outC > 1 && depthwise.multiplier == 1
            && (depthwise.padded == nil || convolution.scratchFloatsPerWorker == 0)
            && depthwise.input == convolution.output
            && d.inH == c.outH && d.inW == c.outW && d.inC == c.outC
    }

    init(_ convolution: Conv2DLayer, _ depthwise: DepthwiseConv2DLayer) {
        self.convolution = convolution
        self.depthwise = depthwise
    }

    var flops: Double { convolution.flops + depthwise.flops }
    var scratchFloatsPerWorker: Int { max(convolution.scratchFloatsPerWorker, depthwise.scratchFloatsPerWorker) }

    func run(_ context: RunContext) {
        guard context.threads == 1 else {
            convolution.run(context)
            depthwise.run(context)
            return
        }
        let d = depthwise.g
        let pixels = convolution.pixels, tileRows = convolution.tileRows
        // From a zero-bordered copy, filled row by row as the GEMM tiles complete them.
        let copy = depthwise.padded == nil ? nil : context.scratch(forWorker: 0)
        if let copy { depthwise.zeroPaddedBorders(copy) }
        let rows = copy.map { depthwise.paddedLayer($0) } ?? depthwise
        var copied = 0, next = 0
        for t in 0..<convolution.tileCount {
            convolution.tile(t, worker: 0, context)
            let done = min((t + 1) * tileRows, pixels)
            let rowsReady = done == pixels ? d.inH : done / d.inW
            if let copy {
                depthwise.copyIntoPadded(rows: copied..<rowsReady, copy)
                copied = rowsReady
            }
            // Output row `next` reads input rows up to its last tap's (the last input row at most).
            while next < d.outH && min(next * d.strideH - d.padTop + (d.kH - 1) * d.dilationH, d.inH - 1) < rowsReady {
                rows.row(next)
                next += 1
            }
        }
        if let copy, copied < d.inH { depthwise.copyIntoPadded(rows: copied..<d.inH, copy) }
        while next < d.outH {
            rows.row(next)
            next += 1
        }
    }
}
