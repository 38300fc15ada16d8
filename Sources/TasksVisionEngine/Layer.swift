import TasksVisionFormat

/// One step of an execution plan, with its tensors already bound to memory.
protocol Layer: AnyObject {
    /// The op type, for profiles ("CONV_2D").
    var kind: String { get }
    /// Floating-point operations per run (multiply-add counts as two).
    var flops: Double { get }
    /// The work that decides whether the layer is split over threads, in flops of a convolution
    /// (`Interpreter.minimumParallelFlops`); memory-bound layers weigh each element they move.
    var parallelWork: Double { get }
    /// Floats of scratch memory each worker needs.
    var scratchFloatsPerWorker: Int { get }
    /// Bytes of weights the layer packed at load (in place of the model's).
    var packedWeightBytes: Int { get }
    func run(_ context: RunContext)
}

/// How many convolution flops one element read or written by a memory-bound layer weighs, for
/// `Layer.parallelWork`: a convolution does 50-200 GFLOP/s on one core, a copy moves 5-20
/// billion floats a second.
let memoryBoundWorkFactor: Double = 10

extension Layer {
    var flops: Double { 0 }
    var parallelWork: Double { flops }
    var scratchFloatsPerWorker: Int { 0 }
    var packedWeightBytes: Int { 0 }
}

/// What a layer gets when it runs: the thread budget and per-worker scratch.
struct RunContext {
    let threads: Int
    let scratch: UnsafeMutablePointer<Float>
    let scratchFloatsPerWorker: Int
    /// The interpreter's helper threads (nil when it runs on one thread).
    var pool: ItemRunner? = nil

    func scratch(forWorker w: Int) -> UnsafeMutablePointer<Float> { scratch + w * scratchFloatsPerWorker }
}

@inline(__always) func load8(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
    UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
}
@inline(__always) func load8(_ p: UnsafeMutablePointer<Float>) -> SIMD8<Float> {
    UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
}
// Lane-wise max, min, clamp and select-below-zero, written lane by lane: LLVM turns these
// into single maxps/minps, whereas SIMD `replacing(with:where:)` becomes and/andn/or blends
// (four instructions per operation on baseline x86-64).
/// `a > b ? a : b` in every lane (maxps semantics: b when either is NaN).
@inline(__always) func maxLanes(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    var r = SIMD8<Float>()
    for i in 0..<8 { r[i] = a[i] > b[i] ? a[i] : b[i] }
    return r
}
/// `a < b ? a : b` in every lane.
@inline(__always) func minLanes(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    var r = SIMD8<Float>()
    for i in 0..<8 { r[i] = a[i] < b[i] ? a[i] : b[i] }
    return r
}
/// `min(max(v, lo), hi)` in every lane; a NaN stays NaN, as TFLite's clamp leaves it.
@inline(__always) func clampLanes(_ v: SIMD8<Float>, _ lo: SIMD8<Float>, _ hi: SIMD8<Float>) -> SIMD8<Float> {
    minLanes(hi, maxLanes(lo, v))
}
@inline(__always) func clampLanes(_ v: SIMD4<Float>, _ lo: SIMD4<Float>, _ hi: SIMD4<Float>) -> SIMD4<Float> {
    var r = SIMD4<Float>()
    for i in 0..<4 { let x = lo[i] > v[i] ? lo[i] : v[i]; r[i] = hi[i] < x ? hi[i] : x }
    return r
}
/// PReLU: `v < 0 ? v * alpha : v` in every lane.
@inline(__always) func preluLanes(_ v: SIMD8<Float>, _ alpha: SIMD8<Float>) -> SIMD8<Float> {
    var r = SIMD8<Float>()
    for i in 0..<8 { r[i] = v[i] < 0 ? v[i] * alpha[i] : v[i] }
    return r
}
@inline(__always) func preluLanes(_ v: SIMD4<Float>, _ alpha: SIMD4<Float>) -> SIMD4<Float> {
    var r = SIMD4<Float>()
    for i in 0..<4 { r[i] = v[i] < 0 ? v[i] * alpha[i] : v[i] }
    return r
}
@inline(__always) func load4(_ p: UnsafePointer<Float>) -> SIMD4<Float> {
    UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
}
@inline(__always) func load4(_ p: UnsafeMutablePointer<Float>) -> SIMD4<Float> {
    UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
}
@inline(__always) func store4(_ v: SIMD4<Float>, _ p: UnsafeMutablePointer<Float>) {
    UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD4<Float>.self)
}
@inline(__always) func store8(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>) {
    UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Float>.self)
}

/// What follows a convolution, fully connected layer or addition in the same
/// pass over its output: bias, then a clamp-type activation, then PReLU.
struct Epilogue {
    var bias: UnsafePointer<Float>? = nil
    /// A tensor added after the bias (a residual ADD folded in), row by row; its rows may be
    /// narrower than the output's (a channel PAD with zeros folded in too).
    var residual: UnsafePointer<Float>? = nil
    /// Channels per residual row (the output's channels when 0).
    var residualChannels = 0
    var activation: FusedActivation = .none
    var alpha: UnsafePointer<Float>? = nil

    var isIdentity: Bool { bias == nil && residual == nil && activation == .none && alpha == nil }

    var bounds: (lo: Float, hi: Float) {
        switch activation {
        case .relu: return (0, .infinity)
        case .relu6: return (0, 6)
        case .reluN1To1: return (-1, 1)
        default: return (-.infinity, .infinity)
        }
    }

    /// Applies the epilogue to `rows` rows of `channels` values, `stride` floats apart;
    /// `firstRow` is the index of the first row in the whole output (for the residual).
    func apply(_ data: UnsafeMutablePointer<Float>, rows: Int, channels: Int, stride: Int, firstRow: Int = 0) {
        if isIdentity { return }
        // One pass; each combination of parts gets its own loop, through generic specialization
        // (the flags are compile-time constants in each copy, so nothing is tested per vector).
        let clamp = activation == .relu || activation == .relu6 || activation == .reluN1To1
        func withClamp<B: PassFlag, R: PassFlag, A: PassFlag>(_ b: B.Type, _ r: R.Type, _ a: A.Type) {
            if clamp { pass(data, rows, channels, stride, firstRow, b, r, a, FlagOn.self) } else {
                pass(data, rows, channels, stride, firstRow, b, r, a, FlagOff.self)
            }
        }
        func withAlpha<B: PassFlag, R: PassFlag>(_ b: B.Type, _ r: R.Type) {
            if alpha != nil { withClamp(b, r, FlagOn.self) } else { withClamp(b, r, FlagOff.self) }
        }
        func withResidual<B: PassFlag>(_ b: B.Type) {
            if residual != nil { withAlpha(b, FlagOn.self) } else { withAlpha(b, FlagOff.self) }
        }
        if bias != nil { withResidual(FlagOn.self) } else { withResidual(FlagOff.self) }
        if activation == .tanh {
            for r in 0..<rows { let row = data + r * stride; for c in 0..<channels { row[c] = tanhf(row[c]) } }
        }
    }

    /// The epilogue without its bias, for a GEMM that summed the bias in.
    var withoutBias: Epilogue {
        Epilogue(residual: residual, residualChannels: residualChannels, activation: activation, alpha: alpha)
    }

    /// One pass over the rows, specialized per combination of parts. This pass follows most
    /// GEMMs over their whole output, so it is kept to a few instructions per vector: two
    /// vectors (16 floats) per step, wrapping index arithmetic (no overflow checks).
    private func pass<Bias: PassFlag, Residual: PassFlag, Alpha: PassFlag, Clamp: PassFlag>(
        _ data: UnsafeMutablePointer<Float>, _ rows: Int, _ channels: Int, _ stride: Int, _ firstRow: Int,
        _: Bias.Type, _: Residual.Type, _: Alpha.Type, _: Clamp.Type) {
        let (lo, hi) = bounds
        let lo8 = SIMD8<Float>(repeating: lo), hi8 = SIMD8<Float>(repeating: hi)
        let b = bias ?? UnsafePointer(data), res = residual ?? UnsafePointer(data), a = alpha ?? UnsafePointer(data)
        let rc = residualChannels > 0 ? min(residualChannels, channels) : channels
        // Vectors the residual covers whole; the rest take the general step.
        let whole = Residual.on ? min(channels, rc / 8 * 8) : channels / 8 * 8
        @inline(__always) func vector(_ row: UnsafeMutablePointer<Float>, _ rrow: UnsafePointer<Float>, _ c: Int,
                                      residualLanes: Int) {
            var v = load8(row + c)
            if Bias.on { v = v + load8(b + c) }
            if Residual.on {
                if residualLanes == 8 {
                    v = v + load8(rrow + c)
                } else {
                    for k in 0..<residualLanes { v[k] += rrow[c + k] }
                }
            }
            if Clamp.on { v = clampLanes(v, lo8, hi8) }
            if Alpha.on { v = preluLanes(v, load8(a + c)) }
            store8(v, row + c)
        }
        for r in 0..<rows {
            let row = data + r &* stride
            let rrow = res + (firstRow &+ r) &* rc
            var c = 0
            while c &+ 16 <= whole {
                vector(row, rrow, c, residualLanes: 8)
                vector(row, rrow, c &+ 8, residualLanes: 8)
                c &+= 16
            }
            while c &+ 8 <= whole {
                vector(row, rrow, c, residualLanes: 8)
                c &+= 8
            }
            while c &+ 8 <= channels {
                vector(row, rrow, c, residualLanes: Residual.on ? max(0, min(8, rc &- c)) : 0)
                c &+= 8
            }
            while c < channels {
                var v = row[c]
                if Bias.on { v += b[c] }
                if Residual.on && c < rc { v += rrow[c] }
                if Clamp.on { v = min(max(v, lo), hi) }
                if Alpha.on && v < 0 { v *= a[c] }
                row[c] = v
                c &+= 1
            }
        }
    }
}

/// A flag fixed at compile time, for generic specialization of the epilogue's loops.
protocol PassFlag { static var on: Bool { get } }
enum FlagOn: PassFlag { static var on: Bool { true } }
enum FlagOff: PassFlag { static var on: Bool { false } }

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

// `acc + x * w` rounded as a fused multiply-add, for the general depthwise path (depth
// multipliers, dilation) on baseline x86-64 where Swift cannot emit vfmadd: the product of two
// floats is exact in Double, and the sum, rounded in Double and then to Float, is the fused result
// unless the Double sum was inexact and landed exactly halfway between two floats (one in 2^29 of
// the inexact ones).
@inline(__always) func fusedMultiplyAdd(_ x: Float, _ w: Float, _ acc: Float) -> Float {
    Float(Double(x) * Double(w) + Double(acc))
}
