// sched_getcpu is a GNU extension: Swift's Glibc module does not declare it.
#define _GNU_SOURCE
#include "processor_info.h"
#if defined(__linux__)
#include <sched.h>
int tasksvision_current_processor(void) { return sched_getcpu(); }
#else
int tasksvision_current_processor(void) { return -2; }
#endif
