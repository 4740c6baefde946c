/* A test double of NVML (libnvidia-ml.so.1), which cannot run here: no GPU,
 * no driver.  Built as libnvidia-ml.so.1 and named by SCOPE_NVML_LIBRARY in
 * the tests that want it (the recorder then loads it and nothing else), it
 * answers the calls libscope makes with figures the test scripts through
 * the environment:
 *
 *   FAKE_NVML_INIT=fail      nvmlInit_v2 fails (NVML_ERROR_DRIVER_NOT_LOADED)
 *   FAKE_NVML_DEVICES=D;D;…  one device each, D = busy,run,used,total,run_mem:
 *     busy     percent, or x: the call fails
 *     run      percent: a sample of the calling process with that SM share
 *              (and one of pid 1 at 99%); -: no sample at all
 *              (NVML_ERROR_NOT_FOUND); o: a sample of pid 1 only; x: fails
 *     used, total   device memory in bytes, or x: nvmlDeviceGetMemoryInfo fails
 *     run_mem  bytes of the calling process (pid 1 also listed); -: only
 *              pid 1 has a context; x: the call fails
 *   FAKE_NVML_ROWS=overlong|huge   the two calls that fill a caller's buffer
 *     of rows (process samples, running processes) misbehave as a broken
 *     driver might, writing only the rows that fit but claiming more:
 *     overlong  a success whose count is 2^24 rows more than the buffer held;
 *     huge      a first answer of UINT_MAX - 3 rows (which a caller adding
 *               room for a few more wraps round to a small buffer), then a
 *               success claiming as many
 *
 * Types and signatures follow NVML's documented API (nvml.h), as the
 * recorder declares them itself. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

typedef int nvmlReturn_t;
#define NVML_SUCCESS                 0
#define NVML_ERROR_INVALID_ARGUMENT  2
#define NVML_ERROR_NOT_FOUND         6
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_DRIVER_NOT_LOADED 9
#define NVML_ERROR_UNKNOWN           999

typedef struct {
    unsigned int gpu, memory;
} nvmlUtilization_t;
typedef struct {
    unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct {
    unsigned int pid;
    unsigned long long timeStamp;
    unsigned int smUtil, memUtil, encUtil, decUtil;
} nvmlProcessUtilizationSample_t;
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;

#define MAX_DEV 8
#define FAIL    (-1ll) /* x */
#define NONE    (-2ll) /* - */
#define OTHER   (-3ll) /* o */

typedef struct device {
    long long busy, run, used, total, run_mem;
} device;

typedef device *nvmlDevice_t;

static device devs[MAX_DEV];
static unsigned ndevs;

enum rows_mode { ROWS_TRUE, ROWS_OVERLONG, ROWS_HUGE };
static enum rows_mode rows_mode;

/* The count to answer for n rows, the caller's buffer holding given rows
 * (0: none): n, unless FAKE_NVML_ROWS says to misbehave.  *fits: whether
 * the rows are written (they always fit in what is written). */
static unsigned rows_claimed(unsigned n, unsigned given, int *fits) {
    *fits = given >= n;
    if (rows_mode == ROWS_HUGE)
        return UINT_MAX - 3;
    if (rows_mode == ROWS_OVERLONG && *fits)
        return given + (1u << 24);
    return n;
}

static long long field(const char *s) {
    if (*s == 'x')
        return FAIL;
    if (*s == '-')
        return NONE;
    if (*s == 'o')
        return OTHER;
    return atoll(s);
}

static void parse(void) {
    const char *spec = getenv("FAKE_NVML_DEVICES");
    ndevs = 0;
    for (const char *p = spec; p && *p && ndevs < MAX_DEV;) {
        long long v[5];
        for (int i = 0; i < 5; i++) {
            v[i] = field(p);
            p += strcspn(p, ",;");
            if (*p == ',')
                p++;
        }
        devs[ndevs++] = (device){v[0], v[1], v[2], v[3], v[4]};
        p += strcspn(p, ";");
        if (*p == ';')
            p++;
    }
}

static unsigned long long now_us(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (unsigned long long)tv.tv_sec * 1000000ull + (unsigned long long)tv.tv_usec;
}

nvmlReturn_t nvmlInit_v2(void) {
    const char *init = getenv("FAKE_NVML_INIT");
    if (init && !strcmp(init, "fail"))
        return NVML_ERROR_DRIVER_NOT_LOADED;
    parse();
    const char *rows = getenv("FAKE_NVML_ROWS");
    rows_mode = !rows                       ? ROWS_TRUE
                : !strcmp(rows, "overlong") ? ROWS_OVERLONG
                : !strcmp(rows, "huge")     ? ROWS_HUGE
                                            : ROWS_TRUE;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void) {
    return NVML_SUCCESS;
}

const char *nvmlErrorString(nvmlReturn_t r) {
    return r == NVML_SUCCESS ? "Success" : "Fake NVML error";
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
    *count = ndevs;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *dev) {
    if (index >= ndevs)
        return NVML_ERROR_INVALID_ARGUMENT;
    *dev = &devs[index];
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t dev, char *name, unsigned int len) {
    snprintf(name, len, "Fake GPU %d", (int)(dev - devs));
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t dev, char *uuid, unsigned int len) {
    snprintf(uuid, len, "GPU-fake-%d", (int)(dev - devs));
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t dev, nvmlUtilization_t *u) {
    if (dev->busy == FAIL)
        return NVML_ERROR_UNKNOWN;
    u->gpu = (unsigned)dev->busy;
    u->memory = 0;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t dev,
                                             nvmlProcessUtilizationSample_t *samples,
                                             unsigned int *count, unsigned long long last_seen) {
    if (dev->run == FAIL)
        return NVML_ERROR_UNKNOWN;
    if (dev->run == NONE)
        return NVML_ERROR_NOT_FOUND;
    unsigned n = dev->run == OTHER ? 1 : 2;
    int fits;
    unsigned claimed = rows_claimed(n, samples ? *count : 0, &fits);
    if (!fits) {
        *count = claimed;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    unsigned long long ts = now_us();
    if (ts <= last_seen)
        ts = last_seen + 1;
    samples[0] = (nvmlProcessUtilizationSample_t){1, ts, 99, 0, 0, 0};
    if (n == 2)
        samples[1] =
            (nvmlProcessUtilizationSample_t){(unsigned)getpid(), ts, (unsigned)dev->run, 0, 0, 0};
    *count = claimed;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t dev, nvmlMemory_t *m) {
    if (dev->used == FAIL || dev->total == FAIL)
        return NVML_ERROR_UNKNOWN;
    m->used = (unsigned long long)dev->used;
    m->total = (unsigned long long)dev->total;
    m->free = m->total - m->used;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t dev, unsigned int *count,
                                                     nvmlProcessInfo_t *infos) {
    if (dev->run_mem == FAIL)
        return NVML_ERROR_UNKNOWN;
    unsigned n = dev->run_mem == NONE ? 1 : 2;
    int fits;
    unsigned claimed = rows_claimed(n, infos ? *count : 0, &fits);
    if (!fits) {
        *count = claimed;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    infos[0] = (nvmlProcessInfo_t){1, 12345, 0, 0};
    if (n == 2)
        infos[1] = (nvmlProcessInfo_t){(unsigned)getpid(), (unsigned long long)dev->run_mem, 0, 0};
    *count = claimed;
    return NVML_SUCCESS;
}
