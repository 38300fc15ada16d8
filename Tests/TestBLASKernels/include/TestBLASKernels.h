#ifndef TEST_BLAS_KERNELS_H
#define TEST_BLAS_KERNELS_H

/// 1 when the test process re-launched itself with OPENBLAS_CORETYPE set (see relaunch.c).
int testBLASKernelsRelaunched(void);

#endif
