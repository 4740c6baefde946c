/* A run still being recorded; see run_live.h. */
#define _GNU_SOURCE
#include "run_live.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define STALE_INTERVALS 3
#define STALE_MIN_NS    (30ull * 1000000000ull)
#define MIN_INTERVAL_NS (5ull * 1000000000ull)

uint64_t run_stale_limit_ns(uint64_t max_gap_ns) {
    uint64_t interval = max_gap_ns > MIN_INTERVAL_NS ? max_gap_ns : MIN_INTERVAL_NS;
    /* Capped so that an absurd gap in a damaged log cannot wrap. */
    uint64_t limit =
        interval < UINT64_MAX / STALE_INTERVALS ? STALE_INTERVALS * interval : UINT64_MAX;
    return limit < STALE_MIN_NS ? STALE_MIN_NS : limit;
}

/* The writer's automatic schedule (docs/recorder.md, SCOPE_FRAME_INTERVAL):
 * a frame every 5 s in a process's first 5 minutes, then every 30 s. */
#define AUTO_EARLY_NS  (5ull * 1000000000ull)
#define AUTO_LATE_NS   (30ull * 1000000000ull)
#define AUTO_SWITCH_NS (300ull * 1000000000ull)

uint64_t run_frame_gap_ns(const worker_log *log) {
    uint64_t stated = log->stated_interval_ns;
    if (log->interval_auto) {
        /* As of its newest frame: the interval it was writing at then. */
        uint64_t age =
            log->last_mono_ns > log->w.start_mono_ns ? log->last_mono_ns - log->w.start_mono_ns : 0;
        stated = age < AUTO_SWITCH_NS ? AUTO_EARLY_NS : AUTO_LATE_NS;
    }
    return stated > log->max_gap_ns ? stated : log->max_gap_ns;
}

static uint64_t clock_ns(clockid_t id) {
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Slack for the process's start on the wall clock: the boot's wall-clock
 * time is worked out now, and NTP may have slewed the clock by a little
 * since the process started (a step forwards larger than this makes
 * a running process read as ended). */
#define WALL_SLACK_NS (5ull * 1000000000ull)

/* Whether pid runs on this host and is the process whose recorder started
 * at start_mono_ns (CLOCK_MONOTONIC) and start_wall_ns (CLOCK_REALTIME): it
 * must have started no later than that.  /proc/PID/stat gives the start in
 * clock ticks of the boot clock, which runs ahead of the monotonic one by
 * the time the machine was suspended: that difference, now, and two ticks
 * of rounding are allowed.  The monotonic clocks of two boots cannot be
 * compared, so after a reboot a new process given the same pid could pass
 * that test: its start on the wall clock (the boot's wall-clock time,
 * CLOCK_REALTIME - CLOCK_BOOTTIME, plus its start since boot) comes after
 * the recorder's, which ran on the boot before.  Only "no later" is asked,
 * never "about the same time": a program may start its recorder long after
 * it started, and a pid is held by one process at a time, so a process
 * with it that started before the recorder did is that process.  A zombie
 * has ended. */
static int pid_runs(int64_t pid, uint64_t start_mono_ns, uint64_t start_wall_ns) {
    if (pid <= 0 || pid > INT32_MAX)
        return 0;
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%" PRId64 "/stat", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* The name in parentheses may hold anything: the fields follow its
     * last ')'.  Then state (field 3) ... starttime (field 22). */
    char *p = strrchr(buf, ')');
    char state;
    unsigned long long start_ticks;
    if (!p || sscanf(p + 1,
                     " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d "
                     "%llu",
                     &state, &start_ticks) != 2)
        return 0;
    if (state == 'Z' || state == 'X')
        return 0;
    long hz = sysconf(_SC_CLK_TCK);
    if (hz <= 0)
        return 0;
    uint64_t tick = 1000000000ull / (uint64_t)hz;
    uint64_t boot = clock_ns(CLOCK_BOOTTIME);
    uint64_t boot_ahead = boot - clock_ns(CLOCK_MONOTONIC);
    uint64_t booted_wall = clock_ns(CLOCK_REALTIME) - boot;
    uint64_t started = (uint64_t)start_ticks * tick;
    return started <= start_mono_ns + boot_ahead + 2 * tick &&
           booted_wall + started <= start_wall_ns + WALL_SLACK_NS + 2 * tick;
}

void run_judge_live(run_model *m, const worker_log *logs) {
    struct utsname u;
    const char *here = uname(&u) == 0 ? u.nodename : "";
    uint64_t now_wall = clock_ns(CLOCK_REALTIME);
    size_t newest = m->nattempts ? m->shown_attempt : SIZE_MAX;
    m->nrunning = 0;
    for (size_t i = 0; i < m->nworkers; i++) {
        run_worker *w = &m->workers[i];
        if (w->attempt != newest || w->end != RUN_END_KILLED || logs[i].vanished)
            continue;
        int running;
        if (w->host.len == strlen(here) && !memcmp(w->host.s, here, w->host.len))
            running = pid_runs(w->pid, w->start_mono_ns, w->start_wall_ns);
        else
            running = now_wall >= w->last_wall_ns &&
                      now_wall - w->last_wall_ns <= run_stale_limit_ns(run_frame_gap_ns(&logs[i]));
        if (running) {
            w->end = RUN_END_RUNNING;
            m->nrunning++;
        }
    }
}
