/* A test double of the CUDA runtime (libcudart.so.12), which cannot run
 * here: no GPU.  cudaDeviceSynchronize waits FAKE_CUDART_SYNC_US
 * microseconds (default 0), as a drain of queued work would, and counts
 * its calls; fake_cudart_syncs() tells the test program how many. */
#include <stdlib.h>
#include <time.h>

static int syncs;

int cudaDeviceSynchronize(void) {
    const char *us = getenv("FAKE_CUDART_SYNC_US");
    long n = us ? atol(us) : 0;
    struct timespec ts = {n / 1000000, (n % 1000000) * 1000};
    while (n > 0 && nanosleep(&ts, &ts) != 0)
        ;
    __atomic_add_fetch(&syncs, 1, __ATOMIC_RELAXED);
    return 0; /* cudaSuccess */
}

int fake_cudart_syncs(void) {
    return __atomic_load_n(&syncs, __ATOMIC_RELAXED);
}
