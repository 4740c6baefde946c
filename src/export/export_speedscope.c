/*
 * export --format speedscope: the sampled call paths in speedscope's file
 * format (https://www.speedscope.app/file-format-schema.json, from
 * speedscope's src/lib/file-format-spec.ts): the frames shared by every
 * profile, then one "sampled" profile per role whose samples are the flame
 * tree's paths (run_stacks.h) from the outermost frame in, each weighed by
 * its estimated time in nanoseconds (samples x the sampling period, as
 * `lines` shows time).  A wall-clock run's samples also make one profile
 * per role of those taken on a CPU and one of those taken off it.  Frames are functions, named as
 * `lines --folded` names them, with their source file when the debug info gives one.
 */
#include "export_formats.h"
#include "json_out.h"
#include "run_stacks.h"
#include "text_escape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"

/* A shared frame: names are interned by the model, so their pointers say
 * which function it is across flames of one run. */
typedef struct frame_key {
    const char *function, *file, *module;
} frame_key;

typedef struct frame_table {
    size_t *of;     /* per frame of the flame last shared: its index in the shared frames */
    size_t *slots;  /* open addressing: shared frame index + 1 */
    frame_key *key; /* per shared frame */
    size_t cap, n;  /* cap: slots, and keys at most cap / 2 */
} frame_table;

static void frame_table_free(frame_table *t) {
    free(t->of);
    free(t->slots);
    free(t->key);
}

static uint64_t name_hash(const run_flame_frame *f) {
    uint64_t h = (uint64_t)(uintptr_t)f->function.s * 0x9e3779b97f4a7c15ull;
    h ^= (uint64_t)(uintptr_t)f->file.s * 0xc2b2ae3d27d4eb4full;
    h ^= (uint64_t)(uintptr_t)f->module.s * 0x165667b19e3779f9ull;
    return h ^ (h >> 31);
}

/* Gives each code frame of fl its shared frame (one per function, file
 * and module: the same function under two callers, or in two flames of the
 * run, is one frame), adding the new ones to frames.  The first flame
 * shared is the one of every sample: the others' frames are among its. */
static int share_frames(json_out *j, const run_flame *fl, frame_table *t, cJSON *frames) {
    if (!t->slots) {
        t->cap = 16;
        while (t->cap < 2 * fl->nframes)
            t->cap *= 2;
        t->slots = calloc(t->cap, sizeof *t->slots);
        t->key = malloc(t->cap / 2 * sizeof *t->key);
    }
    free(t->of);
    t->of = malloc((fl->nframes ? fl->nframes : 1) * sizeof *t->of);
    if (!t->of || !t->slots || !t->key)
        return -1;
    for (size_t k = 0; k < fl->nframes; k++) {
        const run_flame_frame *f = &fl->frames[k];
        t->of[k] = SIZE_MAX;
        if (f->kind != RUN_FRAME_CODE)
            continue;
        size_t i = (size_t)name_hash(f) & (t->cap - 1);
        for (;; i = (i + 1) & (t->cap - 1)) {
            size_t v = t->slots[i];
            if (!v)
                break;
            const frame_key *g = &t->key[v - 1];
            if (g->function == f->function.s && g->file == f->file.s && g->module == f->module.s)
                break;
        }
        if (t->slots[i]) {
            t->of[k] = t->slots[i] - 1;
            continue;
        }
        if (t->n >= t->cap / 2)
            return -1; /* not one of the first flame's frames */
        t->key[t->n] = (frame_key){f->function.s, f->file.s, f->module.s};
        t->slots[i] = t->n + 1;
        t->of[k] = t->n++;
        char name[1024];
        cJSON *o = jo_object(j, frames, NULL);
        jo_str(j, o, "name", run_flame_name(f, name, sizeof name));
        if (f->file.len)
            jo_name(j, o, "file", f->file);
    }
    return j->failed ? -1 : 0;
}

/* One sampled profile: the paths under frame `top` (the root, or a role). */
static void add_profile(json_out *j, cJSON *profiles, const run_flame *fl, const frame_table *t,
                        size_t top, const char *name) {
    cJSON *p = jo_object(j, profiles, NULL);
    jo_str(j, p, "type", "sampled");
    jo_str(j, p, "name", name);
    jo_str(j, p, "unit", "nanoseconds");
    jo_u64(j, p, "startValue", 0);
    cJSON *samples = jo_array(j, p, "samples");
    cJSON *weights = jo_array(j, p, "weights");
    double end = 0;
    size_t path[2048];
    /* Depth first: the frames under top follow it until the next frame no
     * deeper than it. */
    for (size_t k = top + 1; k < fl->nframes && fl->frames[k].depth > fl->frames[top].depth; k++) {
        const run_flame_frame *f = &fl->frames[k];
        if (!f->self || f->kind != RUN_FRAME_CODE)
            continue;
        size_t n = 0;
        for (size_t a = k; a != top && a != RUN_FLAME_NONE && n < sizeof path / sizeof *path;
             a = fl->frames[a].parent)
            path[n++] = a;
        cJSON *stack = jo_array(j, samples, NULL);
        while (n--)
            jo_u64(j, stack, NULL, t->of[path[n]]);
        /* The frame's own time: its share of the samples' time. */
        double ns = f->samples ? f->seconds * 1e9 * (double)f->self / (double)f->samples : 0;
        ns = floor(ns + 0.5);
        jo_num(j, weights, NULL, ns);
        end += ns;
    }
    jo_num(j, p, "endValue", end);
}

/* A wall-clock run's profiles of one set of samples, on- or off-CPU: each
 * role's, named "ROLE (off-CPU)".  A run that cannot tell them apart has
 * none. */
static void add_state_profiles(json_out *j, run_model *m, frame_table *t, cJSON *frames,
                               cJSON *profiles, enum run_lines_cpu cpu) {
    run_lines_query q = {.worker = SIZE_MAX, .cpu = cpu};
    run_flame fl;
    char msg[512];
    if (run_flame_build(m, &q, RUN_FLAME_FUNCTIONS, &fl, msg, sizeof msg) < 0)
        return;
    if (fl.samples && share_frames(j, &fl, t, frames) < 0)
        j->failed = 1;
    for (size_t k = fl.samples ? fl.frames[0].first_child : RUN_FLAME_NONE;
         !j->failed && k != RUN_FLAME_NONE; k = fl.frames[k].next_sibling) {
        char name[512], shown[600];
        snprintf(shown, sizeof shown, "%s (%s)", run_flame_name(&fl.frames[k], name, sizeof name),
                 run_lines_cpu_name(cpu));
        add_profile(j, profiles, &fl, t, k, shown);
    }
    run_flame_free(&fl);
}

static int write_speedscope(const run_model *cm, const char *run, int fd, char *msg,
                            size_t msglen) {
    run_model *m = (run_model *)cm; /* the line data is symbolized and kept with the model */
    run_lines_query q = {.worker = SIZE_MAX};
    run_flame fl;
    if (run_flame_build(m, &q, RUN_FLAME_FUNCTIONS, &fl, msg, msglen) < 0)
        return -1;
    if (!fl.samples) {
        snprintf(msg, msglen, "the run has no sampled stacks to export");
        run_flame_free(&fl);
        return -1;
    }
    json_out j = {0};
    frame_table t = {0};
    cJSON *root = cJSON_CreateObject();
    if (!root)
        j.failed = 1;
    jo_str(&j, root, "$schema", SPEEDSCOPE_SCHEMA);
    cJSON *shared = jo_object(&j, root, "shared");
    cJSON *frames = jo_array(&j, shared, "frames");
    cJSON *profiles = jo_array(&j, root, "profiles");
    if (!j.failed && share_frames(&j, &fl, &t, frames) < 0)
        j.failed = 1;
    for (size_t k = fl.frames[0].first_child; !j.failed && k != RUN_FLAME_NONE;
         k = fl.frames[k].next_sibling) {
        char name[512];
        add_profile(&j, profiles, &fl, &t, k, run_flame_name(&fl.frames[k], name, sizeof name));
    }
    /* A wall-clock run's samples split too: where the threads ran, and
     * where they waited. */
    run_lines_info info;
    if (!j.failed && run_lines_load(m, NULL, &info, msg, msglen) == 0 && info.wall_workers &&
        !info.unsaid_samples) {
        add_state_profiles(&j, m, &t, frames, profiles, RUN_LINES_CPU_ON);
        add_state_profiles(&j, m, &t, frames, profiles, RUN_LINES_CPU_OFF);
    }
    /* The file's name: the run's folder name ("runs/r1/" gives "r1"). */
    size_t end = strlen(run);
    while (end > 1 && run[end - 1] == '/')
        end--;
    size_t start = end;
    while (start > 0 && run[start - 1] != '/')
        start--;
    char shown[512];
    scope_escape((const uint8_t *)run + start, end - start, shown, sizeof shown, 0);
    jo_str(&j, root, "name", shown);
    jo_u64(&j, root, "activeProfileIndex", 0);
    jo_str(&j, root, "exporter", "scope-tui");
    frame_table_free(&t);
    run_flame_free(&fl);
    FILE *f = export_stream(fd, msg, msglen);
    if (!f) {
        cJSON_Delete(root);
        return -1;
    }
    int rc = jo_finish(&j, root, f);
    return export_stream_close(f, rc, "the speedscope file", msg, msglen);
}

const export_format export_format_speedscope = {
    "speedscope",
    "the sampled call paths per role in speedscope's file format (www.speedscope.app)",
    write_speedscope};
