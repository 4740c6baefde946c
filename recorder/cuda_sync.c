/*
 * SCOPE_PHASE_SYNC's drain (cuda_sync.h).  cudaDeviceSynchronize of a
 * runtime the program loaded, else the driver's cuCtxSynchronize: looked up
 * among the loaded libraries (dlsym over the global scope, then dlopen with
 * RTLD_NOLOAD for runtimes loaded locally, as Python extensions load them).
 * A lookup that finds nothing is tried again at the next sync, since a
 * program may load CUDA after its first sync phase; one that finds a
 * function keeps it.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "cuda_sync.h"

#include <assert.h>
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>

/* cudaError_t cudaDeviceSynchronize(void) and CUresult cuCtxSynchronize(void):
 * both return an enum, 0 on success, which a drain has no use for. */
typedef int (*sync_fn)(void);

static _Atomic(sync_fn) found;
static _Atomic uint64_t missed;

static sync_fn in_loaded(const char *const *libs, const char *sym) {
    void *f = dlsym(RTLD_DEFAULT, sym);
    for (const char *const *l = libs; !f && *l; l++) {
        void *h = dlopen(*l, RTLD_LAZY | RTLD_NOLOAD);
        if (h) {
            f = dlsym(h, sym);
            dlclose(h); /* drops only the reference RTLD_NOLOAD took */
        }
    }
    sync_fn fn;
    static_assert(sizeof fn == sizeof f, "a function pointer fits a data pointer (POSIX)");
    *(void **)&fn = f;
    return fn;
}

static sync_fn lookup(void) {
    static const char *const runtimes[] = {"libcudart.so", "libcudart.so.13", "libcudart.so.12",
                                           "libcudart.so.11.0", NULL};
    static const char *const drivers[] = {"libcuda.so.1", "libcuda.so", NULL};
    sync_fn fn = in_loaded(runtimes, "cudaDeviceSynchronize");
    if (!fn)
        fn = in_loaded(drivers, "cuCtxSynchronize");
    /* A lookup that failed leaves an error message allocated for the
     * thread: the program's next dlerror() would read ours.  The first
     * call returns it, the second frees it. */
    while (dlerror())
        ;
    return fn;
}

int rec_cuda_sync(void) {
    sync_fn fn = atomic_load_explicit(&found, memory_order_acquire);
    if (!fn && (fn = lookup()))
        atomic_store_explicit(&found, fn, memory_order_release);
    if (!fn) {
        atomic_fetch_add_explicit(&missed, 1, memory_order_relaxed);
        return -1;
    }
    (void)fn();
    return 0;
}

uint64_t rec_cuda_sync_missed(void) {
    return atomic_load_explicit(&missed, memory_order_relaxed);
}
