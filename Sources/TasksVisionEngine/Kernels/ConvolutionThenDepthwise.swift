import Dispatch

/// A CONV_2D and the DEPTHWISE_CONV_2D right after it that reads its output (the expansion
/// and depthwise steps of an inverted-residual block), run interleaved on one thread.
///
/// Run one after the other, the convolution's output (up to 3 MB at 112x112x64) has left the
/// 2 MB L2 cache by the time the depthwise convolution reads its first rows back. Here each
/// GEMM tile is followed by the depthwise rows whose input rows are now complete, which read
/// them while they are still cached. Every value is computed exactly as by the two layers
/// apart (only the order of the work changes; each sum is one chain whatever the GEMM call, see
/// `BiasFirstGEMM`), so results are bit-identical; with more than one thread the two run apart,
/// each split over the workers, with the same results.
///
/// When a pointwise CONV_2D reads the depthwise output next (the block's projection), it joins
/// in: each of its GEMM tiles runs as soon as the depthwise rows it reads are done.
///
/// The inputs of every member stay allocated until the last member's step (the interpreter
/// extends their lifetimes), since later members write while earlier ones still read.
final class ConvolutionThenDepthwiseLayer: Layer, CustomStringConvertible {
    var description: String {
        "\(convolution.description) => \(depthwise.description)" + (projection.map { " => \($0.description)" } ?? "")
    }
    var kind: String { projection == nil ? "CONV_2D+DEPTHWISE_CONV_2D" : "CONV_2D+DEPTHWISE_CONV_2D+CONV_2D" }
    let convolution: Conv2DLayer
    let depthwise: DepthwiseConv2DLayer
    /// A pointwise convolution of the depthwise output, when it runs interleaved too.
    let projection: Conv2DLayer?

    /// Whether `depthwise` reads exactly `convolution`'s output and both take paths that
    /// interleave: tiled GEMM, one image, one channel per input channel.
    static func canInterleave(_ convolution: Conv2DLayer, _ depthwise: DepthwiseConv2DLayer) -> Bool {
        let c = convolution.g, d = depthwise.g
        return c.batch == 1 && d.batch == 1 && convolution.hasProduct && depthwise.rowKernel != nil
            && depthwise.input == convolution.output
            && d.inH == c.outH && d.inW == c.outW && d.inC == c.outC
    }

    /// Whether `projection` can follow `depthwise` tile by tile: a pointwise convolution of
    /// exactly its output, one image.
    static func canProject(_ depthwise: DepthwiseConv2DLayer, _ projection: Conv2DLayer) -> Bool {
        let d = depthwise.g, p = projection.g
        return projection.pointwise && p.batch == 1 && projection.hasProduct && projection.input == depthwise.output
            && p.inH == d.outH && p.inW == d.outW && p.inC == d.outC
    }

    /// Whether the convolution's output tensor is written at all: not when the depthwise layer is
    /// its only reader and works from a zero-bordered copy, which the GEMM then fills directly,
    /// one image row at a time (saving the copy, 2-3% of hand_landmark_lite; the values are
    /// those of whole tiles, see `BiasFirstGEMM`), if such short calls cost no more than tiles.
    let writesConvolutionOutput: Bool
    /// Whether anything besides `depthwise` reads the convolution's output.
    let convolutionOutputRead: Bool
    /// Whether the depthwise layer writes its output as the rows the projection's bias-first
    /// GEMM reads, each led by a 1 (in scratch), instead of the projection copying them so
    /// (interleaved only, when nothing else reads the depthwise output; the copy was 3-4% of
    /// the hand and pose landmark models).
    let leadsProjectionRows: Bool

    init(_ convolution: Conv2DLayer, _ depthwise: DepthwiseConv2DLayer, projection: Conv2DLayer? = nil, convolutionOutputRead: Bool = true,
         depthwiseOutputRead: Bool = true) {
        self.convolution = convolution
        self.depthwise = depthwise
        self.projection = projection
        self.convolutionOutputRead = convolutionOutputRead
        writesConvolutionOutput = convolutionOutputRead || depthwise.padded == nil || !convolution.runsCostLikeTiles
        leadsProjectionRows = !depthwiseOutputRead && projection?.readsLedRows == true
    }

    /// Floats of the led depthwise output (pixels x (channels + 1)).
    var ledFloats: Int { leadsProjectionRows ? depthwise.g.outH * depthwise.g.outW * (depthwise.g.outC + 1) : 0 }

    /// Worker scratch: the depthwise layer's zero-bordered copy first (worker 0's), the led
    /// depthwise output, then what the convolutions gather (never at the same time on one worker).
    var convolutionScratchOffset: Int { depthwise.scratchFloatsPerWorker + ledFloats }

    var flops: Double { convolution.flops + depthwise.flops + (projection?.flops ?? 0) }
    var packedWeightBytes: Int { convolution.packedWeightBytes + (projection?.packedWeightBytes ?? 0) }
    var scratchFloatsPerWorker: Int {
        convolutionScratchOffset + max(convolution.scratchFloatsPerWorker, projection?.scratchFloatsPerWorker ?? 0)
    }

    func run(_ context: RunContext) {
        guard context.threads == 1 else { runApart(context); return }
        runInterleaved(context)
    }

    /// The members one after the other, each split over the workers; `timed` hears how long each
    /// took (for profiles: interleaved, their time cannot be told apart).
    func runApart(_ context: RunContext, timed: (Layer, Double) -> Void = { _, _ in }) {
        func phase(_ layer: Layer, _ body: () -> Void) {
            let start = DispatchTime.now().uptimeNanoseconds
            body()
            timed(layer, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        if writesConvolutionOutput {
            phase(convolution) { convolution.run(context) }
            phase(depthwise) { depthwise.run(context) }
        } else {
            // The same GEMM calls as interleaved, one image row each.
            let copy = context.scratch(forWorker: 0)
            let d = depthwise.g
            phase(convolution) {
                depthwise.zeroPaddedBorders(copy)
                parallelFor(d.inH, context: context) { y, worker in
                    convolution.compute(image: 0, firstPixel: y * d.inW, count: d.inW, into: depthwise.paddedRow(y, in: copy),
                                        scratch: context.scratch(forWorker: worker) + convolutionScratchOffset)
                }
            }
            let rows = depthwise.paddedLayer(copy)
            phase(depthwise) { parallelFor(d.outH, context: context) { item, _ in rows.row(item) } }
        }
        if let projection { phase(projection) { projection.run(context) } }
    }

    /// Each GEMM tile, then the depthwise rows and projection tiles it completes (one thread).
    func runInterleaved(_ context: RunContext) {
        let d = depthwise.g
        let pixels = convolution.pixels, tileRows = convolution.tileRows
        // From a zero-bordered copy, filled row by row as the GEMM tiles complete them.
        let copy = depthwise.padded == nil ? nil : context.scratch(forWorker: 0)
        let scratch = context.scratch(forWorker: 0) + convolutionScratchOffset
        if let copy { depthwise.zeroPaddedBorders(copy) }
        var writer = depthwise, led: UnsafeMutablePointer<Float>? = nil
        if leadsProjectionRows {
            let rowsLed = context.scratch(forWorker: 0) + depthwise.scratchFloatsPerWorker
            let stride = d.outC + 1
            for i in 0..<(d.outH * d.outW) { rowsLed[i &* stride] = 1 }
            writer = depthwise.withOutput(rowsLed + 1, pixelStride: stride)
            led = rowsLed
        }
        let rows = copy.map { writer.paddedLayer($0) } ?? writer
        var copied = 0, next = 0, projected = 0
        func depthwiseRows(upTo rowsReady: Int) {
            // Output row `next` reads input rows up to its last tap's (the last input row at most).
            while next < d.outH && min(next * d.strideH - d.padTop + (d.kH - 1) * d.dilationH, d.inH - 1) < rowsReady {
                rows.row(next)
                next += 1
            }
        }
        // The projection's tiles whose pixels (rows of the depthwise output) are all done.
        func project(upTo doneRows: Int) {
            guard let projection else { return }
            let done = doneRows == d.outH ? projection.pixels : doneRows * d.outW
            while projected < projection.tileCount && min((projected + 1) * projection.tileRows, projection.pixels) <= done {
                projection.tile(projected, scratch: scratch, ledInput: led)
                projected += 1
            }
        }
        if !writesConvolutionOutput, let copy {
            for y in 0..<d.inH {
                convolution.compute(image: 0, firstPixel: y * d.inW, count: d.inW, into: depthwise.paddedRow(y, in: copy), scratch: scratch)
                depthwiseRows(upTo: y + 1)
                project(upTo: next)
            }
            copied = d.inH
        }
        for t in 0..<(writesConvolutionOutput ? convolution.tileCount : 0) {
            convolution.tile(t, scratch: scratch)
            let done = min((t + 1) * tileRows, pixels)
            let rowsReady = done == pixels ? d.inH : done / d.inW
            if let copy {
                depthwise.copyIntoPadded(rows: copied..<rowsReady, copy)
                copied = rowsReady
            }
            depthwiseRows(upTo: rowsReady)
            project(upTo: next)
        }
        if let copy, copied < d.inH { depthwise.copyIntoPadded(rows: copied..<d.inH, copy) }
        while next < d.outH {
            rows.row(next)
            next += 1
        }
        project(upTo: d.outH)
    }
}
