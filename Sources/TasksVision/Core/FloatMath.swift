#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Float elementary functions rounded to the nearest float, as MediaPipe's builds get them
/// from LLVM's libc (its `expf`, `cosf`, `sinf` and `atan2f` are correctly rounded). The C
/// library's float versions are within a fraction of an ulp but not always the nearest float,
/// and on video one ulp in a tracked region grows from frame to frame. Each function is
/// evaluated in Double (within an ulp of Double) and rounded once to Float, which gives the
/// nearest float unless the exact value lies within 2^-29 ulp of a midpoint between two floats.
enum FloatMath {
    @inline(__always) static func exp(_ x: Float) -> Float { Float(doubleExp(Double(x))) }
    @inline(__always) static func cos(_ x: Float) -> Float { Float(doubleCos(Double(x))) }
    @inline(__always) static func sin(_ x: Float) -> Float { Float(doubleSin(Double(x))) }
    @inline(__always) static func atan2(_ y: Float, _ x: Float) -> Float { Float(doubleAtan2(Double(y), Double(x))) }
    /// `1 / (1 + exp(-x))` in float, as MediaPipe's calculators write their sigmoid.
    @inline(__always) static func sigmoid(_ x: Float) -> Float { 1 / (1 + exp(-x)) }
}

// The C library's double functions, named apart from FloatMath's members.
@inline(__always) private func doubleExp(_ x: Double) -> Double { exp(x) }
@inline(__always) private func doubleCos(_ x: Double) -> Double { cos(x) }
@inline(__always) private func doubleSin(_ x: Double) -> Double { sin(x) }
@inline(__always) private func doubleAtan2(_ y: Double, _ x: Double) -> Double { atan2(y, x) }
