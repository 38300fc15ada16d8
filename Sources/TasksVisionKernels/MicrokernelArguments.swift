/// What a GEMM microkernel driver computes: `c[r, j] = epilogue(bias[j] + sum_k a[r, k] * w[j, k])`
/// for `m` rows and `n` columns, each sum one fused multiply-add chain from the bias in k order
/// (XNNPACK's GEMM and IGEMM order), with the weights packed by `PackedWeights`.
public struct GEMMArguments {
    public var m: Int
    public var n: Int
    public var k: Int
    public var a: UnsafePointer<Float>
    /// Floats from one row of `a` to the next.
    public var lda: Int
    /// `PackedWeights.data`: per block of `nr` columns, the block's biases, then k rows of `nr` weights.
    public var packed: UnsafePointer<Float>
    public var c: UnsafeMutablePointer<Float>
    public var ldc: Int
    /// Added after the sum (a residual ADD folded in), row by row, `residualStride` apart;
    /// only the first `residualChannels` columns have one (a zero channel PAD folded in too).
    public var residual: UnsafePointer<Float>?
    public var residualStride: Int
    public var residualChannels: Int
    /// The clamp after the residual (an activation; -inf/+inf for none).
    public var lo: Float
    public var hi: Float
    /// PReLU slopes per column, last.
    public var alpha: UnsafePointer<Float>?
    /// A row of A as `segments` runs of k / segments floats, `segmentStride` apart: a KxK
    /// convolution read straight from its NHWC input (one run per kernel row, each kW x C
    /// floats), as XNNPACK's IGEMM reads through its indirection buffer, with no im2col copy.
    /// One segment (the default) is a plain row.
    public var segments: Int = 1
    public var segmentStride: Int = 0
    /// The floats of one kernel tap (a KxK convolution's input channels), for a kernel whose sum restarts its
    /// pattern at each tap (the arm64 two-chain GEMM, `f32GEMMPairs`; the rotated-quads GEMM of the first Zen,
    /// `f32GEMMRotatedQuads`); 0: the whole row is one run.
    public var tapLength: Int = 0

    public init(m: Int, n: Int, k: Int, a: UnsafePointer<Float>, lda: Int, packed: UnsafePointer<Float>,
                c: UnsafeMutablePointer<Float>, ldc: Int, residual: UnsafePointer<Float>? = nil,
                residualStride: Int = 0,
                residualChannels: Int = 0, lo: Float = -.infinity, hi: Float = .infinity,
                alpha: UnsafePointer<Float>? = nil,
                segments: Int = 1, segmentStride: Int = 0, tapLength: Int = 0) {
        self.m = m; self.n = n; self.k = k; self.a = a; self.lda = lda; self.packed = packed; self.c = c; self.ldc = ldc
        self.residual = residual; self.residualStride = residualStride; self.residualChannels = residualChannels
        self.lo = lo; self.hi = hi; self.alpha = alpha
        self.segments = max(segments, 1); self.segmentStride = segmentStride; self.tapLength = tapLength
    }
}

/// Where one output row of a windowed kernel (depthwise convolution, max pooling) reads: an NHWC image
/// (one image), the kernel window, its stride, dilation and left padding, and the image row of the window's first row.
public struct RowWindow {
    /// Image base and its size.
    public var input: UnsafePointer<Float>
    public var inH: Int
    public var inW: Int
    public var channels: Int
    public var kH: Int
    public var kW: Int
    public var strideW: Int
    public var padLeft: Int
    /// The input row of tap ky = 0 (negative above the image).
    public var iy0: Int
    /// Input rows and columns from one tap to the next (a dilated depthwise convolution's; max pooling's are 1).
    public var dilationH: Int
    public var dilationW: Int

    public init(input: UnsafePointer<Float>, inH: Int, inW: Int, channels: Int, kH: Int, kW: Int, strideW: Int,
                padLeft: Int, iy0: Int, dilationH: Int = 1, dilationW: Int = 1) {
        self.input = input; self.inH = inH; self.inW = inW; self.channels = channels; self.kH = kH; self.kW = kW
        self.strideW = strideW; self.padLeft = padLeft; self.iy0 = iy0
        self.dilationH = max(dilationH, 1); self.dilationW = max(dilationW, 1)
    }

    /// The first tap (of `dilation` apart) whose input lies at or after 0, for a window starting at `origin`.
    @inlinable public static func firstTap(origin: Int, dilation: Int) -> Int {
        origin >= 0 ? 0 : (dilation &- 1 &- origin) / dilation
    }

    /// How many taps (of `dilation` apart) fall before `room` inputs: those of a window with `room` inputs left.
    @inlinable public static func taps(within room: Int, dilation: Int) -> Int {
        room <= 0 ? 0 : (room &+ dilation &- 1) / dilation
    }
}

/// One output row of a depthwise convolution (one output channel per input channel, dilated or
/// not): each output `bias + sum over kx, then ky, of input * weight` as one fused
/// multiply-add chain, XNNPACK's tap order (its indirection buffer runs column by column).
/// Taps outside the image are left out (XNNPACK multiplies zeros there: the same sums).
public struct DepthwiseRowArguments {
    public var window: RowWindow
    /// [kH, kW, channels], TFLite's layout.
    public var weights: UnsafePointer<Float>
    public var bias: UnsafePointer<Float>?
    public var output: UnsafeMutablePointer<Float>
    public var outW: Int
    /// Floats from one output pixel to the next (the channels, or more).
    public var outputPixelStride: Int
    public var lo: Float
    public var hi: Float
    public var alpha: UnsafePointer<Float>?
    /// Floats from one input pixel to the next and from one weight tap to the next: the layer's
    /// channels, when the call computes only `window.channels` of them (a block of channels, with every
    /// pointer moved to the block's first).
    public var pixelStride: Int
    /// Another order of the taps than column by column (`DepthwiseTapOrder`), or nil.
    public var tapOrder: DepthwiseTapOrder? = nil

    public init(window: RowWindow, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>?,
                output: UnsafeMutablePointer<Float>, outW: Int, outputPixelStride: Int, lo: Float = -.infinity,
                hi: Float = .infinity, alpha: UnsafePointer<Float>? = nil, pixelStride: Int? = nil) {
        self.window = window; self.weights = weights; self.bias = bias
        self.output = output; self.outW = outW; self.outputPixelStride = outputPixelStride
        self.lo = lo; self.hi = hi; self.alpha = alpha
        self.pixelStride = pixelStride ?? window.channels
    }
}

/// One output row of a convolution with one output channel, stride 1 and no dilation: each output the bias, then
/// `input * weight` over ky, kx and channel in that order, one fused multiply-add chain (XNNPACK's IGEMM sum, the
/// filter's order), clamped to `lo...hi`. The input rows of the kernel come in planar form (`rows`).
public struct OneChannelConvRowArguments {
    /// `kH` pointers, one per kernel row, each to `channels` planes `planeStride` floats apart: plane c is channel c
    /// of the input row, from the first output's leftmost tap on, with zeros where the window leaves the image (a
    /// row above or below it all zeros). A plane holds at least `outW` rounded up to 16, plus `kW` - 1, floats.
    public var rows: UnsafePointer<UnsafePointer<Float>>
    public var kH: Int
    public var kW: Int
    public var channels: Int
    public var planeStride: Int
    /// The bias, then the [kH, kW, channels] weights.
    public var filter: UnsafePointer<Float>
    public var output: UnsafeMutablePointer<Float>
    public var outW: Int
    public var lo: Float
    public var hi: Float

    public init(rows: UnsafePointer<UnsafePointer<Float>>, kH: Int, kW: Int, channels: Int, planeStride: Int,
                filter: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, outW: Int, lo: Float = -.infinity,
                hi: Float = .infinity) {
        self.rows = rows; self.kH = kH; self.kW = kW; self.channels = channels; self.planeStride = planeStride
        self.filter = filter; self.output = output; self.outW = outW; self.lo = lo; self.hi = hi
    }
}

/// `count` floats on a 64-byte boundary (a cache line, and a whole vector of every set), uninitialized; free them with
/// `deallocateAlignedFloats`. Loads that straddle two lines cost two: with malloc's 16-byte alignment, an AVX-512
/// depthwise layer over such a buffer ran at half speed (31 against 60 GFLOP/s on a Zen 4).
public func allocateAlignedFloats(_ count: Int) -> UnsafeMutablePointer<Float> {
    UnsafeMutableRawPointer.allocate(byteCount: max(count, 1) * 4, alignment: 64).bindMemory(to: Float.self,
                                                                                              capacity: max(count, 1))
}

/// Frees what `allocateAlignedFloats` returned.
public func deallocateAlignedFloats(_ pointer: UnsafeMutablePointer<Float>) {
    UnsafeMutableRawPointer(pointer).deallocate()
}

/// GEMM weights packed once at load for a kernel with `nr`-column tiles, as XNNPACK packs
/// them (`xnn_pack_f32_gemm_goi_w`): per block of `nr` output columns, the block's biases,
/// then for each k the block's `nr` weights; columns past `n` are zero.
public final class PackedWeights {
    public let data: UnsafeMutablePointer<Float>
    public let count: Int
    public let nr: Int
    /// Floats per column: the bias and k weights (more in the rotated-quads layout, whose taps are padded).
    public let depth: Int

    /// `weights` is [n, k] row-major (a TFLite CONV_2D or FULLY_CONNECTED filter).
    public init(weights: UnsafePointer<Float>, bias: UnsafePointer<Float>?, n: Int, k: Int, nr: Int) {
        self.nr = nr
        depth = k + 1
        let blocks = (n + nr - 1) / nr
        count = max(blocks * (k + 1) * nr, 1)
        data = allocateAlignedFloats(count)
        data.initialize(repeating: 0, count: count)
        for block in 0..<blocks {
            let base = data + block * (k + 1) * nr
            for j in 0..<nr {
                let column = block * nr + j
                guard column < n else { break }
                base[j] = bias?[column] ?? 0
                let row = weights + column * k
                for i in 0..<k { base[(i + 1) * nr + j] = row[i] }
            }
        }
    }

    /// The layout of XNNPACK's `s4` kernels (`xnn_pack_f32_gemm_goi_w` with `sr` = 4), for `f32GEMMRotatedQuads`:
    /// per block of `nr` columns, the biases, then per tap of `tapLength` floats (k / tapLength taps, the whole row
    /// when 0) its k in groups of four (the last padded with zeros), each group four rows of `nr` weights, row s
    /// holding for column j the weight of the group's k = (j + s) mod 4.
    public init(rotatedQuadsOf weights: UnsafePointer<Float>, bias: UnsafePointer<Float>?, n: Int, k: Int,
                tapLength: Int, nr: Int) {
        self.nr = nr
        let tap = Self.tap(k: k, tapLength: tapLength), taps = k / tap, padded = (tap + 3) / 4 * 4
        depth = 1 + taps * padded
        let blocks = (n + nr - 1) / nr
        count = max(blocks * depth * nr, 1)
        data = allocateAlignedFloats(count)
        data.initialize(repeating: 0, count: count)
        for block in 0..<blocks {
            let base = data + block * depth * nr
            for j in 0..<nr {
                let column = block * nr + j
                guard column < n else { break }
                base[j] = bias?[column] ?? 0
                let row = weights + column * k
                for t in 0..<taps {
                    for group in stride(from: 0, to: tap, by: 4) {
                        for s in 0..<4 {
                            let i = group + (j + s) % 4
                            guard i < tap else { continue }
                            base[(1 + t * padded + group + s) * nr + j] = row[t * tap + i]
                        }
                    }
                }
            }
        }
    }

    /// The floats of one tap of the rotated-quads layout: `tapLength` where it divides k, else the whole row.
    @inlinable public static func tap(k: Int, tapLength: Int) -> Int {
        tapLength > 0 && k % tapLength == 0 ? tapLength : max(k, 1)
    }

    deinit { deallocateAlignedFloats(data) }
}

/// One output row of a max pooling: each output the largest input of its window (taps outside
/// the image are left out; a NaN input is passed over, as `max(x, m)` with `m` starting at -inf).
public struct MaxPoolRowArguments {
    public var window: RowWindow
    public var output: UnsafeMutablePointer<Float>
    public var outW: Int

    public init(window: RowWindow, output: UnsafeMutablePointer<Float>, outW: Int) {
        self.window = window; self.output = output; self.outW = outW
    }
}

/// One output row of a bilinear resize: output pixel `x`, channel `c`, from the two input rows
/// at the pixels `xLow[x]` and `xHigh[x]` (offsets in floats), as XNNPACK's ibilinear kernels
/// weigh them: top = tl + (tr - tl) * xFraction[x], bottom likewise, out = top + (bottom - top) *
/// yFraction (each product and sum rounded, on x86; fused on arm64, as XNNPACK's neonfma kernel).
public struct ResizeRowArguments {
    public var top: UnsafePointer<Float>
    public var bottom: UnsafePointer<Float>
    public var xLow: UnsafePointer<Int>
    public var xHigh: UnsafePointer<Int>
    public var xFraction: UnsafePointer<Float>
    public var yFraction: Float
    public var channels: Int
    public var output: UnsafeMutablePointer<Float>
    public var outW: Int
    /// Each column pair interpolated between the rows first, then across (XNNPACK's arm64 NCHW kernel), instead of
    /// each row across first.
    public var rowsFirst = false

    public init(top: UnsafePointer<Float>, bottom: UnsafePointer<Float>, xLow: UnsafePointer<Int>,
                xHigh: UnsafePointer<Int>, xFraction: UnsafePointer<Float>, yFraction: Float, channels: Int,
                output: UnsafeMutablePointer<Float>, outW: Int) {
        self.top = top; self.bottom = bottom; self.xLow = xLow; self.xHigh = xHigh; self.xFraction = xFraction
        self.yFraction = yFraction; self.channels = channels; self.output = output; self.outW = outW
    }
}

/// A depthwise window's taps in the order a kernel sums them, in one or two chains: `taps` lists tap indices (ky * kW
/// + kx) in order, the first `firstChain` of them summed from the bias, the rest from zero, the two chains added at
/// the end (XNNPACK's arm64 NCHW kernels of its sparse inference). A program constant: its storage is allocated once
/// and never freed, so the row arguments carry it as plain values (no reference counting in the kernels' calls).
public struct DepthwiseTapOrder: @unchecked Sendable {
    public let taps: UnsafePointer<Int>
    public let count: Int
    public let firstChain: Int

    public init(_ taps: [Int], firstChain: Int) {
        let storage = UnsafeMutablePointer<Int>.allocate(capacity: max(taps.count, 1))
        storage.initialize(from: taps, count: taps.count)
        self.taps = UnsafePointer(storage)
        count = taps.count
        self.firstChain = min(firstChain, taps.count)
    }
}
