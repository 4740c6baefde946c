/*
 * Draining the GPU queue for SCOPE_PHASE_SYNC through the CUDA runtime or
 * driver the program has already loaded.  CUDA is looked up, never loaded:
 * a program without it gets no new library and no device context.
 */
#ifndef SCOPE_REC_CUDA_SYNC_H
#define SCOPE_REC_CUDA_SYNC_H

#include <stdint.h>

/* Waits for the work this process queued on its current device.  Returns 0,
 * or -1 when no CUDA runtime or driver is loaded (counted for the caveat). */
int rec_cuda_sync(void);

/* Syncs asked for while no CUDA was loaded, so far. */
uint64_t rec_cuda_sync_missed(void);

#endif
