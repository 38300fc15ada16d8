import Dispatch
import TasksVisionFormat
import TasksVisionKernels
import TasksVisionKernelsAVX2
import TasksVisionKernelsAVX512
import TasksVisionKernelsNEON
import TasksVisionKernelsPortable

/// The microkernels of one kernel set, filled once from the set, as XNNPACK's
/// `src/configs/*-config.c` fill their tables from the CPU's features. Layers take their
/// arithmetic from here. The portable set has no GEMM (its products are OpenBLAS's,
/// `BiasFirstGEMM`) and a depthwise kernel that emulates the fused multiply-add. A wider set
/// also lists the narrower set's kernels it can run (every AVX-512 CPU has AVX2 and FMA), for
/// layers too narrow for its vectors; every kernel sums in XNNPACK's order, so which one runs
/// a layer never changes its results.
struct Microkernels {
    /// A GEMM and the column tile its weights are packed for; `vectors` is the vector
    /// instructions per k and row, the tile's cost.
    struct GEMM {
        let nr: Int
        let vectors: Int
        let run: (GEMMArguments) -> Void
        /// Weights packed in XNNPACK's `s4` layout (`PackedWeights(rotatedQuadsOf:...)`), not plainly.
        var rotatedQuads = false
    }
    /// A row kernel (depthwise convolution, max pooling) and the fewest channels it runs on vectors.
    struct RowKernel<Arguments> {
        let minimumChannels: Int
        let run: (Arguments) -> Void
    }
    typealias DepthwiseRow = RowKernel<DepthwiseRowArguments>
    typealias MaxPoolRow = RowKernel<MaxPoolRowArguments>
    typealias ResizeRow = RowKernel<ResizeRowArguments>

    let set: KernelSet
    /// The processor the table was filled for (its kernels' choices, and which vector kernels it runs).
    let features: CPUFeatures
    /// The GEMMs of 1x1 and KxK convolutions and fully connected layers, widest first.
    let gemms: [GEMM]
    /// On a processor that halves 512-bit instructions (`CPUFeatures.halvesWideVectors`, Zen 4), the AVX2 GEMMs, for
    /// the column counts whose last 32-wide tile would have 8 to 15 empty lanes (see `gemms(columns:)`).
    let halfWidthGEMMs: [GEMM]?
    /// Depthwise convolution, one output row per call (one channel per input channel, no
    /// dilation), widest first; the last runs any channel count.
    let depthwiseRows: [DepthwiseRow]
    /// Max pooling, one output row per call, widest first; the last runs any channel count.
    let maxPoolRows: [MaxPoolRow]
    /// Bilinear resize, one output row per call, widest first; the last runs any channel count.
    let resizeRows: [ResizeRow]
    /// A convolution with one output channel, one output row per call (stride 1, no dilation), on planar input
    /// rows; nil on the portable set.
    let oneChannelConvRow: ((OneChannelConvRowArguments) -> Void)?
    /// HARD_SWISH as XNNPACK's vhswish kernels (one fused multiply-add, then a clamp and a product).
    let hardSwish: (UnsafePointer<Float>, UnsafeMutablePointer<Float>, Int) -> Void
    /// RELU, RELU6, RELU_N1_TO_1 as XNNPACK's vclamp kernels (max with the lower bound, then min with the upper).
    let clamp: (UnsafePointer<Float>, UnsafeMutablePointer<Float>, Int, Float, Float) -> Void
    /// The binary elementwise ops as XNNPACK's vbinary kernels, over rows of runs (`BinaryRowsArguments`).
    let binary: (BinaryElementwiseFunction, BinaryRowsArguments) -> Void
    /// AVERAGE_POOL_2D as XNNPACK's avgpool-9p kernels (additions only: every set gives the same bits).
    let averagePool: (AveragePoolArguments) -> Void
    /// Whose sigmoid and softmax exponential an FMA set reproduces (nil: the portable formulas).
    let elementwise: XNNPACKElementwise.Variant?
    /// Whose SQRT and RSQRT (an estimate instruction and one Newton-Raphson step) every set reproduces on an x86 CPU:
    /// the estimate is the processor's own, whatever the set (nil: the correctly rounded formulas).
    let squareRoots: XNNPACKElementwise.Variant?
    /// On the arm64 set, the GEMM of the 1x1 convolutions and fully connected layers that XNNPACK's arm64 build gives
    /// its two-column kernel, which sums in four lane chains (see its file); nil elsewhere (`plainGEMM`).
    let laneChainGEMM: GEMM?
    /// On the arm64 set, on a core whose XNNPACK one-row GEMM sums in two chains (`CPUFeatures.oneRowGEMMSumsInPairs`),
    /// that GEMM, for the 1x1 convolutions and fully connected layers of one row (`plainGEMM(columns:rows:)`).
    let oneRowPairsGEMM: GEMM?
    /// On the arm64 set, the GEMM of a KxK convolution of one output pixel or fewer than 8 output channels
    /// (`windowGEMM(columns:rows:)`): XNNPACK's arm64 IGEMM sums those in two chains, restarting at each tap
    /// (`GEMMArguments.tapLength`), on every core measured (Neoverse V1 and N1, tools/arm64_check.sh); nil elsewhere.
    let oneWindowPairsGEMM: GEMM?
    /// On the AVX2 set, on the first Zen (`CPUFeatures.gemmSumsRotatedQuads`), the GEMM of every convolution and
    /// fully connected layer, which XNNPACK's x86 build sums there in rotated quads (see its file); nil elsewhere.
    let rotatedQuadsGEMM: GEMM?
    /// Whether the layers XNNPACK runs in its sparse inference's NCHW layout (`Graph.Node.sparseInference`) take
    /// its NCHW kernels' orders (`SparseInferenceOrders`): on the arm64 set, where XNNPACK runs that layout.
    var followsSparseInference: Bool { self.set == .neon }
    /// The depthwise windows (in taps) this set sums in two chains, even places of the window's order from the bias
    /// and odd ones from zero, as XNNPACK's arm64 25-tap kernel; nil: one chain (XNNPACK's x86 kernels).
    let depthwiseTwoChainTaps: ClosedRange<Int>?

    /// `features` choose what XNNPACK's configs choose by the CPU (the x86 `elementwise` variant, the first Zen's
    /// rotated quads, the arm64 cores' one-row pairs, Zen 4's half-width tiles for speed); the set chooses the rest.
    init(_ set: KernelSet, features: CPUFeatures = .current) {
        self.set = set
        self.features = features
        // The CPU's variant on the portable set too: TFLite on this CPU runs it whatever set we force.
        elementwise = set == .neon ? .neon : XNNPACKElementwise.Variant(for: features)
        squareRoots = set == .neon ? nil : XNNPACKElementwise.Variant(for: features)
        let avx2 = [GEMM(nr: TasksVisionKernelsAVX2.gemmNR, vectors: 2, run: TasksVisionKernelsAVX2.f32GEMM),
                    GEMM(nr: TasksVisionKernelsAVX2.gemmNarrowNR, vectors: 1,
                         run: TasksVisionKernelsAVX2.f32GEMMNarrow)]
        let avx2Depthwise = DepthwiseRow(minimumChannels: 0, run: TasksVisionKernelsAVX2.f32DepthwiseRow)
        let avx2MaxPool = MaxPoolRow(minimumChannels: 0, run: TasksVisionKernelsAVX2.f32MaxPoolRow)
        let avx2Resize = ResizeRow(minimumChannels: 0, run: TasksVisionKernelsAVX2.f32ResizeRow)
        halfWidthGEMMs = set == .avx512 && features.halvesWideVectors ? avx2 : nil
        laneChainGEMM = set == .neon
            ? GEMM(nr: TasksVisionKernelsNEON.gemmLanesNR, vectors: 1, run: TasksVisionKernelsNEON.f32GEMMLanes4) : nil
        let pairs = GEMM(nr: TasksVisionKernelsNEON.gemmLanesNR, vectors: 1,
                         run: TasksVisionKernelsNEON.f32GEMMPairs)
        oneRowPairsGEMM = set == .neon && features.oneRowGEMMSumsInPairs ? pairs : nil
        oneWindowPairsGEMM = set == .neon ? pairs : nil
        rotatedQuadsGEMM = set == .avx2 && features.gemmSumsRotatedQuads
            ? GEMM(nr: TasksVisionKernelsAVX2.gemmRotatedQuadsNR, vectors: 2,
                   run: TasksVisionKernelsAVX2.f32GEMMRotatedQuads, rotatedQuads: true) : nil
        switch set {
        case .avx512:
            hardSwish = TasksVisionKernelsAVX512.f32HardSwish
            clamp = TasksVisionKernelsAVX512.f32Clamp
            binary = TasksVisionKernelsAVX512.f32BinaryRows
            averagePool = TasksVisionKernelsAVX512.f32AveragePool
            gemms = [GEMM(nr: TasksVisionKernelsAVX512.gemmNR, vectors: 2, run: TasksVisionKernelsAVX512.f32GEMM),
                     GEMM(nr: TasksVisionKernelsAVX512.gemmNarrowNR, vectors: 1,
                          run: TasksVisionKernelsAVX512.f32GEMMNarrow),
                     avx2[1]]
            depthwiseRows = [DepthwiseRow(minimumChannels: 16, run: TasksVisionKernelsAVX512.f32DepthwiseRow),
                             avx2Depthwise]
            maxPoolRows = [MaxPoolRow(minimumChannels: 16, run: TasksVisionKernelsAVX512.f32MaxPoolRow), avx2MaxPool]
            resizeRows = [ResizeRow(minimumChannels: 16, run: TasksVisionKernelsAVX512.f32ResizeRow), avx2Resize]
            oneChannelConvRow = TasksVisionKernelsAVX512.f32OneChannelConvRow
            depthwiseTwoChainTaps = TasksVisionKernelsAVX512.depthwiseTwoChainTaps
        case .avx2:
            hardSwish = TasksVisionKernelsAVX2.f32HardSwish
            clamp = TasksVisionKernelsAVX2.f32Clamp
            binary = TasksVisionKernelsAVX2.f32BinaryRows
            averagePool = TasksVisionKernelsAVX2.f32AveragePool
            gemms = avx2
            depthwiseRows = [avx2Depthwise]
            maxPoolRows = [avx2MaxPool]
            resizeRows = [avx2Resize]
            oneChannelConvRow = TasksVisionKernelsAVX2.f32OneChannelConvRow
            depthwiseTwoChainTaps = TasksVisionKernelsAVX2.depthwiseTwoChainTaps
        case .neon:
            hardSwish = TasksVisionKernelsNEON.f32HardSwish
            clamp = TasksVisionKernelsNEON.f32Clamp
            binary = TasksVisionKernelsNEON.f32BinaryRows
            averagePool = TasksVisionKernelsNEON.f32AveragePool
            gemms = [GEMM(nr: TasksVisionKernelsNEON.gemmNR, vectors: 2, run: TasksVisionKernelsNEON.f32GEMM),
                     GEMM(nr: TasksVisionKernelsNEON.gemmNarrowNR, vectors: 1,
                          run: TasksVisionKernelsNEON.f32GEMMNarrow)]
            depthwiseRows = [DepthwiseRow(minimumChannels: 0, run: TasksVisionKernelsNEON.f32DepthwiseRow)]
            maxPoolRows = [MaxPoolRow(minimumChannels: 0, run: TasksVisionKernelsNEON.f32MaxPoolRow)]
            resizeRows = [ResizeRow(minimumChannels: 0, run: TasksVisionKernelsNEON.f32ResizeRow)]
            oneChannelConvRow = TasksVisionKernelsNEON.f32OneChannelConvRow
            depthwiseTwoChainTaps = TasksVisionKernelsNEON.depthwiseTwoChainTaps
        case .portable:
            hardSwish = TasksVisionKernelsPortable.f32HardSwish
            clamp = TasksVisionKernelsPortable.f32Clamp
            binary = TasksVisionKernelsPortable.f32BinaryRows
            averagePool = TasksVisionKernelsPortable.f32AveragePool
            gemms = []
            depthwiseRows = [DepthwiseRow(minimumChannels: 0, run: TasksVisionKernelsPortable.f32DepthwiseRow)]
            maxPoolRows = [MaxPoolRow(minimumChannels: 0, run: TasksVisionKernelsPortable.f32MaxPoolRow)]
            resizeRows = [ResizeRow(minimumChannels: 0, run: TasksVisionKernelsPortable.f32ResizeRow)]
            oneChannelConvRow = nil
            depthwiseTwoChainTaps = TasksVisionKernelsPortable.depthwiseTwoChainTaps
        }
    }

    /// The GEMM a 1x1 convolution or fully connected layer of `columns` columns and `rows` rows takes instead of
    /// the set's tiles, if any. XNNPACK runs such a convolution as a fully connected layer, which takes its `nr2`
    /// configuration (narrower tiles) where `usesNR2` says. On the first Zen the default configuration is the
    /// rotated-quads GEMM, the `nr2` one sums in one chain (its `4x8` kernels): measured under emulation, 16, 28,
    /// 32, 48, 64 and 1000 columns sum in rotated quads there, 8, 12, 20, 24, 36 and 40 in one chain. On arm64 the
    /// `nr2` tiles (two columns) are the lane-chain GEMM (measured: 1, 2, 4, 6, 9, 10, 12, 28, 36, 38, 42, 108 columns
    /// take it; 39 and 63 do not); else, for one row, the two-chain one-row GEMM on the cores that sum so.
    func plainGEMM(columns: Int, rows: Int) -> GEMM? {
        if let rotatedQuadsGEMM {
            return Self.usesNR2(nr: rotatedQuadsGEMM.nr, nr2: rotatedQuadsGEMM.nr / 2, columns: columns)
                ? nil : rotatedQuadsGEMM
        }
        // XNNPACK's arm64 tiles: 8 columns, 2 in its `nr2` configuration (packed here one column per block).
        if let laneChainGEMM, Self.usesNR2(nr: 8, nr2: 2, columns: columns) { return laneChainGEMM }
        return rows == 1 ? oneRowPairsGEMM : nil
    }

    /// XNNPACK's `xnn_use_nr2`: whether a fully connected layer of `columns` output channels takes the `nr2` tiles
    /// instead of the `nr` ones: when it has fewer columns than a default tile, or when the `nr2` tiles pad fewer
    /// columns and the default ones pad more than 1% of them.
    static func usesNR2(nr: Int, nr2: Int, columns: Int) -> Bool {
        let padding = (nr - columns % nr) % nr, padding2 = (nr2 - columns % nr2) % nr2
        return nr > columns || (padding2 < padding && padding * 100 > columns)
    }

    /// The GEMM a KxK convolution of `columns` output channels and `rows` output pixels takes instead of the
    /// set's tiles, if any. On the first Zen, the rotated-quads GEMM from 16 columns (XNNPACK's convolution takes its
    /// `nr2` tiles, one chain, only below its default tile's width; measured: 20, 28, 36 and 40 columns rotated, 12
    /// in one chain), its groups restarting at each tap. On arm64, for one pixel or fewer than 8 channels, the
    /// two-chain GEMM with its parity restarting at each tap, as TFLite's arm64 build sums them (measured on
    /// Neoverse V1 and N1: one pixel at 1, 16, 24, 40, 117 and 195 columns, 1 to 7 columns at 16x16 and 256x256
    /// pixels, 3 to 192 channels, padded or not; 8, 9, 12 and 16 columns of 2 pixels or more sum one chain there).
    /// One column over a large map takes the one-channel row kernel, which sums so too on that set.
    func windowGEMM(columns: Int, rows: Int) -> GEMM? {
        if let rotatedQuadsGEMM { return columns < rotatedQuadsGEMM.nr ? nil : rotatedQuadsGEMM }
        return rows == 1 || columns < 8 ? oneWindowPairsGEMM : nil
    }

    /// The GEMM of a product of `columns` columns, from the table `gemms(columns:)` gives it.
    func gemm(columns: Int) -> GEMM? { Self.gemm(columns: columns, in: gemms(columns: columns)) }

    /// The GEMMs a product of `columns` columns chooses from: the set's, or on a processor that halves 512-bit
    /// instructions the AVX2 ones where the set's 32-wide tiles would leave 8 to 15 lanes of the last tile empty
    /// (24, 56, 88 ... columns: 16-wide tiles and an 8-wide one pad none, at the same multiply-adds per cycle there;
    /// fewer empty lanes cost less than the narrower tiles' extra loads).
    func gemms(columns: Int) -> [GEMM] {
        guard let halfWidthGEMMs, let widest = gemms.first else { return gemms }
        let empty = (widest.nr - columns % widest.nr) % widest.nr
        return empty >= widest.nr / 4 && empty < widest.nr / 2 ? halfWidthGEMMs : gemms
    }

    /// The widest GEMM when `columns` fill at least one of its tiles, as XNNPACK picks, unless the set's one-vector
    /// tile computes enough less padding to make up for its lower speed (`narrowTileSpeed`): 24 columns on AVX2 take
    /// three 8-wide tiles, not two 16-wide ones of which a quarter is padding. Fewer columns than a wide tile take
    /// the tile with the fewest vector instructions, then the least padding: 8 channels an 8-wide tile.
    static func gemm(columns: Int, in gemms: [GEMM]) -> GEMM? {
        func cost(_ g: GEMM) -> (Int, Int) {
            let blocks = (columns + g.nr - 1) / g.nr
            return (blocks * g.vectors, blocks * g.nr)
        }
        func used(_ g: GEMM) -> Double { Double(columns) / Double((columns + g.nr - 1) / g.nr * g.nr) }
        if let widest = gemms.first, columns >= widest.nr {
            if gemms.count > 1 && used(gemms[1]) * Self.narrowTileSpeed > used(widest) { return gemms[1] }
            return widest
        }
        return gemms.min { cost($0) < cost($1) }
    }

    /// Multiply-adds per second of the one-vector tiles against the two-vector ones (their broadcasts and weight
    /// loads per multiply-add are more), about 0.8 on AVX2 (Zen 3) and AVX-512 alike.
    static let narrowTileSpeed = 0.8

    /// The widest depthwise row kernel for `channels`.
    func depthwiseRow(channels: Int) -> ((DepthwiseRowArguments) -> Void)? {
        depthwiseRows.first { channels >= $0.minimumChannels }?.run
    }

    /// The widest bilinear resize row kernel for `channels`.
    func resizeRow(channels: Int) -> ((ResizeRowArguments) -> Void)? {
        resizeRows.first { channels >= $0.minimumChannels }?.run
    }

    /// The widest max pooling row kernel for `channels`.
    func maxPoolRow(channels: Int) -> ((MaxPoolRowArguments) -> Void)? {
        maxPoolRows.first { channels >= $0.minimumChannels }?.run
    }

    static let portable = Microkernels(.portable)
}

extension KernelSet {
    /// Whether an engine on this set sums every convolution, fully connected and depthwise layer
    /// as XNNPACK does: the FMA sets always; the portable set where OpenBLAS's AVX-512 kernels
    /// loaded (their chains fuse as XNNPACK's, see `BiasFirstGEMM`).
    public var sumsAsXNNPACK: Bool {
        fusesMultiplyAdd || (BLASConfiguration.coreName == "SkylakeX" && BLASConfiguration.axpyIsFused)
    }

    /// The fused multiply-add peak of one core on this set's vectors, in GFLOP/s, measured over
    /// about `seconds` (nil on the portable set, which has no FMA kernels).
    public func measuredFMAPeak(seconds: Double = 0.2) -> Double? {
        let loop: (Int, Float) -> Float, lanes: Int, chains: Int
        switch self {
        case .avx512:
            loop = TasksVisionKernelsAVX512.fmaPeakLoop; lanes = TasksVisionKernelsAVX512.vectorLanes
            chains = TasksVisionKernelsAVX512.fmaPeakChains
        case .avx2:
            loop = TasksVisionKernelsAVX2.fmaPeakLoop; lanes = TasksVisionKernelsAVX2.vectorLanes
            chains = TasksVisionKernelsAVX2.fmaPeakChains
        case .neon:
            loop = TasksVisionKernelsNEON.fmaPeakLoop; lanes = TasksVisionKernelsNEON.vectorLanes
            chains = TasksVisionKernelsNEON.fmaPeakChains
        case .portable: return nil
        }
        var iterations = 1 << 16, best = 0.0
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        var sink: Float = 0
        while DispatchTime.now().uptimeNanoseconds < deadline {
            let start = DispatchTime.now().uptimeNanoseconds
            sink += loop(iterations, sink * 1e-30 + 1)
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            best = max(best, Double(iterations * chains * 2 * lanes) / max(elapsed, 1e-9) / 1e9)
            if elapsed < 0.005 { iterations *= 2 }
        }
        return sink.isNaN ? nil : best
    }

    /// The set's GEMM on one `m` x `k` times `k` x `n` product with a clamp epilogue (a 1x1
    /// convolution's shape), in GFLOP/s, best of `runs` (nil on the portable set). For
    /// `vision-bench --gemm`, to tell the microkernel's speed from the layers around it.
    /// `residual`: a residual ADD folded in before the clamp, as in an inverted-residual block's projection.
    public func measuredGEMM(m: Int, k: Int, n: Int, residual: Bool = false, runs: Int = 50,
                             cold: Bool = false) -> Double? {
        guard fusesMultiplyAdd, m > 0, k > 0, n > 0 else { return nil }
        let a = UnsafeMutablePointer<Float>.allocate(capacity: m * k),
            w = UnsafeMutablePointer<Float>.allocate(capacity: n * k)
        let c = UnsafeMutablePointer<Float>.allocate(capacity: m * n)
        let skip = UnsafeMutablePointer<Float>.allocate(capacity: m * n)
        skip.initialize(repeating: 0.5, count: m * n)
        defer { a.deallocate(); w.deallocate(); c.deallocate(); skip.deallocate() }
        for i in 0..<(m * k) { a[i] = Float(i % 7) * 0.25 - 0.5 }
        for i in 0..<(n * k) { w[i] = Float(i % 5) * 0.125 - 0.25 }
        let gemm = PackedGEMM(weights: w, k: k, columns: n,
                              epilogue: Epilogue(residual: residual ? UnsafePointer(skip) : nil, activation: .relu6),
                              kernels: Microkernels(self))
        var best = Double.infinity
        let flushFloats = cold ? 16 << 20 : 0
        let flush = UnsafeMutablePointer<Float>.allocate(capacity: max(flushFloats, 1))
        flush.initialize(repeating: 1, count: max(flushFloats, 1))
        defer { flush.deallocate() }
        for _ in 0..<max(runs, 1) {
            // Cold: the weights evicted from every cache level first, as between a model's layers.
            if cold { for i in stride(from: 0, to: flushFloats, by: 16) { flush[i] += 1 } }
            let start = DispatchTime.now().uptimeNanoseconds
            gemm.multiply(a, lda: k, rows: m, into: c, ldc: n, firstRow: 0)
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return 2 * Double(m * k * n) / max(best, 1e-12) / 1e9
    }
}

extension KernelSet {
    /// The set's depthwise convolution on one `height` x `width` x `channels` map (NHWC, 64-byte aligned, as the
    /// interpreter's arena), a `kernel` x `kernel` filter, `stride`, SAME padding, bias and ReLU6, as an interpreter
    /// builds the layer, in GFLOP/s, best of five rounds of `runs` (nil for a shape with no output). For
    /// `vision-bench --dwconv`: the kernel alone, its input warm in cache, to tell its speed from the traffic around it
    /// in a model.
    public func measuredDepthwise(height: Int, width: Int, channels: Int, kernel: Int, stride: Int,
                                  runs: Int = 50) -> Double? {
        guard height > 0, width > 0, channels > 0, kernel > 0, stride > 0 else { return nil }
        let v = ConvGeometry.padding(.same, input: height, kernel: kernel, stride: stride, dilation: 1)
        let h = ConvGeometry.padding(.same, input: width, kernel: kernel, stride: stride, dilation: 1)
        guard v.out > 0, h.out > 0 else { return nil }
        let g = ConvGeometry(batch: 1, inH: height, inW: width, inC: channels, outH: v.out, outW: h.out, outC: channels,
                             kH: kernel, kW: kernel, strideH: stride, strideW: stride, padTop: v.before,
                             padLeft: h.before)
        let inCount = height * width * channels, outCount = v.out * h.out * channels
        let wCount = kernel * kernel * channels
        let input = allocateAlignedFloats(inCount), output = allocateAlignedFloats(outCount)
        let weights = allocateAlignedFloats(wCount), bias = allocateAlignedFloats(channels)
        defer { [input, output, weights, bias].forEach(deallocateAlignedFloats) }
        for i in 0..<inCount { input[i] = Float(i % 7) * 0.25 - 0.5 }
        for i in 0..<wCount { weights[i] = Float(i % 5) * 0.125 - 0.25 }
        bias.initialize(repeating: 0.125, count: channels)
        let layer = DepthwiseConv2DLayer(geometry: g, multiplier: 1, input: input, output: output, weights: weights,
                                         epilogue: Epilogue(bias: bias, activation: .relu6),
                                         kernels: Microkernels(self))
        let scratch = allocateAlignedFloats(max(layer.scratchFloatsPerWorker, 16))
        defer { deallocateAlignedFloats(scratch) }
        let context = RunContext(threads: 1, scratch: scratch,
                                 scratchFloatsPerWorker: max(layer.scratchFloatsPerWorker, 16))
        layer.run(context)
        var best = Double.infinity
        for _ in 0..<5 {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<max(runs, 1) { layer.run(context) }
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 / Double(max(runs, 1)))
        }
        return layer.flops / max(best, 1e-12) / 1e9
    }
}

/// How this process's engine rounds, for callers that compare against MediaPipe.
public enum EngineArithmetic {
    /// The kernel set interpreters take by default (`TASKSVISION_KERNELS`, else the best one).
    public static var defaultKernelSet: KernelSet { (try? KernelSet.fromEnvironment()) ?? .portable }
    /// Whether interpreters created with default options sum as XNNPACK does.
    public static var sumsAsXNNPACK: Bool { defaultKernelSet.sumsAsXNNPACK }
    /// Whether they give TFLite-XNNPACK's and MediaPipe's results on x86-64 bit for bit (where the tests' fixtures
    /// were made): the x86 FMA sets. The arm64 set gives XNNPACK's arm64 results, which differ from x86's in the
    /// layers docs/engine.md names; tools/arm64_check.sh compares it with TFLite's arm64 build. On the first Zen
    /// the AVX2 set gives that CPU's XNNPACK results (`CPUFeatures.gemmSumsRotatedQuads`), which differ from other
    /// x86 CPUs' as MediaPipe's own results there do (by up to 4e-7 on faces, 6e-3 on a hand video, under emulation).
    public static var matchesX86XNNPACK: Bool {
        defaultKernelSet.matchesX86XNNPACK(on: .current)
    }
}

extension KernelSet {
    /// Whether this set on a CPU of `features` gives the XNNPACK results of the x86 CPUs the tests' fixtures come
    /// from (see `EngineArithmetic.matchesX86XNNPACK`).
    public func matchesX86XNNPACK(on features: CPUFeatures) -> Bool {
        self != .neon && sumsAsXNNPACK && !(self == .avx2 && features.gemmSumsRotatedQuads)
    }
}
