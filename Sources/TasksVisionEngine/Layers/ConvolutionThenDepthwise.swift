import Dispatch

/// A CONV_2D and the DEPTHWISE_CONV_2D right after it that reads its output (the expansion
/// and depthwise steps of an inverted-residual block), run interleaved on one thread. Built
/// where `Interpreter.Options.interleavesBlocks` asks for it: by default on the portable set
/// only (on the FMA sets the layers one after the other were faster, see that option).
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

    /// With more than one thread: the depthwise output rows in this many bands, one per work
    /// item, each band its own interleaved pipeline (1 when the block runs its members apart).
    let bands: Int
    /// Padded width of a band's copy of the convolution rows it reads.
    let bandPitch: Int

    init(_ convolution: Conv2DLayer, _ depthwise: DepthwiseConv2DLayer, projection: Conv2DLayer? = nil,
         convolutionOutputRead: Bool = true,
         depthwiseOutputRead: Bool = true, threads: Int = 1) {
        self.convolution = convolution
        self.depthwise = depthwise
        self.projection = projection
        self.convolutionOutputRead = convolutionOutputRead
        writesConvolutionOutput = convolutionOutputRead || depthwise.padded == nil || !convolution.runsCostLikeTiles
        leadsProjectionRows = !depthwiseOutputRead && projection?.readsLedRows == true
        let d = depthwise.g
        // Banded on FMA sets when only the depthwise layer reads the convolution's output (each
        // band computes the rows it reads, its halo included, into a zero-bordered copy of its own).
        let banded = threads > 1 && !convolutionOutputRead && convolution.packed != nil && !leadsProjectionRows
            && (projection == nil || projection?.packed != nil) && depthwise.epilogue.activation != .tanh
            && d.outH >= 2 * threads
        bandPitch = max((d.outW - 1) * d.strideW + d.kW, d.inW + d.padLeft)
        // Each band computes the convolution rows of its halo again: only where that is little
        // (at most 15% more rows; small maps with 5x5 kernels would compute up to 60% more).
        let computed = (0..<threads).map { Self.bandRows($0, of: threads, d) }
            .reduce(0) { $0 + min($1.bottom, d.inH) - max($1.top, 0) }
        bands = banded && computed * 100 <= d.inH * 115 ? threads : 1
    }

    /// Band `b` of `bands`: its depthwise output rows and the input rows (of the convolution's
    /// output, padding rows included) they read.
    typealias BandRows = (outputRows: Range<Int>, top: Int, bottom: Int)
    static func bandRows(_ b: Int, of bands: Int, _ d: ConvGeometry) -> BandRows {
        let r0 = b * d.outH / bands, r1 = (b + 1) * d.outH / bands
        return (r0..<r1, r0 * d.strideH - d.padTop, (r1 - 1) * d.strideH - d.padTop + d.kH)
    }

    func bandInputRows(_ b: Int) -> BandRows { Self.bandRows(b, of: bands, depthwise.g) }

    /// Floats of one band's zero-bordered copy (the largest band).
    var bandCopyFloats: Int {
        guard bands > 1 else { return 0 }
        return (0..<bands).map { bandInputRows($0) }.map { ($0.bottom - $0.top) * bandPitch * depthwise.g.inC }.max()
            ?? 0
    }

    /// Floats of the led depthwise output (pixels x (channels + 1)).
    var ledFloats: Int { leadsProjectionRows ? depthwise.g.outH * depthwise.g.outW * (depthwise.g.outC + 1) : 0 }

    /// Worker scratch: the depthwise layer's zero-bordered copy first (worker 0's), the led
    /// depthwise output, then what the convolutions gather (never at the same time on one worker).
    var convolutionScratchOffset: Int { max(copyFloats + depthwise.scratchFloatsPerWorker + ledFloats, bandCopyFloats) }
    /// Floats of the depthwise layer's zero-bordered copy, when the convolution writes into it.
    var copyFloats: Int { writesConvolutionOutput ? 0 : depthwise.paddedFloats }

    var flops: Double { convolution.flops + depthwise.flops + (projection?.flops ?? 0) }
    var packedWeightBytes: Int { convolution.packedWeightBytes + (projection?.packedWeightBytes ?? 0) }
    var scratchFloatsPerWorker: Int {
        convolutionScratchOffset + max(convolution.scratchFloatsPerWorker, projection?.scratchFloatsPerWorker ?? 0)
    }

    func run(_ context: RunContext) {
        if context.threads == 1 { runInterleaved(context); return }
        if bands > 1 {
            parallelFor(bands, context: context) { b, worker in
                runBand(b, scratch: context.scratch(forWorker: worker))
            }
            return
        }
        runApart(context)
    }

    /// Band `b` of the depthwise output rows as its own interleaved pipeline: each convolution row
    /// the band reads (its halo included) computed into the band's zero-bordered copy, each
    /// depthwise row as soon as its input rows are there, the projection of each finished row.
    /// Every value is computed as in the other schedules, so results do not depend on the bands.
    func runBand(_ b: Int, scratch: UnsafeMutablePointer<Float>) {
        let d = depthwise.g, c = d.inC, (rows, top, bottom) = bandInputRows(b)
        guard let rowKernel = depthwise.rowKernel else { return }
        let copy = scratch, gemmScratch = scratch + convolutionScratchOffset
        let height = bottom - top
        zeroBorder(copy, rows: height, pitch: bandPitch * c, top: max(0, -top), left: d.padLeft * c,
                   innerRows: min(bottom, d.inH) - max(top, 0), innerWidth: d.inW * c)
        var next = rows.lowerBound
        for y in max(top, 0)..<min(bottom, d.inH) {
            convolution.compute(image: 0, firstPixel: y * d.inW, count: d.inW,
                                into: copy + ((y - top) * bandPitch + d.padLeft) * c,
                                scratch: gemmScratch)
            // Depthwise rows whose last input row is now there (or lies in the padding below).
            while next < rows.upperBound && min(next * d.strideH - d.padTop + d.kH - 1, d.inH - 1) <= y {
                finishRow(next)
                next += 1
            }
        }
        while next < rows.upperBound { finishRow(next); next += 1 }

        func finishRow(_ oy: Int) {
            rowKernel(depthwise.rowArguments(input: copy, inH: height, inW: bandPitch, padLeft: 0,
                                             iy0: oy * d.strideH - d.padTop - top,
                                             output: depthwise.output + oy * d.outW * depthwise.outputPixelStride))
            if let projection {
                projection.compute(image: 0, firstPixel: oy * d.outW, count: d.outW,
                                   into: projection.output + oy * d.outW * projection.g.outC, scratch: gemmScratch)
            }
        }
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
                    convolution.compute(image: 0, firstPixel: y * d.inW, count: d.inW,
                                        into: depthwise.paddedRow(y, in: copy),
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
        // From a zero-bordered copy when the GEMM writes its rows there, else from the output.
        let copy = writesConvolutionOutput ? nil : context.scratch(forWorker: 0)
        let scratch = context.scratch(forWorker: 0) + convolutionScratchOffset
        if let copy { depthwise.zeroPaddedBorders(copy) }
        var writer = depthwise, led: UnsafeMutablePointer<Float>? = nil
        if leadsProjectionRows {
            let rowsLed = context.scratch(forWorker: 0) + copyFloats + depthwise.scratchFloatsPerWorker
            let stride = d.outC + 1
            for i in 0..<(d.outH * d.outW) { rowsLed[i &* stride] = 1 }
            writer = depthwise.withOutput(rowsLed + 1, pixelStride: stride)
            led = rowsLed
        }
        let rows = copy.map { writer.paddedLayer($0) } ?? writer
        var next = 0, projected = 0
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
            while projected < projection.tileCount
                && min((projected + 1) * projection.tileRows, projection.pixels) <= done {
                projection.tile(projected, scratch: scratch, ledInput: led)
                projected += 1
            }
        }
        if let copy {
            for y in 0..<d.inH {
                convolution.compute(image: 0, firstPixel: y * d.inW, count: d.inW,
                                    into: depthwise.paddedRow(y, in: copy), scratch: scratch)
                depthwiseRows(upTo: y + 1)
                project(upTo: next)
            }
        }
        for t in 0..<(writesConvolutionOutput ? convolution.tileCount : 0) {
            convolution.tile(t, scratch: scratch)
            let done = min((t + 1) * tileRows, pixels)
            let rowsReady = done == pixels ? d.inH : done / d.inW
            depthwiseRows(upTo: rowsReady)
            project(upTo: next)
        }
        while next < d.outH {
            rows.row(next)
            next += 1
        }
        project(upTo: d.outH)
    }
}
