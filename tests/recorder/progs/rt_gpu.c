/* Runs a phase for RT_GPU_MS with the sampler on, so that the GPU block of
 * its RESOURCE records can be checked against the stand-in NVML the driver
 * put on LD_LIBRARY_PATH (or its absence).  Usage: rt_gpu RUN_DIR */
#include "rt_common.h"

#include <scope/scope.h>

#include <time.h>

int main(int argc, char **argv) {
    if (argc != 2 || scope_init(argv[1], "gpu") != 0)
        return 2;
    SCOPE_PHASE("train") {
        struct timespec ts = {0, RT_GPU_MS * 1000000L};
        while (nanosleep(&ts, &ts) != 0)
            ;
    }
    return 0;
}
