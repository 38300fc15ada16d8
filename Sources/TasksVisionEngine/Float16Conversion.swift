/// IEEE 754 half to single precision, written out so it works on every platform
/// (Swift's `Float16` is unavailable on macOS x86_64). Exact for every input.
@inline(__always)
public func floatFromHalfBits(_ h: UInt16) -> Float {
    let sign = UInt32(h & 0x8000) << 16
    let exponent = Int((h >> 10) & 0x1F)
    let mantissa = UInt32(h & 0x3FF)
    if exponent == 0x1F {  // inf or nan
        return Float(bitPattern: sign | 0x7F80_0000 | (mantissa << 13))
    }
    if exponent == 0 {
        if mantissa == 0 { return Float(bitPattern: sign) }
        // Subnormal half: value = mantissa * 2^-24, exactly representable in Float.
        let magnitude = Float(mantissa) * Float(bitPattern: 0x3380_0000)  // 2^-24
        return sign != 0 ? -magnitude : magnitude
    }
    return Float(bitPattern: sign | (UInt32(exponent + 112) << 23) | (mantissa << 13))
}
