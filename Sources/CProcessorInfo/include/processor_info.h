#ifndef TASKSVISION_PROCESSOR_INFO_H
#define TASKSVISION_PROCESSOR_INFO_H

/// The processor the calling thread runs on, or -2 where the system does not say.
int tasksvision_current_processor(void);

/// Sets the calling thread's floating-point control to treat subnormal operands as zero and flush subnormal results
/// to zero, as pthreadpool does around every XNNPACK operator (PTHREADPOOL_FLAG_DISABLE_DENORMALS: MXCSR's FTZ and
/// DAZ on x86-64, FPCR's FZ and FZ16 on arm64); returns the previous control word for
/// `tasksvision_restore_float_control`. Elsewhere a no-op returning 0.
unsigned long long tasksvision_flush_subnormals(void);

/// Restores a control word `tasksvision_flush_subnormals` returned.
void tasksvision_restore_float_control(unsigned long long saved);

#endif
