/*
 * A small C library that records with SCOPE_PHASE, loaded by a Python
 * program through ctypes (py_workload.py): its phases must land in the
 * Python program's own log, nested under the Python phase open around the
 * call, because both go through the one libscope of the process.
 */
#include <scope/scope.h>
#include <stdint.h>
#include <time.h>

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* One "c_kernel" phase of about `us` microseconds of sleep, counting
 * `cells`; returns the phase's wall time on the library's own clock,
 * measured around the block. */
int64_t py_mix_kernel(int us, int64_t cells) {
    int64_t t0 = now_ns();
    SCOPE_PHASE("c_kernel") {
        struct timespec d = {us / 1000000, (long)(us % 1000000) * 1000};
        nanosleep(&d, NULL);
        SCOPE_COUNT("cells", cells);
    }
    return now_ns() - t0;
}
