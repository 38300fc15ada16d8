// sched_getcpu is a GNU extension: Swift's Glibc module does not declare it.
#define _GNU_SOURCE
#include "processor_info.h"
#if defined(__linux__)
#include <sched.h>
int tasksvision_current_processor(void) { return sched_getcpu(); }
#else
int tasksvision_current_processor(void) { return -2; }
#endif

#if defined(__x86_64__)
#include <xmmintrin.h>
// MXCSR bit 15 (FTZ) and bit 6 (DAZ), pthreadpool's disable_fpu_denormals on x86.
unsigned long long tasksvision_flush_subnormals(void) {
    unsigned int saved = _mm_getcsr();
    _mm_setcsr(saved | 0x8040);
    return saved;
}
void tasksvision_restore_float_control(unsigned long long saved) { _mm_setcsr((unsigned int)saved); }
#elif defined(__aarch64__)
// FPCR bit 24 (FZ) and bit 19 (FZ16), pthreadpool's disable_fpu_denormals on arm64.
unsigned long long tasksvision_flush_subnormals(void) {
    unsigned long long saved;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(saved));
    unsigned long long flushing = saved | 0x1080000ULL;
    __asm__ __volatile__("msr fpcr, %0" : : "r"(flushing));
    return saved;
}
void tasksvision_restore_float_control(unsigned long long saved) {
    __asm__ __volatile__("msr fpcr, %0" : : "r"(saved));
}
#else
unsigned long long tasksvision_flush_subnormals(void) { return 0; }
void tasksvision_restore_float_control(unsigned long long saved) { (void)saved; }
#endif
