import Swift

// Lane selections on 512-bit vectors as single LLVM vector operations (a compare into a mask register, a masked
// move): the standard library's `replacing(with:where:)` and mask operations on `SIMD16` became lane loops and mask
// shifts on AVX-512. Without the Builtin module (see FusedMultiplyAdd.swift), the standard library's, the same lanes.

#if TASKSVISION_BUILTIN
/// `a` in the lanes where `x < y`, `b` in the others (false where either is NaN).
@_transparent public func select(where x: SIMD16<Float>, isLessThan y: SIMD16<Float>, _ a: SIMD16<Float>,
                                 else b: SIMD16<Float>) -> SIMD16<Float> {
    let m = Builtin.fcmp_olt_Vec16xFPIEEE32(x._storage._value, y._storage._value)
    var r = SIMD16<Float>()
    r._storage._value = Builtin.select_Vec16xInt1_Vec16xFPIEEE32(m, a._storage._value, b._storage._value)
    return r
}

/// Whether `x >= y` fails in any lane (NaN lanes included).
@_transparent public func anyNotGreaterOrEqual(_ x: SIMD16<Float>, _ y: SIMD16<Float>) -> Bool {
    let m = Builtin.fcmp_ult_Vec16xFPIEEE32(x._storage._value, y._storage._value)
    return UInt16(Builtin.bitcast_Vec16xInt1_Int16(m)) != 0
}
#else
/// `a` in the lanes where `x < y`, `b` in the others (false where either is NaN).
@_transparent public func select(where x: SIMD16<Float>, isLessThan y: SIMD16<Float>, _ a: SIMD16<Float>,
                                 else b: SIMD16<Float>) -> SIMD16<Float> {
    b.replacing(with: a, where: x .< y)
}

/// Whether `x >= y` fails in any lane (NaN lanes included).
@_transparent public func anyNotGreaterOrEqual(_ x: SIMD16<Float>, _ y: SIMD16<Float>) -> Bool {
    any(.!(x .>= y))
}
#endif
