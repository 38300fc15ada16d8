import Swift

// Integer dot products of bytes and 16-bit lanes as single instructions, for the int8 kernels: AVX-512 VNNI's
// `vpdpbusd`, x86's `vpmaddwd`, arm64's `sdot`. Swift's SIMD types have no such operations, and LLVM does not form
// them from lane-wise code reliably, so each is its LLVM intrinsic through the `Builtin` module (this target's
// `-parse-stdlib`), inlined into the kernel set that calls it: only a target built for the instruction set (and run
// only on a CPU that has it) may call one. Without the Builtin module (Apple platforms), the same sums lane by lane.
// Integer sums are exact, so both forms give the same values.

// The intrinsics' wrappers are emitted only into their callers (`@_alwaysEmitIntoClient`): this target is built
// for the baseline instruction set, where LLVM has no lowering for them; a debug build (DEBUG), which would
// code-generate them there at -Onone all the same, takes the lane-by-lane form.
#if TASKSVISION_BUILTIN && !DEBUG
/// `vpdpbusd`: each 32-bit lane of `acc` plus the four products of `a`'s bytes (unsigned) with `b`'s (signed) in
/// that lane. Only in a target built for AVX-512 VNNI.
@_alwaysEmitIntoClient @inline(__always) public func dotUnsignedBySigned(_ acc: SIMD16<Int32>, _ a: SIMD16<Int32>,
                                              _ b: SIMD16<Int32>) -> SIMD16<Int32> {
    var r = SIMD16<Int32>()
    r._storage._value = Builtin.int_x86_avx512_vpdpbusd_512(acc._storage._value, a._storage._value,
                                                            b._storage._value)
    return r
}

/// `vpmaddwd` (256-bit): each 32-bit lane the sum of the products of the two 16-bit lanes of `a` and `b` in it.
/// Only in a target built for AVX2.
@_alwaysEmitIntoClient @inline(__always) public func multiplyAddPairs(_ a: SIMD16<Int16>, _ b: SIMD16<Int16>) -> SIMD8<Int32> {
    var r = SIMD8<Int32>()
    r._storage._value = Builtin.int_x86_avx2_pmadd_wd(a._storage._value, b._storage._value)
    return r
}
#else
/// `vpdpbusd` lane by lane.
@_transparent public func dotUnsignedBySigned(_ acc: SIMD16<Int32>, _ a: SIMD16<Int32>,
                                              _ b: SIMD16<Int32>) -> SIMD16<Int32> {
    var r = acc
    for i in 0..<16 {
        let x = UInt32(bitPattern: a[i]), y = UInt32(bitPattern: b[i])
        for t in 0..<4 {
            let u = Int32(UInt8(truncatingIfNeeded: x >> (8 * UInt32(t))))
            let s = Int32(Int8(truncatingIfNeeded: y >> (8 * UInt32(t))))
            r[i] &+= u &* s
        }
    }
    return r
}

/// `vpmaddwd` lane by lane.
@_transparent public func multiplyAddPairs(_ a: SIMD16<Int16>, _ b: SIMD16<Int16>) -> SIMD8<Int32> {
    var r = SIMD8<Int32>()
    for i in 0..<8 {
        r[i] = Int32(a[2 * i]) &* Int32(b[2 * i]) &+ Int32(a[2 * i + 1]) &* Int32(b[2 * i + 1])
    }
    return r
}
#endif

#if TASKSVISION_BUILTIN && arch(arm64) && !DEBUG
/// `sdot`: each 32-bit lane of `acc` plus the four products of the signed bytes of `a` and `b` in that lane
/// (Armv8.2 dot product; only on a processor that has it, `asimddp`).
@_alwaysEmitIntoClient @inline(__always) public func dotSigned(_ acc: SIMD4<Int32>, _ a: SIMD16<Int8>, _ b: SIMD16<Int8>) -> SIMD4<Int32> {
    var r = SIMD4<Int32>()
    r._storage._value = Builtin.int_aarch64_neon_sdot_Vec4xInt32_Vec16xInt8(acc._storage._value, a._storage._value,
                                                                           b._storage._value)
    return r
}
#else
/// `sdot` lane by lane.
@_transparent public func dotSigned(_ acc: SIMD4<Int32>, _ a: SIMD16<Int8>, _ b: SIMD16<Int8>) -> SIMD4<Int32> {
    var r = acc
    for i in 0..<4 {
        for t in 0..<4 { r[i] &+= Int32(a[4 * i + t]) &* Int32(b[4 * i + t]) }
    }
    return r
}
#endif

// Conversions the int8 kernels' requantization needs as single vector instructions (`vcvtdq2ps`, `vpmovdb`): the
// standard library's SIMD conversions are generic and stay calls in a kernel's inner code.
#if TASKSVISION_BUILTIN
/// Each lane converted to float (rounded to nearest even past 2^24).
@_transparent public func convertToFloat(_ v: SIMD16<Int32>) -> SIMD16<Float> {
    var r = SIMD16<Float>()
    r._storage._value = Builtin.sitofp_Vec16xInt32_Vec16xFPIEEE32(v._storage._value)
    return r
}
@_transparent public func convertToFloat(_ v: SIMD8<Int32>) -> SIMD8<Float> {
    var r = SIMD8<Float>()
    r._storage._value = Builtin.sitofp_Vec8xInt32_Vec8xFPIEEE32(v._storage._value)
    return r
}
@_transparent public func convertToFloat(_ v: SIMD4<Int32>) -> SIMD4<Float> {
    var r = SIMD4<Float>()
    r._storage._value = Builtin.sitofp_Vec4xInt32_Vec4xFPIEEE32(v._storage._value)
    return r
}
/// Each lane's low byte.
@_transparent public func narrowToBytes(_ v: SIMD16<Int32>) -> SIMD16<Int8> {
    var r = SIMD16<Int8>()
    r._storage._value = Builtin.trunc_Vec16xInt32_Vec16xInt8(v._storage._value)
    return r
}
@_transparent public func narrowToBytes(_ v: SIMD8<Int32>) -> SIMD8<Int8> {
    var r = SIMD8<Int8>()
    r._storage._value = Builtin.trunc_Vec8xInt32_Vec8xInt8(v._storage._value)
    return r
}
@_transparent public func narrowToBytes(_ v: SIMD4<Int32>) -> SIMD4<Int8> {
    var r = SIMD4<Int8>()
    r._storage._value = Builtin.trunc_Vec4xInt32_Vec4xInt8(v._storage._value)
    return r
}
#else
@_transparent public func convertToFloat(_ v: SIMD16<Int32>) -> SIMD16<Float> { SIMD16<Float>(v) }
@_transparent public func convertToFloat(_ v: SIMD8<Int32>) -> SIMD8<Float> { SIMD8<Float>(v) }
@_transparent public func convertToFloat(_ v: SIMD4<Int32>) -> SIMD4<Float> { SIMD4<Float>(v) }
@_transparent public func narrowToBytes(_ v: SIMD16<Int32>) -> SIMD16<Int8> { SIMD16<Int8>(truncatingIfNeeded: v) }
@_transparent public func narrowToBytes(_ v: SIMD8<Int32>) -> SIMD8<Int8> { SIMD8<Int8>(truncatingIfNeeded: v) }
@_transparent public func narrowToBytes(_ v: SIMD4<Int32>) -> SIMD4<Int8> { SIMD4<Int8>(truncatingIfNeeded: v) }
#endif

#if TASKSVISION_BUILTIN
/// Each byte sign-extended to 32 bits (`vpmovsxbd`).
@_transparent public func widenBytes(_ v: SIMD16<Int8>) -> SIMD16<Int32> {
    var r = SIMD16<Int32>()
    r._storage._value = Builtin.sext_Vec16xInt8_Vec16xInt32(v._storage._value)
    return r
}
@_transparent public func widenBytes(_ v: SIMD8<Int8>) -> SIMD8<Int32> {
    var r = SIMD8<Int32>()
    r._storage._value = Builtin.sext_Vec8xInt8_Vec8xInt32(v._storage._value)
    return r
}
#else
@_transparent public func widenBytes(_ v: SIMD16<Int8>) -> SIMD16<Int32> { SIMD16<Int32>(truncatingIfNeeded: v) }
@_transparent public func widenBytes(_ v: SIMD8<Int8>) -> SIMD8<Int32> { SIMD8<Int32>(truncatingIfNeeded: v) }
#endif

#if TASKSVISION_BUILTIN
/// Each byte zero-extended to 32 bits (`vpmovzxbd`).
@_transparent public func widenUnsignedBytes(_ v: SIMD16<UInt8>) -> SIMD16<Int32> {
    var r = SIMD16<Int32>()
    r._storage._value = Builtin.zext_Vec16xInt8_Vec16xInt32(v._storage._value)
    return r
}
@_transparent public func widenUnsignedBytes(_ v: SIMD8<UInt8>) -> SIMD8<Int32> {
    var r = SIMD8<Int32>()
    r._storage._value = Builtin.zext_Vec8xInt8_Vec8xInt32(v._storage._value)
    return r
}
#else
@_transparent public func widenUnsignedBytes(_ v: SIMD16<UInt8>) -> SIMD16<Int32> {
    SIMD16<Int32>(truncatingIfNeeded: v)
}
@_transparent public func widenUnsignedBytes(_ v: SIMD8<UInt8>) -> SIMD8<Int32> { SIMD8<Int32>(truncatingIfNeeded: v) }
#endif

#if TASKSVISION_BUILTIN
/// Each byte sign-extended to 16 bits (`vpmovsxbw`).
@_transparent public func widenBytes(_ v: SIMD32<Int8>) -> SIMD32<Int16> {
    var r = SIMD32<Int16>()
    r._storage._value = Builtin.sext_Vec32xInt8_Vec32xInt16(v._storage._value)
    return r
}
@_transparent public func widenBytesToWords(_ v: SIMD16<Int8>) -> SIMD16<Int16> {
    var r = SIMD16<Int16>()
    r._storage._value = Builtin.sext_Vec16xInt8_Vec16xInt16(v._storage._value)
    return r
}
/// Each 16-bit lane sign-extended to 32 bits (`vpmovsxwd`).
@_transparent public func widenWords(_ v: SIMD16<Int16>) -> SIMD16<Int32> {
    var r = SIMD16<Int32>()
    r._storage._value = Builtin.sext_Vec16xInt16_Vec16xInt32(v._storage._value)
    return r
}
@_transparent public func widenWords(_ v: SIMD8<Int16>) -> SIMD8<Int32> {
    var r = SIMD8<Int32>()
    r._storage._value = Builtin.sext_Vec8xInt16_Vec8xInt32(v._storage._value)
    return r
}
#else
@_transparent public func widenBytes(_ v: SIMD32<Int8>) -> SIMD32<Int16> { SIMD32<Int16>(truncatingIfNeeded: v) }
@_transparent public func widenBytesToWords(_ v: SIMD16<Int8>) -> SIMD16<Int16> {
    SIMD16<Int16>(truncatingIfNeeded: v)
}
@_transparent public func widenWords(_ v: SIMD16<Int16>) -> SIMD16<Int32> { SIMD16<Int32>(truncatingIfNeeded: v) }
@_transparent public func widenWords(_ v: SIMD8<Int16>) -> SIMD8<Int32> { SIMD8<Int32>(truncatingIfNeeded: v) }
#endif
