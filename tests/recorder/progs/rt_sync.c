/* SCOPE_PHASE_SYNC with and without a CUDA runtime loaded.  Usage:
 *   rt_sync RUN_DIR load|none
 * load: dlopen("libcudart.so.12") first, privately (RTLD_LOCAL), as Python
 * extensions load CUDA; the driver puts a stand-in of it on
 * LD_LIBRARY_PATH.  Then "outer" holds RT_SYNC_ENTRIES entries of the sync
 * phase "synced", and the program prints "syncs N", the synchronizations
 * the runtime saw. */
#include "rt_common.h"

#include <scope/scope.h>

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 3 || scope_init(argv[1], "sync") != 0)
        return 2;
    void *h = NULL;
    if (!strcmp(argv[2], "load") && !(h = dlopen("libcudart.so.12", RTLD_NOW | RTLD_LOCAL))) {
        fprintf(stderr, "rt_sync: %s\n", dlerror());
        return 3;
    }
    SCOPE_PHASE("outer") {
        for (int i = 0; i < RT_SYNC_ENTRIES; i++)
            SCOPE_PHASE_SYNC("synced") {}
    }
    int syncs = 0;
    if (h) {
        int (*count)(void) = (int (*)(void))dlsym(h, "fake_cudart_syncs");
        syncs = count ? count() : -1;
    }
    printf("syncs %d\n", syncs);
    return 0;
}
