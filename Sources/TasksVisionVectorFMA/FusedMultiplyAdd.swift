// Vector fused multiply-adds as single LLVM vector operations. The standard library's
// `SIMDn<Float>.addingProduct` is a loop of scalar fused multiply-adds that LLVM's SLP
// vectorizer joins into vectors afterwards; in a register tile it places the joined operations
// where it likes (all of a k step's first-vector products, then all of the second's), which
// keeps every broadcast live at once and spills accumulators on 16-register sets. One builtin
// per width keeps each product where the kernel wrote it. This target is compiled with
// `-parse-stdlib` for the `Builtin` module where the manifest allows it (TASKSVISION_BUILTIN: not on Apple
// platforms, whose builds carry no unsafe flags); elsewhere `addingProduct`, the same bits.
import Swift

#if TASKSVISION_BUILTIN

/// `a * b + c` on every lane, rounded once.
@_transparent public func fusedMultiplyAdd(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ c: SIMD4<Float>) -> SIMD4<Float> {
    var r = SIMD4<Float>()
    r._storage._value = Builtin.int_fma_Vec4xFPIEEE32(a._storage._value, b._storage._value, c._storage._value)
    return r
}

/// `a * b + c` on every lane, rounded once.
@_transparent public func fusedMultiplyAdd(_ a: SIMD8<Float>, _ b: SIMD8<Float>, _ c: SIMD8<Float>) -> SIMD8<Float> {
    var r = SIMD8<Float>()
    r._storage._value = Builtin.int_fma_Vec8xFPIEEE32(a._storage._value, b._storage._value, c._storage._value)
    return r
}

/// `a * b + c` on every lane, rounded once.
@_transparent public func fusedMultiplyAdd(_ a: SIMD16<Float>, _ b: SIMD16<Float>, _ c: SIMD16<Float>)
    -> SIMD16<Float> {
    var r = SIMD16<Float>()
    r._storage._value = Builtin.int_fma_Vec16xFPIEEE32(a._storage._value, b._storage._value, c._storage._value)
    return r
}
#else
/// `a * b + c` on every lane, rounded once.
@_transparent public func fusedMultiplyAdd(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ c: SIMD4<Float>) -> SIMD4<Float> {
    c.addingProduct(a, b)
}

/// `a * b + c` on every lane, rounded once.
@_transparent public func fusedMultiplyAdd(_ a: SIMD8<Float>, _ b: SIMD8<Float>, _ c: SIMD8<Float>) -> SIMD8<Float> {
    c.addingProduct(a, b)
}

/// `a * b + c` on every lane, rounded once.
@_transparent public func fusedMultiplyAdd(_ a: SIMD16<Float>, _ b: SIMD16<Float>, _ c: SIMD16<Float>)
    -> SIMD16<Float> {
    c.addingProduct(a, b)
}
#endif
