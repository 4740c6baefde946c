/*
 * Data source: the PROCESS record, once per file and again when the role
 * changes: who the process is, its command line and the recorder's
 * settings.
 */
#include "source_process.h"

#include "clock.h"
#include "config.h"
#include "frame.h"
#include "identity.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The source's state: one place to read.  Written under the writer's lock:
 * by the writer thread, and by the lifecycle when the role changes. */
static struct source_process_state {
    int process_written; /* the file holds the current PROCESS record */
} state;

static size_t read_file(const char *path, char *buf, size_t cap) {
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

static void add_process(const rec_frame_ctx *f) {
    const rec_config *cfg = &rec_cfg;
    const rec_identity *id = &rec_id;
    static char cmdline[8192], exe[4096], cwd[4096];
    static scope_bytes argv[64];
    size_t n = read_file("/proc/self/cmdline", cmdline, sizeof cmdline);
    uint32_t argc = 0;
    for (size_t i = 0; i < n && argc < 64;) {
        size_t len = strnlen(cmdline + i, n - i);
        argv[argc++] = REC_BYTES(cmdline + i, len);
        i += len + 1;
    }
    ssize_t el = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[el > 0 ? el : 0] = '\0';
    if (!getcwd(cwd, sizeof cwd))
        cwd[0] = '\0';

    char interval[32], cpu_min[32], sample[32];
    if (cfg->frame_interval_ns)
        snprintf(interval, sizeof interval, "%.3f", (double)cfg->frame_interval_ns / 1e9);
    else
        snprintf(interval, sizeof interval, "auto");
    if (cfg->sample_interval_ns)
        snprintf(sample, sizeof sample, "%.3f", (double)cfg->sample_interval_ns / 1e9);
    else
        snprintf(sample, sizeof sample, "off");
    snprintf(cpu_min, sizeof cpu_min, "%.1f", (double)rec_hot.cpu_min_ns / 1e3);
    static const char *const cpu_names[] = {"off", "adaptive", "always"};
    scope_kv settings[] = {
        {REC_STR("frame_interval_s"), REC_STR(interval)},
        {REC_STR("cpu_time"), REC_STR(cpu_names[cfg->cpu_mode])},
        {REC_STR("cpu_min_us"), REC_STR(cpu_min)},
        {REC_STR("clock"), REC_STR(rec_clk.use_tsc ? "tsc" : "monotonic")},
        {REC_STR("sample_interval_s"), REC_STR(sample)},
    };
    scope_record r = {.type = SCOPE_REC_PROCESS};
    r.u.process = (scope_rec_process){
        .run_id = REC_STR(id->run_id),
        .uuid = REC_STR(id->uuid),
        .host = REC_STR(id->host),
        .role = REC_STR(cfg->role),
        .job_id = REC_STR(id->job_id),
        .step_id = REC_STR(id->step_id),
        .exe = REC_STR(exe),
        .cwd = REC_STR(cwd),
        .recorder_version = REC_STR(SCOPE_RECORDER_VERSION),
        .pid = id->pid,
        .ppid = id->ppid,
        .rank = id->rank,
        .local_rank = id->local_rank,
        .node_rank = id->node_rank,
        .world_size = id->world_size,
        .start_wall_ns = id->start_wall_ns,
        .start_mono_ns = id->start_mono_ns,
        .argc = argc,
        .argv = argv,
        .nsettings = sizeof settings / sizeof settings[0],
        .settings = settings,
        .launcher = REC_STR(id->launcher),
        .array_job_id = REC_STR(id->array_job_id),
        .array_task = id->array_task,
        .restarts = id->restarts,
    };
    rec_frame_add(f, &r);
}

static void encode(const rec_frame_ctx *f) {
    if (!state.process_written || f->snapshot) {
        add_process(f);
        state.process_written = 1;
    }
}

static void reset_sent(void) {
    state.process_written = 0;
}

void rec_source_process_changed(void) {
    state.process_written = 0;
}

const rec_source rec_source_process = {
    .name = "process",
    .reset_sent = reset_sent,
    .encode = encode,
};
