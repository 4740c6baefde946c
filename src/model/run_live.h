/*
 * A run still being recorded: which of the newest attempt's processes that
 * never shut down are running still, and so whether the run is in
 * progress.  Judged once, when the run is loaded.
 */
#ifndef SCOPE_RUN_LIVE_H
#define SCOPE_RUN_LIVE_H

#include "run_model.h"
#include "worker_log.h"

/* Marks RUN_END_RUNNING each worker of the newest attempt (logs[i] is
 * m->workers[i]) whose log has no ending and is still in the run directory
 * (not vanished) and whose process still runs: on this host, its pid is
 * alive and started no later than its recorder did, by the monotonic clock
 * and by the wall clock (so a pid reused, after a reboot too, is not taken
 * for it); on another host, where no pid can
 * be asked, its newest frame is recent by this host's clock (within the
 * limit that makes a worker stale, run_caveats.c).  Sets m->nrunning. */
void run_judge_live(run_model *m, const worker_log *logs);

/* How long without a frame makes a worker that never shut down stale: three
 * of its longest intervals between frames (at least 5 s each), and at
 * least 30 s. */
uint64_t run_stale_limit_ns(uint64_t max_gap_ns);

/* A worker's longest interval between frames, for run_stale_limit_ns: the
 * longest gap between the frames read, or the interval its process states
 * (PROCESS frame_interval_s) when that is longer.  A log read from a
 * snapshot near its end, or with one frame so far, shows few gaps or
 * none; the stated interval does not depend on how much was read. */
uint64_t run_frame_gap_ns(const worker_log *log);

#endif
