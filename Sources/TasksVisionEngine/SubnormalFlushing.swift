import CProcessorInfo

/// Runs `body` with the calling thread's subnormals flushed to zero, operands and results (x86-64: MXCSR's DAZ and
/// FTZ; arm64: FPCR's FZ), then restores the thread's control word. XNNPACK runs every operator so (pthreadpool's
/// `PTHREADPOOL_FLAG_DISABLE_DENORMALS`): a softmax tail or a sum that passes below 2^-126 becomes zero there, and
/// must here too for the same bits. The worker pool's helpers flush for their whole life (they run nothing else).
@inline(__always)
func withSubnormalsFlushed<R>(_ body: () throws -> R) rethrows -> R {
    let saved = tasksvision_flush_subnormals()
    defer { tasksvision_restore_float_control(saved) }
    return try body()
}
