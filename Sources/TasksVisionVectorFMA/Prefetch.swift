import Swift

/// Asks the CPU to bring the cache line at `p` into its second-level cache (`prefetcht1`, `prfm pldl2keep`), for data
/// a loop needs after what it reads now. A hint: it never faults, so `p` may point past the end of a buffer.
/// Without the Builtin module (see FusedMultiplyAdd.swift) it does nothing.
@_transparent public func prefetchToL2(_ p: UnsafeRawPointer) {
    #if TASKSVISION_BUILTIN
    Builtin.int_prefetch_RawPointer(p._rawValue, Int32(0)._value, Int32(2)._value, Int32(1)._value)
    #endif
}
