#include "vector_estimates.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

// The estimate instructions have no portable formula (rsqrtps's table is the vendor's), so they are run, not
// emulated; the target attributes keep the rest of the package free of AVX-512 code.
__attribute__((target("avx512f"))) int tasksvision_rsqrt14(const float *x, float *y, size_t count) {
    size_t i = 0;
    for (; i + 16 <= count; i += 16) _mm512_storeu_ps(y + i, _mm512_rsqrt14_ps(_mm512_loadu_ps(x + i)));
    if (i < count) {
        __mmask16 m = (__mmask16)((1u << (count - i)) - 1u);
        _mm512_mask_storeu_ps(y + i, m, _mm512_rsqrt14_ps(_mm512_maskz_loadu_ps(m, x + i)));
    }
    return 1;
}

__attribute__((target("avx"))) int tasksvision_rsqrt_avx(const float *x, float *y, size_t count) {
    float in[8], out[8];
    for (size_t i = 0; i < count; i += 8) {
        size_t n = count - i < 8 ? count - i : 8;
        for (size_t j = 0; j < 8; j++) in[j] = j < n ? x[i + j] : 1.0f;
        _mm256_storeu_ps(out, _mm256_rsqrt_ps(_mm256_loadu_ps(in)));
        for (size_t j = 0; j < n; j++) y[i + j] = out[j];
    }
    return 1;
}
#else
int tasksvision_rsqrt14(const float *x, float *y, size_t count) { (void)x; (void)y; (void)count; return 0; }
int tasksvision_rsqrt_avx(const float *x, float *y, size_t count) { (void)x; (void)y; (void)count; return 0; }
#endif
