/*
 * GPU figures from NVML, loaded at run time with dlopen (gpu_nvml.c says
 * from where: SCOPE_NVML_LIBRARY, else the driver's usual paths, else the
 * search path), so nothing NVIDIA is needed to build libscope.  No library,
 * no driver, no device or an init failure: no devices, nothing printed.
 */
#ifndef SCOPE_REC_GPU_NVML_H
#define SCOPE_REC_GPU_NVML_H

#include <scope/log_format.h>

#include <stdint.h>

#define REC_MAX_GPUS 64u

/* Loads NVML and finds the devices, once per process; returns how many
 * (0: no GPU figures). */
unsigned rec_gpu_start(void);

/* One entry per device for the interval since the previous call (or since
 * rec_gpu_start): busy, this process's share and memory, the device's
 * memory.  Returns the number of entries, at most cap. */
unsigned rec_gpu_sample(scope_gpu_figures *out, unsigned cap, int64_t pid);

/* In a forked child: the interval starts again for the child's own pid. */
void rec_gpu_fork_child(void);

#endif
