/*
 * GPU figures from NVML (gpu_nvml.h).  The few types and functions used are
 * declared here from NVML's documented API (nvml.h), so building needs
 * nothing of NVIDIA's; the library is loaded with dlopen on the writer
 * thread's first sample and never unloaded (NVML keeps threads of its own).
 *
 * Per device and interval:
 *   busy     nvmlDeviceGetUtilizationRates: the share of the last sample
 *            period in which a kernel of any process ran;
 *   run      nvmlDeviceGetProcessUtilization since the newest timestamp
 *            seen on the device: the mean SM share of this pid's samples.
 *            No sample for the pid (NVML_ERROR_NOT_FOUND, or samples of
 *            other pids only) is a measured 0 with SCOPE_GPU_RUN_SEEN
 *            clear: NVML samples a process only while it has work there;
 *   memory   nvmlDeviceGetMemoryInfo (the device's used and total) and
 *            nvmlDeviceGetComputeRunningProcesses_v3 (this pid's, 0 when
 *            it has no context on the device).
 * A call that fails leaves its figures' presence bits clear, and so does
 * one that claims more rows than the buffer it was given (or more than
 * NVML_MAX_ROWS): the rows past the buffer were never written, and the
 * ones in it may not be all of them.
 *
 * Which library: SCOPE_NVML_LIBRARY when set (that file and nothing else:
 * the tests' stand-in, or a driver in a place of its own); else the first
 * of the driver's usual absolute paths that loads; else
 * dlopen("libnvidia-ml.so.1") through the search path.  Absolute paths come
 * first because the search path is partly the program's: a DT_RPATH or
 * DT_RUNPATH holding a directory others can write (".", a build tree, a
 * shared /tmp folder) would otherwise make the recorder load a library
 * planted there into a program that never asked for NVML (docs/trust.md).
 */
#define _GNU_SOURCE
#include "gpu_nvml.h"

#include "clock.h"
#include "config.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/* ---- NVML's API, as documented ------------------------------------------- */

typedef int nvmlReturn_t;
#define NVML_SUCCESS                 0
#define NVML_ERROR_NOT_FOUND         6
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_VALUE_NOT_AVAILABLE     (~0ull)

typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {
    unsigned int gpu, memory; /* percent */
} nvmlUtilization_t;
typedef struct {
    unsigned long long total, free, used; /* bytes */
} nvmlMemory_t;
typedef struct {
    unsigned int pid;
    unsigned long long timeStamp; /* CPU timestamp, microseconds */
    unsigned int smUtil, memUtil, encUtil, decUtil;
} nvmlProcessUtilizationSample_t;
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory; /* bytes */
    unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;

static struct {
    nvmlReturn_t (*init)(void);
    nvmlReturn_t (*count)(unsigned int *);
    nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t *);
    nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t *);
    nvmlReturn_t (*process_utilization)(nvmlDevice_t, nvmlProcessUtilizationSample_t *,
                                        unsigned int *, unsigned long long);
    nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t *);
    nvmlReturn_t (*processes)(nvmlDevice_t, unsigned int *, nvmlProcessInfo_t *);
} nvml;

/* ---- the devices ------------------------------------------------------------ */

static int tried;
static unsigned ndev;
static nvmlDevice_t dev[REC_MAX_GPUS];
static unsigned dev_index[REC_MAX_GPUS];
static unsigned long long last_seen[REC_MAX_GPUS]; /* newest process sample, per device */

/* More rows than any device lists (processes with a context there, or
 * utilization samples in NVML's buffer of them): a count past it is a
 * broken library's, and costs no allocation. */
#define NVML_MAX_ROWS 16384u

/* A function of the library into its member: POSIX lets dlsym's data
 * pointer stand for a function. */
#define LOAD(h, field, name) ((*(void **)&nvml.field = dlsym(h, name)) != NULL)

#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define MULTIARCH "powerpc64le-linux-gnu"
#endif

/* Where NVIDIA's driver puts the library, by who installs it. */
static const char *const driver_paths[] = {
#ifdef MULTIARCH
    "/usr/lib/" MULTIARCH "/libnvidia-ml.so.1",                /* Debian, Ubuntu */
    "/usr/lib/" MULTIARCH "/nvidia/current/libnvidia-ml.so.1", /* Debian's own driver */
#endif
    "/usr/lib64/libnvidia-ml.so.1",              /* RHEL, Fedora, SUSE; the .run installer */
    "/usr/lib/libnvidia-ml.so.1",                /* Arch; the .run installer elsewhere */
    "/usr/local/nvidia/lib64/libnvidia-ml.so.1", /* NVIDIA's container images */
    "/run/opengl-driver/lib/libnvidia-ml.so.1",  /* NixOS */
    "/usr/lib/wsl/lib/libnvidia-ml.so.1",        /* WSL 2 */
};

static void *load_library(void) {
    void *h = NULL;
    if (rec_cfg.nvml_library[0])
        h = dlopen(rec_cfg.nvml_library, RTLD_NOW | RTLD_LOCAL);
    else {
        for (size_t i = 0; !h && i < sizeof driver_paths / sizeof *driver_paths; i++)
            h = dlopen(driver_paths[i], RTLD_NOW | RTLD_LOCAL);
        if (!h)
            h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    }
    /* A failure's message is allocated for this thread until read, and
     * twice read to be freed: a child forked later would hold it with no
     * thread to free it. */
    while (dlerror())
        ;
    return h;
}

static void start_once(void) {
    void *h = load_library();
    if (!h)
        return;
    if (!(LOAD(h, init, "nvmlInit_v2") && LOAD(h, count, "nvmlDeviceGetCount_v2") &&
          LOAD(h, handle, "nvmlDeviceGetHandleByIndex_v2") &&
          LOAD(h, utilization, "nvmlDeviceGetUtilizationRates") &&
          LOAD(h, process_utilization, "nvmlDeviceGetProcessUtilization") &&
          LOAD(h, memory, "nvmlDeviceGetMemoryInfo") &&
          LOAD(h, processes, "nvmlDeviceGetComputeRunningProcesses_v3")))
        return; /* the handle stays: a library once loaded is not unloaded */
    unsigned n = 0;
    if (nvml.init() != NVML_SUCCESS || nvml.count(&n) != NVML_SUCCESS)
        return;
    unsigned long long now_us = rec_wall_ns() / 1000u;
    for (unsigned i = 0; i < n && ndev < REC_MAX_GPUS; i++) {
        if (nvml.handle(i, &dev[ndev]) != NVML_SUCCESS)
            continue;
        dev_index[ndev] = i;
        last_seen[ndev] = now_us; /* samples from before the recorder started are not ours */
        ndev++;
    }
}

unsigned rec_gpu_start(void) {
    if (!tried) {
        tried = 1;
        start_once();
    }
    return ndev;
}

void rec_gpu_fork_child(void) {
    unsigned long long now_us = rec_wall_ns() / 1000u;
    for (unsigned i = 0; i < ndev; i++)
        last_seen[i] = now_us;
}

/* ---- one interval ----------------------------------------------------------------- */

/* The rows to allocate after a first call answered rc with n rows: n and
 * room for processes that start between the two calls; 0 when there is
 * nothing to ask again, or n is more than any device holds. */
static unsigned room_for(nvmlReturn_t rc, unsigned n) {
    if (rc != NVML_ERROR_INSUFFICIENT_SIZE || n == 0 || n > NVML_MAX_ROWS)
        return 0;
    return n + 8;
}

/* This pid's SM share since the last sample seen on device d. */
static void run_share(unsigned d, int64_t pid, scope_gpu_figures *g) {
    unsigned int n = 0;
    nvmlReturn_t rc = nvml.process_utilization(dev[d], NULL, &n, last_seen[d]);
    if (rc == NVML_ERROR_NOT_FOUND || (rc == NVML_SUCCESS && n == 0)) {
        g->present |= SCOPE_GPU_RUN; /* no process had work there: a measured 0 */
        return;
    }
    unsigned cap = room_for(rc, n);
    if (!cap)
        return;
    nvmlProcessUtilizationSample_t *s = calloc(cap, sizeof *s);
    if (!s)
        return;
    n = cap;
    rc = nvml.process_utilization(dev[d], s, &n, last_seen[d]);
    if (rc == NVML_ERROR_NOT_FOUND) {
        g->present |= SCOPE_GPU_RUN;
    } else if (rc == NVML_SUCCESS && n <= cap) {
        uint64_t sum = 0, mine = 0;
        for (unsigned i = 0; i < n; i++) {
            if (s[i].timeStamp > last_seen[d])
                last_seen[d] = s[i].timeStamp;
            if ((int64_t)s[i].pid == pid) {
                sum += s[i].smUtil < 100 ? s[i].smUtil : 100;
                mine++;
            }
        }
        g->present |= SCOPE_GPU_RUN | (mine ? SCOPE_GPU_RUN_SEEN : 0);
        g->run_permyriad = mine ? (uint32_t)(sum * 100 / mine) : 0;
    }
    free(s);
}

/* This pid's device memory: 0 when it has no context there. */
static void run_memory(unsigned d, int64_t pid, scope_gpu_figures *g) {
    unsigned int n = 0;
    nvmlReturn_t rc = nvml.processes(dev[d], &n, NULL);
    if (rc == NVML_SUCCESS) { /* none runs */
        g->present |= SCOPE_GPU_MEM_RUN;
        return;
    }
    unsigned cap = room_for(rc, n);
    if (!cap)
        return;
    nvmlProcessInfo_t *p = calloc(cap, sizeof *p);
    if (!p)
        return;
    n = cap;
    if (nvml.processes(dev[d], &n, p) == NVML_SUCCESS && n <= cap) {
        uint64_t bytes = 0;
        int known = 1;
        for (unsigned i = 0; i < n; i++) {
            if ((int64_t)p[i].pid != pid)
                continue;
            if (p[i].usedGpuMemory == NVML_VALUE_NOT_AVAILABLE)
                known = 0;
            else
                bytes += p[i].usedGpuMemory;
        }
        if (known) {
            g->present |= SCOPE_GPU_MEM_RUN;
            g->mem_run = bytes;
        }
    }
    free(p);
}

unsigned rec_gpu_sample(scope_gpu_figures *out, unsigned cap, int64_t pid) {
    unsigned n = 0;
    for (unsigned d = 0; d < ndev && n < cap; d++) {
        scope_gpu_figures *g = &out[n++];
        memset(g, 0, sizeof *g);
        g->index = dev_index[d];
        nvmlUtilization_t u;
        if (nvml.utilization(dev[d], &u) == NVML_SUCCESS) {
            g->present |= SCOPE_GPU_BUSY;
            g->busy_permyriad = (u.gpu < 100 ? u.gpu : 100) * 100u;
        }
        run_share(d, pid, g);
        nvmlMemory_t m;
        if (nvml.memory(dev[d], &m) == NVML_SUCCESS) {
            g->present |= SCOPE_GPU_MEM_USED | SCOPE_GPU_MEM_TOTAL;
            g->mem_used = m.used;
            g->mem_total = m.total;
        }
        run_memory(d, pid, g);
    }
    return n;
}
