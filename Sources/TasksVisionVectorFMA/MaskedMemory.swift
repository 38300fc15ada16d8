import Swift

// Loads and stores of a vector's first lanes, for a tile's last columns when they are fewer than a vector. On
// 512-bit vectors LLVM's masked load and store: one AVX-512 instruction with a mask register (lanes outside the mask
// are neither read nor written, so the pointer may be near the end of a buffer). On 256- and 128-bit vectors, lane
// by lane: their layers rarely leave a partial vector.

#if TASKSVISION_BUILTIN
/// Stores lanes 0..<`count` of `v` at `p` (`count` in 0...16); the floats after them are not touched.
@_transparent public func storeFirst(_ v: SIMD16<Float>, _ count: Int, _ p: UnsafeMutablePointer<Float>) {
    let mask = UInt16(truncatingIfNeeded: (1 &<< count) &- 1)
    let m: Builtin.Vec16xInt1 = Builtin.bitcast_Int16_Vec16xInt1(mask._value)
    Builtin.int_masked_store_Vec16xFPIEEE32_RawPointer(v._storage._value, UnsafeMutableRawPointer(p)._rawValue,
                                                       Int32(4)._value, m)
}

/// Floats 0..<`count` at `p` in lanes 0..<`count` (`count` in 0...16), zeros in the others; the floats after them
/// are not read.
@_transparent public func loadFirst(_ count: Int, _ p: UnsafePointer<Float>) -> SIMD16<Float> {
    let mask = UInt16(truncatingIfNeeded: (1 &<< count) &- 1)
    let m: Builtin.Vec16xInt1 = Builtin.bitcast_Int16_Vec16xInt1(mask._value)
    var r = SIMD16<Float>()
    r._storage._value = Builtin.int_masked_load_Vec16xFPIEEE32_RawPointer(UnsafeRawPointer(p)._rawValue,
                                                                          Int32(4)._value, m, r._storage._value)
    return r
}
#else
// Without the Builtin module (see FusedMultiplyAdd.swift), lane by lane.
/// Stores lanes 0..<`count` of `v` at `p` (`count` in 0...16); the floats after them are not touched.
@_transparent public func storeFirst(_ v: SIMD16<Float>, _ count: Int, _ p: UnsafeMutablePointer<Float>) {
    storeLanes(v, count, p)
}

/// Floats 0..<`count` at `p` in lanes 0..<`count` (`count` in 0...16), zeros in the others; the floats after them
/// are not read.
@_transparent public func loadFirst(_ count: Int, _ p: UnsafePointer<Float>) -> SIMD16<Float> { loadLanes(count, p) }
#endif

/// Lanes 0..<`count` of `v` stored at `p` (`count` in 0...8), lane by lane; the floats after them are not touched.
@_transparent public func storeFirst(_ v: SIMD8<Float>, _ count: Int, _ p: UnsafeMutablePointer<Float>) {
    storeLanes(v, count, p)
}

/// Lanes 0..<`count` of `v` stored at `p` (`count` in 0...4), lane by lane; the floats after them are not touched.
@_transparent public func storeFirst(_ v: SIMD4<Float>, _ count: Int, _ p: UnsafeMutablePointer<Float>) {
    storeLanes(v, count, p)
}

/// Floats 0..<`count` at `p` in lanes 0..<`count` (`count` in 0...8), zeros in the others, lane by lane.
@_transparent public func loadFirst(_ count: Int, _ p: UnsafePointer<Float>) -> SIMD8<Float> { loadLanes(count, p) }

/// Floats 0..<`count` at `p` in lanes 0..<`count` (`count` in 0...4), zeros in the others, lane by lane.
@_transparent public func loadFirst(_ count: Int, _ p: UnsafePointer<Float>) -> SIMD4<Float> { loadLanes(count, p) }

/// Lanes 0..<`count` of `v` stored at `p`, one by one.
@_transparent public func storeLanes<V: SIMD>(_ v: V, _ count: Int, _ p: UnsafeMutablePointer<V.Scalar>) {
    for j in 0..<count { p[j] = v[j] }
}

/// Lanes 0..<`count` loaded from `p` one by one, zeros in the others.
@_transparent public func loadLanes<V: SIMD>(_ count: Int, _ p: UnsafePointer<V.Scalar>) -> V {
    var v = V()
    for j in 0..<count { v[j] = p[j] }
    return v
}
