// The test process runs on the OpenBLAS kernels the `vision` and `vision-bench` executables
// use. They re-launch themselves with OPENBLAS_CORETYPE set when OpenBLAS fell back to generic
// kernels on a CPU it does not know, or chose Cooperlake (BLASConfiguration.relaunchWithBetterBLASKernelsIfNeeded);
// the kernels decide how each sum is rounded, so parity measured under other kernels would not
// be the command line's. The tests cannot run Swift before XCTest starts, so this constructor
// does the same before main: same generic core names, same CPU features, same choice.
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "TestBLASKernels.h"

extern char *openblas_get_corename(void);

static int relaunched = 0;

int testBLASKernelsRelaunched(void) { return relaunched; }

static int generic_core(const char *name) {
    static const char *const generic[] = {"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Atom",
                                          "Banias", "Northwood", "Katmai", "Coppermine"};
    for (size_t i = 0; i < sizeof generic / sizeof generic[0]; i++) {
        if (strcmp(name, generic[i]) == 0) return 1;
    }
    return 0;
}

__attribute__((constructor)) static void use_the_command_line_kernels(int argc, char **argv) {
    (void)argc;
    if (getenv("TASKSVISION_TEST_RELAUNCHED")) relaunched = 1;
#if defined(__linux__) && defined(__x86_64__)
    if (getenv("OPENBLAS_CORETYPE") || !argv) return;
    const char *core = openblas_get_corename();
    // Cooperlake (OpenBLAS's choice on a Zen 4) is replaced too, as BLASConfiguration.replacedCores says why.
    if (!core || !(generic_core(core) || strcmp(core, "Cooperlake") == 0)) return;
    __builtin_cpu_init();
    const char *wanted = NULL;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw")
        && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512cd")) {
        wanted = "SkylakeX";
    } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        wanted = "Haswell";
    }
    if (!wanted) return;
    setenv("OPENBLAS_CORETYPE", wanted, 1);
    setenv("TASKSVISION_TEST_RELAUNCHED", "1", 1);
    execv("/proc/self/exe", argv);
    // execv returns only on failure: the tests run on the kernels OpenBLAS chose.
#endif
}
