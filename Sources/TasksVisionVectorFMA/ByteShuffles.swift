import Swift

// x86's `pshufb` on 256- and 512-bit vectors, for the 8-bit table lookups (XNNPACK's `x8-lut ... vpshufb`): in each
// 128-bit lane, each byte of the result is the table's byte at the index's low four bits, or 0 where the index has
// its top bit set. Emitted only into a target built for AVX2 or AVX-512 BW (see IntegerDotProducts.swift); without
// the Builtin module (Apple platforms), lane by lane.

// A debug build (DEBUG) takes the lane-by-lane form: at -Onone the compiler also code-generates these wrappers
// for this target's baseline instruction set, where LLVM has no lowering for them.
#if TASKSVISION_BUILTIN && !DEBUG
/// `vpshufb` (512-bit). Only in a target built for AVX-512 BW.
@_alwaysEmitIntoClient @inline(__always) public func shuffleBytes(_ table: SIMD64<UInt8>,
                                                                  _ index: SIMD64<Int8>) -> SIMD64<UInt8> {
    var r = SIMD64<UInt8>()
    r._storage._value = Builtin.int_x86_avx512_pshuf_b_512(table._storage._value, index._storage._value)
    return r
}

/// `vpshufb` (256-bit). Only in a target built for AVX2.
@_alwaysEmitIntoClient @inline(__always) public func shuffleBytes(_ table: SIMD32<UInt8>,
                                                                  _ index: SIMD32<Int8>) -> SIMD32<UInt8> {
    var r = SIMD32<UInt8>()
    r._storage._value = Builtin.int_x86_avx2_pshuf_b(table._storage._value, index._storage._value)
    return r
}

#else
@_transparent public func shuffleBytes(_ table: SIMD64<UInt8>, _ index: SIMD64<Int8>) -> SIMD64<UInt8> {
    var r = SIMD64<UInt8>()
    for i in 0..<64 { r[i] = index[i] < 0 ? 0 : table[(i & ~15) | Int(index[i] & 15)] }
    return r
}

@_transparent public func shuffleBytes(_ table: SIMD32<UInt8>, _ index: SIMD32<Int8>) -> SIMD32<UInt8> {
    var r = SIMD32<UInt8>()
    for i in 0..<32 { r[i] = index[i] < 0 ? 0 : table[(i & ~15) | Int(index[i] & 15)] }
    return r
}
#endif

#if TASKSVISION_BUILTIN
/// `a ^ b` as one vector operation (the standard library's `^` on byte vectors runs lane by lane).
@_transparent public func xorBytes(_ a: SIMD64<UInt8>, _ b: SIMD64<UInt8>) -> SIMD64<UInt8> {
    var r = SIMD64<UInt8>()
    r._storage._value = Builtin.xor_Vec64xInt8(a._storage._value, b._storage._value)
    return r
}

@_transparent public func xorBytes(_ a: SIMD32<UInt8>, _ b: SIMD32<UInt8>) -> SIMD32<UInt8> {
    var r = SIMD32<UInt8>()
    r._storage._value = Builtin.xor_Vec32xInt8(a._storage._value, b._storage._value)
    return r
}

/// `a - b` saturated to -128...127 in each lane (`vpsubsb`).
@_transparent public func subtractSaturating(_ a: SIMD64<Int8>, _ b: SIMD64<Int8>) -> SIMD64<Int8> {
    var r = SIMD64<Int8>()
    r._storage._value = Builtin.int_ssub_sat_Vec64xInt8(a._storage._value, b._storage._value)
    return r
}

@_transparent public func subtractSaturating(_ a: SIMD32<Int8>, _ b: SIMD32<Int8>) -> SIMD32<Int8> {
    var r = SIMD32<Int8>()
    r._storage._value = Builtin.int_ssub_sat_Vec32xInt8(a._storage._value, b._storage._value)
    return r
}
#else
@_transparent public func subtractSaturating(_ a: SIMD64<Int8>, _ b: SIMD64<Int8>) -> SIMD64<Int8> {
    var r = SIMD64<Int8>()
    for i in 0..<64 { r[i] = Int8(max(-128, min(127, Int(a[i]) - Int(b[i])))) }
    return r
}
@_transparent public func subtractSaturating(_ a: SIMD32<Int8>, _ b: SIMD32<Int8>) -> SIMD32<Int8> {
    var r = SIMD32<Int8>()
    for i in 0..<32 { r[i] = Int8(max(-128, min(127, Int(a[i]) - Int(b[i])))) }
    return r
}
@_transparent public func xorBytes(_ a: SIMD64<UInt8>, _ b: SIMD64<UInt8>) -> SIMD64<UInt8> { a ^ b }
@_transparent public func xorBytes(_ a: SIMD32<UInt8>, _ b: SIMD32<UInt8>) -> SIMD32<UInt8> { a ^ b }
#endif
