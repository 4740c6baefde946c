/*
 * Data source: line samples (source_lines.h).
 *
 * select drains the threads' rings and copies, under the sampler's lock,
 * what this frame will hold: how many modules and stacks are defined, and
 * the counts that changed since the log last got them.  It runs before the
 * phases source reads its node counts (select goes in reverse table order),
 * and a sample names only a node that was open, so published, when it was
 * taken: every node a copied count names is defined in this frame or an
 * earlier one.  encode writes the copy without the lock (definitions never
 * move), and frame_written marks it as in the log.
 */
#include "source_lines.h"

#include "frame.h"
#include "lines_store.h"
#include "sampler.h"

#include <scope/vec.h>
#include <stdlib.h>
#include <string.h>

/* Pairs in one STACK_SAMPLES record at most: the rest go in another
 * record of the same key (each pair is its own key). */
#define PAIRS_PER_RECORD 4096u

typedef struct snap_group {
    uint32_t group, thread, node, state;
    uint32_t first, n; /* its pairs in snap_pairs */
    uint64_t version;
} snap_group;

typedef struct snap_pair {
    uint32_t index; /* in the group */
    scope_stack_count c;
} snap_pair;

/* The source's state, all of it the writer thread's: one place to read,
 * and to reset in a forked child. */
static struct source_lines_state {
    struct {
        int on;
        uint32_t modules, stacks;
        snap_group *groups;
        uint32_t ngroups, groups_cap;
        snap_pair *pairs;
        uint32_t npairs, pairs_cap;
        rec_lines_totals totals;
        uint32_t flags, threads, threads_failed;
        char project[sizeof rec_lines_cfg.project]; /* a begin may change it meanwhile */
    } snap;
    /* One record's pairs, as the format wants them. */
    scope_stack_count record_pairs[PAIRS_PER_RECORD];
    /* Definitions the log holds (ids 1 .. these). */
    uint32_t w_modules, w_stacks;
} state;

/* A group's counts the log lacks; a snapshot's copy takes every count. */
static void copy_group(uint32_t gi, rec_lines_group *g, int all) {
    if (g->version == g->w_version && !all)
        return;
    if (SCOPE_VEC_RESERVE(state.snap.groups, state.snap.groups_cap,
                          (size_t)state.snap.ngroups + 1) < 0)
        return; /* no memory: the next frame tries again */
    snap_group *s = &state.snap.groups[state.snap.ngroups];
    *s = (snap_group){gi, g->thread, g->node, g->state, state.snap.npairs, 0, g->version};
    for (uint32_t i = 0; i < g->n; i++) {
        if (g->counts[i].count == g->written[i] && (!all || !g->counts[i].count))
            continue;
        if (SCOPE_VEC_RESERVE(state.snap.pairs, state.snap.pairs_cap,
                              (size_t)state.snap.npairs + 1) < 0)
            return;
        state.snap.pairs[state.snap.npairs++] = (snap_pair){i, g->counts[i]};
        s->n++;
    }
    state.snap.ngroups++;
}

static void select_frame(const rec_frame_ctx *f) {
    state.snap.on = atomic_load(&rec_lines_began);
    state.snap.ngroups = state.snap.npairs = 0;
    if (!state.snap.on)
        return;
    rec_lines_store_scan_modules(0);
    rec_sampler_lock();
    rec_lines_store_drain();
    state.snap.modules = rec_lines_store_nmodules();
    state.snap.stacks = rec_lines_store_nstacks();
    uint32_t ng = rec_lines_store_ngroups();
    for (uint32_t gi = 0; gi < ng; gi++)
        copy_group(gi, rec_lines_store_group(gi), f->snapshot);
    state.snap.totals = rec_lines_store_totals();
    state.snap.flags =
        atomic_load(&rec_lines_flags) | (atomic_load(&rec_lines_active) ? SCOPE_LINES_F_ACTIVE : 0);
    state.snap.threads = atomic_load(&rec_lines_threads);
    state.snap.threads_failed = atomic_load(&rec_lines_threads_failed);
    memcpy(state.snap.project, rec_lines_cfg.project, sizeof state.snap.project);
    rec_sampler_unlock();
}

static void add_samples(const rec_frame_ctx *f, const snap_group *g) {
    for (uint32_t done = 0; done < g->n;) {
        uint32_t n = g->n - done < PAIRS_PER_RECORD ? g->n - done : PAIRS_PER_RECORD;
        for (uint32_t i = 0; i < n; i++)
            state.record_pairs[i] = state.snap.pairs[g->first + done + i].c;
        /* Off-CPU counts go in a kind of their own (format 1.10), which
         * an older reader skips rather than adding to the on-CPU ones. */
        scope_record r = {.type = g->state == SCOPE_CPU_ON ? SCOPE_REC_STACK_SAMPLES
                                                           : SCOPE_REC_OFFCPU_SAMPLES};
        r.u.stack_samples = (scope_rec_stack_samples){.thread = g->thread,
                                                      .node = g->node,
                                                      .period_ns = rec_lines_cfg.period_ns,
                                                      .n = n,
                                                      .counts = state.record_pairs,
                                                      .state = g->state};
        rec_frame_add(f, &r);
        done += n;
    }
}

static void encode(const rec_frame_ctx *f) {
    if (!state.snap.on)
        return;
    scope_record r;
    /* A snapshot restates every definition. */
    for (uint32_t id = f->snapshot ? 1 : state.w_modules + 1; id <= state.snap.modules; id++) {
        r = (scope_record){.type = SCOPE_REC_MODULE};
        r.u.module = *rec_lines_store_module(id);
        rec_frame_add(f, &r);
    }
    for (uint32_t id = f->snapshot ? 1 : state.w_stacks + 1; id <= state.snap.stacks; id++) {
        r = (scope_record){.type = SCOPE_REC_STACK};
        r.u.stack = *rec_lines_store_stack(id);
        rec_frame_add(f, &r);
    }
    for (uint32_t i = 0; i < state.snap.ngroups; i++)
        add_samples(f, &state.snap.groups[i]);
    r = (scope_record){.type = SCOPE_REC_LINES};
    r.u.lines = (scope_rec_lines){
        .project = REC_STR(state.snap.project),
        .hz = rec_lines_cfg.hz,
        .clock = rec_lines_cfg.clock,
        .period_ns = rec_lines_cfg.period_ns,
        .samples = state.snap.totals.samples,
        .dropped = state.snap.totals.dropped,
        .truncated = state.snap.totals.truncated,
        .threads = state.snap.threads,
        .threads_failed = state.snap.threads_failed,
        .flags = state.snap.flags,
        .signals = state.snap.totals.signals,
    };
    rec_frame_add(f, &r);
}

static void frame_written(const rec_frame_ctx *f) {
    (void)f;
    if (!state.snap.on)
        return;
    state.w_modules = state.snap.modules;
    state.w_stacks = state.snap.stacks;
    rec_sampler_lock();
    for (uint32_t i = 0; i < state.snap.ngroups; i++) {
        const snap_group *s = &state.snap.groups[i];
        rec_lines_group *g = rec_lines_store_group(s->group);
        if (!g)
            continue; /* cleared by a fork since: nothing to mark */
        for (uint32_t k = 0; k < s->n; k++) {
            const snap_pair *p = &state.snap.pairs[s->first + k];
            if (p->index < g->n)
                g->written[p->index] = p->c.count;
        }
        /* Counts that changed after the copy keep the group pending. */
        if (g->version == s->version)
            g->w_version = s->version;
    }
    rec_sampler_unlock();
}

static void reset_sent(void) {
    state.w_modules = state.w_stacks = 0;
    rec_sampler_lock();
    uint32_t ng = rec_lines_store_ngroups();
    for (uint32_t gi = 0; gi < ng; gi++) {
        rec_lines_group *g = rec_lines_store_group(gi);
        if (g->n)
            memset(g->written, 0, g->n * sizeof *g->written);
        g->w_version = g->version - 1;
    }
    rec_sampler_unlock();
}

const rec_source rec_source_lines = {
    .name = "lines",
    .reset_sent = reset_sent,
    .select = select_frame,
    .encode = encode,
    .frame_written = frame_written,
};
