#include <cblas.h>
// OpenBLAS extensions (declared in its cblas.h; repeated here so the shim
// also builds against a cblas.h that lacks them).
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
