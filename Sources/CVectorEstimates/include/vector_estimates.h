#ifndef TASKSVISION_VECTOR_ESTIMATES_H
#define TASKSVISION_VECTOR_ESTIMATES_H

#include <stddef.h>

/// The x86 reciprocal-square-root estimates XNNPACK's SQRT and RSQRT kernels start from, as the processor computes
/// them (their bits are the processor's: Intel and AMD tables differ for `rsqrtps`). Call only on a CPU with the
/// instruction set named; on other architectures they copy nothing and return 0.

/// `vrsqrt14ps` (AVX-512F) of `count` floats from `x` into `y`. Returns 1 when it ran.
int tasksvision_rsqrt14(const float *x, float *y, size_t count);

/// `vrsqrtps` (AVX) of `count` floats from `x` into `y`. Returns 1 when it ran.
int tasksvision_rsqrt_avx(const float *x, float *y, size_t count);

#endif
