/// The int8 microkernels' arguments and packed weights (XNNPACK's QS8 operators with per-channel weights, `qc8w`).
/// Integer sums are exact, so every kernel set computes the same 32-bit sums; the one rounding is the requantization
/// (`requantize`), the same float operations in every set.

/// XNNPACK's fp32 requantization of a 32-bit sum: `Float(acc) * scale`, clamped above to `max - zeroPoint`,
/// rounded to the nearest integer (ties to even, as `cvtps2dq`), plus the zero point, clamped to [min, max].
@inlinable @inline(__always)
public func requantizeQS8(_ acc: Int32, scale: Float, zeroPoint: Int32, min: Int32, max: Int32) -> Int8 {
    let scaled = Float(acc) * scale
    let upper = Float(max &- zeroPoint)
    let clamped = scaled < upper ? scaled : upper
    let rounded = clamped.rounded(.toNearestOrEven)
    let q = rounded < -65536 ? -65536 : Int32(rounded)
    let shifted = q &+ zeroPoint
    return Int8(truncatingIfNeeded: shifted < min ? min : (shifted > max ? max : shifted))
}

/// The output side of a quantized convolution: the zero point and the clamp (the type's range, narrowed by a fused
/// activation).
public struct QS8Output {
    public var zeroPoint: Int32
    public var min: Int32
    public var max: Int32

    public init(zeroPoint: Int32, min: Int32, max: Int32) {
        self.zeroPoint = zeroPoint; self.min = min; self.max = max
    }
}

/// What an int8 GEMM microkernel computes: for `m` rows of `a` (`lda` bytes apart, each `k` bytes, `k` a multiple of
/// the packing's `kr`) and every column j of the packed weights,
/// `c[r, j] = requantize(bias'[j] + sum_k a[r, k] * w[j, k], scale[j])`, with `bias'` the bias corrected for the
/// input zero point (`QS8PackedWeights`). The bytes of `a` past a row's real channels are multiplied by zero weights.
public struct QS8GEMMArguments {
    public var m: Int
    public var k: Int
    public var a: UnsafePointer<Int8>
    public var lda: Int
    /// The packed weights' memory, which the caller keeps alive while the kernel runs.
    public var weights: QS8PackedWeights.View
    /// The first and past-the-last column block to compute (`weights.nr` columns each).
    public var firstBlock: Int
    public var endBlock: Int
    public var c: UnsafeMutablePointer<Int8>
    public var ldc: Int
    public var output: QS8Output

    public init(m: Int, k: Int, a: UnsafePointer<Int8>, lda: Int, weights: QS8PackedWeights.View, firstBlock: Int = 0,
                endBlock: Int? = nil, c: UnsafeMutablePointer<Int8>, ldc: Int, output: QS8Output) {
        self.m = m; self.k = k; self.a = a; self.lda = lda; self.weights = weights; self.firstBlock = firstBlock
        self.endBlock = endBlock ?? weights.blocks; self.c = c; self.ldc = ldc; self.output = output
    }
}

/// GEMM weights of a quantized convolution or fully connected layer, packed once at load as XNNPACK packs them
/// (`xnn_pack_qs8_gemm_goi_w`): per block of `nr` columns, `nr` 32-bit biases, then the k weights in groups of `kr`
/// (`[k / kr][nr][kr]` bytes; k padded with zero weights, columns past `n` zero), then `nr` float scales.
/// The bias is the model's bias minus `(inputZeroPoint + inputOffset) * sum_k w[j, k]`: a kernel that adds
/// `inputOffset` to every input byte (128, for VNNI's unsigned-by-signed products) finds the sum it needs.
public final class QS8PackedWeights: @unchecked Sendable {
    /// The blocks' memory and layout as the microkernels read them: a plain value, so that handing it to every item
    /// of a layer costs no reference counting (two threads retaining one object contend for its cache line).
    public struct View {
        public let data: UnsafeRawPointer
        public let n: Int
        /// k rounded up to a multiple of `kr`.
        public let k: Int
        public let nr: Int
        public let kr: Int
        /// Bytes of one block of `nr` columns.
        public let blockBytes: Int
        @inlinable public var blocks: Int { (n + nr - 1) / nr }

        /// Block `b`'s biases, weights and scales.
        @inlinable @inline(__always) public func bias(_ b: Int) -> UnsafePointer<Int32> {
            (data + b &* blockBytes).assumingMemoryBound(to: Int32.self)
        }
        @inlinable @inline(__always) public func weights(_ b: Int) -> UnsafePointer<Int8> {
            (data + (b &* blockBytes &+ nr &* 4)).assumingMemoryBound(to: Int8.self)
        }
        @inlinable @inline(__always) public func scales(_ b: Int) -> UnsafePointer<Float> {
            (data + (b &* blockBytes &+ nr &* 4 &+ k &* nr)).assumingMemoryBound(to: Float.self)
        }
    }

    public let view: View
    private let data: UnsafeMutableRawPointer

    /// `weights`: [n, realK] row-major (TFLite's [out, kh, kw, in] filter, or a FULLY_CONNECTED's [out, in]);
    /// `scales`: the requantization scale of each column.
    public init(weights: UnsafePointer<Int8>, n: Int, realK: Int, bias: [Int32], scales: [Float], inputZeroPoint: Int32,
                inputOffset: Int32, nr: Int, kr: Int) {
        let k = (realK + kr - 1) / kr * kr
        let blockBytes = nr * 4 + k * nr + nr * 4
        let blocks = (n + nr - 1) / nr
        data = UnsafeMutableRawPointer.allocate(byteCount: max(blocks * blockBytes, 64), alignment: 64)
        data.initializeMemory(as: UInt8.self, repeating: 0, count: max(blocks * blockBytes, 64))
        view = View(data: data, n: n, k: k, nr: nr, kr: kr, blockBytes: blockBytes)
        for block in 0..<blocks {
            let base = data + block * blockBytes
            let w = (base + nr * 4).assumingMemoryBound(to: Int8.self)
            for j in 0..<nr {
                let column = block * nr + j
                guard column < n else { break }
                let row = weights + column * realK
                var sum: Int32 = 0
                for i in 0..<realK {
                    sum &+= Int32(row[i])
                    w[(i / kr) * nr * kr + j * kr + i % kr] = row[i]
                }
                base.storeBytes(of: bias[column] &- (inputZeroPoint &+ inputOffset) &* sum, toByteOffset: j * 4,
                                as: Int32.self)
                base.storeBytes(of: scales[column], toByteOffset: nr * 4 + k * nr + j * 4, as: Float.self)
            }
        }
    }

    public var byteCount: Int { view.blocks * view.blockBytes }

    deinit { data.deallocate() }
}

/// Depthwise weights of a quantized DEPTHWISE_CONV_2D, packed once at load as XNNPACK's `qs8-qc8w-dwconv` reads
/// them: per block of `cr` channels, `cr` 32-bit biases, then per tap (ky, then kx) `cr` weights, then `cr` float
/// scales; channels past the last are zero. The bias is corrected for the input zero point over every tap, so a tap
/// outside the image reads a row of zero-point bytes (`QS8DepthwiseRowArguments.zeroRow`) and adds nothing.
public final class QS8PackedDepthwiseWeights: @unchecked Sendable {
    /// The blocks' memory and layout as the microkernels read them (a plain value, as `QS8PackedWeights.View`).
    public struct View {
        public let data: UnsafeRawPointer
        public let channels: Int
        public let taps: Int
        public let cr: Int
        public let blockBytes: Int
        @inlinable public var blocks: Int { (channels + cr - 1) / cr }

        @inlinable @inline(__always) public func bias(_ b: Int) -> UnsafePointer<Int32> {
            (data + b &* blockBytes).assumingMemoryBound(to: Int32.self)
        }
        @inlinable @inline(__always) public func weights(_ b: Int) -> UnsafePointer<Int8> {
            (data + (b &* blockBytes &+ cr &* 4)).assumingMemoryBound(to: Int8.self)
        }
        @inlinable @inline(__always) public func scales(_ b: Int) -> UnsafePointer<Float> {
            (data + (b &* blockBytes &+ cr &* 4 &+ taps &* cr)).assumingMemoryBound(to: Float.self)
        }
    }

    public let view: View
    private let data: UnsafeMutableRawPointer

    /// `weights`: [kH * kW, channels] (TFLite's [1, kh, kw, channels] filter).
    public init(weights: UnsafePointer<Int8>, channels: Int, taps: Int, bias: [Int32], scales: [Float],
                inputZeroPoint: Int32, cr: Int) {
        let blockBytes = cr * 4 + taps * cr + cr * 4
        let blocks = (channels + cr - 1) / cr
        let bytes = max(blocks * blockBytes + 64, 64)
        data = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        data.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        view = View(data: data, channels: channels, taps: taps, cr: cr, blockBytes: blockBytes)
        for block in 0..<blocks {
            let base = data + block * blockBytes
            let w = (base + cr * 4).assumingMemoryBound(to: Int8.self)
            for j in 0..<cr {
                let c = block * cr + j
                guard c < channels else { break }
                var sum: Int32 = 0
                for t in 0..<taps {
                    let v = weights[t * channels + c]
                    sum &+= Int32(v)
                    w[t * cr + j] = v
                }
                base.storeBytes(of: bias[c] &- inputZeroPoint &* sum, toByteOffset: j * 4, as: Int32.self)
                base.storeBytes(of: scales[c], toByteOffset: cr * 4 + taps * cr + j * 4, as: Float.self)
            }
        }
    }

    public var byteCount: Int { view.blocks * view.blockBytes }

    deinit { data.deallocate() }
}

/// One output row of a quantized depthwise convolution (one output channel per input channel): for each of `outW`
/// pixels, each channel `requantize(bias' + sum over the window (ky, then kx) of x * w)`, a tap outside the image
/// reading `zeroRow` (the input zero point in every channel).
public struct QS8DepthwiseRowArguments {
    /// The image (one batch), its size and channels.
    public var input: UnsafePointer<Int8>
    public var inH: Int
    public var inW: Int
    public var channels: Int
    public var kH: Int
    public var kW: Int
    public var strideW: Int
    public var dilationH: Int
    public var dilationW: Int
    public var padLeft: Int
    /// The input row of tap ky = 0 (negative above the image).
    public var iy0: Int
    /// At least `channels` bytes of the input zero point (plus the kernels' over-read).
    public var zeroRow: UnsafePointer<Int8>
    /// The packed weights' memory, which the caller keeps alive while the kernel runs.
    public var weights: QS8PackedDepthwiseWeights.View
    public var output: UnsafeMutablePointer<Int8>
    public var outW: Int
    public var quantization: QS8Output
    /// The blocks of channels to compute (all of them by default): a row split between threads.
    public var firstBlock = 0
    public var endBlock = Int.max

    public init(input: UnsafePointer<Int8>, inH: Int, inW: Int, channels: Int, kH: Int, kW: Int, strideW: Int,
                dilationH: Int, dilationW: Int, padLeft: Int, iy0: Int, zeroRow: UnsafePointer<Int8>,
                weights: QS8PackedDepthwiseWeights.View, output: UnsafeMutablePointer<Int8>, outW: Int,
                quantization: QS8Output) {
        self.input = input; self.inH = inH; self.inW = inW; self.channels = channels; self.kH = kH; self.kW = kW
        self.strideW = strideW; self.dilationH = dilationH; self.dilationW = dilationW; self.padLeft = padLeft
        self.iy0 = iy0; self.zeroRow = zeroRow; self.weights = weights; self.output = output; self.outW = outW
        self.quantization = quantization
    }

    /// The first byte of tap (ky, kx) for output pixel `ox`: the image pixel, or `zeroRow` outside the image.
    @inlinable @inline(__always)
    public func tap(_ ky: Int, _ kx: Int, _ ox: Int) -> UnsafePointer<Int8> {
        let iy = iy0 &+ ky &* dilationH, ix = ox &* strideW &- padLeft &+ kx &* dilationW
        if iy < 0 || iy >= inH || ix < 0 || ix >= inW { return zeroRow }
        return input + (iy &* inW &+ ix) &* channels
    }
}

/// An 8-bit ADD, SUB or MUL of `count` values (XNNPACK's `qs8-vadd` / `qs8-vmul` and their `qu8` forms): `a`
/// contiguous, `b` contiguous or one value for all (`bIsScalar`), the output contiguous. ADD/SUB: `(bias +
/// a * aMultiplier + b * bMultiplier) >> shift`, 16-bit saturation, the zero point, [min, max]. MUL:
/// `Float((a - aZeroPoint) * (b - bZeroPoint)) * scale`, rounded to nearest even, the zero point, [min, max].
public struct QS8BinaryArguments {
    public enum Operation { case add, multiply }
    public var operation: Operation
    /// uint8 values (else int8).
    public var unsigned: Bool
    public var count: Int
    public var a: UnsafeRawPointer
    public var b: UnsafeRawPointer
    public var bIsScalar: Bool
    public var output: UnsafeMutableRawPointer
    public var aMultiplier: Int32, bMultiplier: Int32, bias: Int32, shift: Int32
    public var aZeroPoint: Int32, bZeroPoint: Int32, scale: Float
    public var zeroPoint: Int32, min: Int32, max: Int32

    public init(operation: Operation, unsigned: Bool, count: Int, a: UnsafeRawPointer, b: UnsafeRawPointer,
                bIsScalar: Bool, output: UnsafeMutableRawPointer, aMultiplier: Int32, bMultiplier: Int32,
                bias: Int32, shift: Int32, aZeroPoint: Int32, bZeroPoint: Int32, scale: Float, zeroPoint: Int32,
                min: Int32, max: Int32) {
        self.operation = operation; self.unsigned = unsigned; self.count = count; self.a = a; self.b = b
        self.bIsScalar = bIsScalar; self.output = output; self.aMultiplier = aMultiplier
        self.bMultiplier = bMultiplier; self.bias = bias; self.shift = shift; self.aZeroPoint = aZeroPoint
        self.bZeroPoint = bZeroPoint; self.scale = scale; self.zeroPoint = zeroPoint; self.min = min; self.max = max
    }

    /// One value, as the kernels compute it (for their tails and for tests).
    @inlinable public func combine(_ x: Int32, _ y: Int32) -> Int32 {
        let v: Int32
        switch operation {
        case .add:
            let acc = (bias &+ x &* aMultiplier &+ y &* bMultiplier) >> shift
            v = Swift.min(Swift.max(acc, -32768), 32767) &+ zeroPoint
        case .multiply:
            let f = Float((x &- aZeroPoint) &* (y &- bZeroPoint)) * scale
            let clamped = Swift.min(Swift.max(f, Float(min &- zeroPoint)), Float(max &- zeroPoint))
            v = Int32(clamped.rounded(.toNearestOrEven)) &+ zeroPoint
        }
        return Swift.min(Swift.max(v, min), max)
    }
}
