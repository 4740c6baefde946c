/*
 * The model's owner: a model is built here (run_builder.h) from processes a
 * loader filled, and freed here with everything it holds.  The processes'
 * tables are kept after building, so that one process can be merged alone
 * later (run_worker_role).
 */
#include "run_builder.h"

#include "arena.h"
#include "read_caps.h"
#include "run_caveats.h"
#include "run_live.h"
#include "run_merge.h"
#include "run_resources.h"
#include "text_escape.h"
#include "worker_log.h"

#include <assert.h>
#include <scope/vec.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One process alone, as a role of one (run_worker_role). */
typedef struct worker_role {
    run_role role;
    size_t worker; /* role.workers points here */
} worker_role;

/* The model with what it owns behind it; renderers see only `pub`.  Until
 * it is finished it is the builder. */
struct run_model_builder {
    run_model pub;
    arena mem;
    worker_log *logs; /* logs[i] is pub.workers[i] */
    size_t nlogs, cap_logs;
    int logs_borrowed;   /* logs belong to someone else (a follower, run_follow.h) */
    run_options opt;     /* as loaded; iteration_name lives in mem */
    read_caps *caps;     /* what its logs may hold together (read_caps.h); NULL until added */
    worker_role **alone; /* run_worker_role's, per worker (nlogs); NULL until asked */
    run_model **owned;   /* run_builder_own_parts': partial models freed with this one */
    size_t nowned, cap_owned;
    void *ext; /* run_model_set_extension's */
    void (*ext_free)(void *);
};

static run_model_builder *builder_of(run_model *m) {
    return (run_model_builder *)((char *)m - offsetof(run_model_builder, pub));
}

static const run_model_builder *const_builder_of(const run_model *m) {
    return (const run_model_builder *)((const char *)m - offsetof(run_model_builder, pub));
}

worker_log *run_model_logs(run_model *m) {
    return builder_of(m)->logs;
}

int run_model_has_logs(const run_model *m) {
    const run_model_builder *b = const_builder_of(m);
    return b->logs && b->nlogs == m->nworkers;
}

int run_model_needs_logs(const run_model *m, const char *what, char *msg, size_t msglen) {
    if (run_model_has_logs(m))
        return 0;
    char shown[512];
    scope_escape((const uint8_t *)m->dir, strlen(m->dir), shown, sizeof shown, 0);
    run_load_fail(msg, msglen, RUN_ERR_NOT_RUN,
                  "%s is a summary (scope-tui reduce, docs/reduce.md): it keeps the model, not "
                  "each process's log, and %s are read from the logs: the run directory it was "
                  "reduced from has them",
                  shown, what);
    return -1;
}

arena *run_model_arena(run_model *m) {
    return &builder_of(m)->mem;
}

void *run_model_extension(const run_model *m) {
    return const_builder_of(m)->ext;
}

void run_model_set_extension(run_model *m, void *ext, void (*free_fn)(void *)) {
    run_model_builder *b = builder_of(m);
    b->ext = ext;
    b->ext_free = free_fn;
}

size_t run_model_alone_worker(const run_model *m, const run_phase *root) {
    const run_model_builder *b = const_builder_of(m);
    for (size_t i = 0; b->alone && i < b->nlogs; i++)
        if (b->alone[i] && b->alone[i]->role.root == root)
            return i;
    return SIZE_MAX;
}

enum run_load_error run_load_fail(char *msg, size_t len, enum run_load_error e, const char *fmt,
                                  ...) {
    if (msg && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, len, fmt, ap);
        va_end(ap);
    }
    return e;
}

run_model_builder *run_builder_new(const char *source, const run_options *opt) {
    run_model_builder *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    if (opt)
        b->opt = *opt;
    b->pub.dir = arena_dup(&b->mem, source, strlen(source));
    if (!b->pub.dir) {
        free(b);
        return NULL;
    }
    return b;
}

worker_log *run_builder_add_workers(run_model_builder *b, size_t n) {
    assert(!b->pub.workers); /* not once the model is finished */
    if (!b->caps && !(b->caps = read_caps_new()))
        return NULL;
    if (n > SIZE_MAX - b->nlogs || SCOPE_VEC_RESERVE(b->logs, b->cap_logs, b->nlogs + n) < 0)
        return NULL;
    worker_log *added = &b->logs[b->nlogs];
    memset(added, 0, n * sizeof *added);
    for (size_t i = 0; i < n; i++) {
        worker_log_init(&added[i]);
        worker_log_share_caps(&added[i], b->caps);
    }
    b->nlogs += n;
    return added;
}

void run_builder_borrow_logs(run_model_builder *b, worker_log *logs, size_t n) {
    assert(!b->nlogs && !b->logs);
    b->logs = logs;
    b->nlogs = b->cap_logs = n;
    b->logs_borrowed = 1;
}

worker_log *run_model_release_logs(run_model *m, size_t *n) {
    run_model_builder *b = builder_of(m);
    b->logs_borrowed = 1;
    *n = b->nlogs;
    return b->logs;
}

void run_builder_set_source(run_model_builder *b, const char *text) {
    char *s = arena_dup(&b->mem, text, strlen(text));
    b->pub.source = (run_str){s ? s : "", s ? strlen(text) : 0};
}

int run_builder_own_parts(run_model_builder *b, run_model *const *parts, size_t n) {
    if (n > SIZE_MAX - b->nowned || SCOPE_VEC_RESERVE(b->owned, b->cap_owned, b->nowned + n) < 0)
        return -1;
    memcpy(&b->owned[b->nowned], parts, n * sizeof *parts);
    b->nowned += n;
    return 0;
}

run_model *run_builder_model(run_model_builder *b) {
    return &b->pub;
}

void run_builder_abandon(run_model_builder *b) {
    run_free(&b->pub);
}

enum run_load_error run_builder_finish(run_model_builder *b, run_model **out, char *msg,
                                       size_t msglen) {
    if (b->nowned && !b->nlogs) /* a file holding a partial model (run_h5_summary.h) */
        return run_builder_finish_parts(b, (const run_model *const *)b->owned, b->nowned, out, msg,
                                        msglen);
    run_model *m = &b->pub;
    char shown[512];
    scope_escape((const uint8_t *)m->dir, strlen(m->dir), shown, sizeof shown, 0);
    *out = NULL;
    int nomem = 0;
    size_t readable = 0;
    m->workers = arena_alloc(&b->mem, (b->nlogs + 1) * sizeof *m->workers);
    nomem |= !m->workers;
    for (size_t i = 0; i < b->nlogs && !nomem; i++) {
        nomem |= b->logs[i].nomem;
        readable += (size_t)b->logs[i].w.readable;
        m->workers[i] = b->logs[i].w;
    }
    m->nworkers = b->nlogs;
    if (!nomem && readable == 0) {
        char first[300];
        size_t nlogs = b->nlogs;
        snprintf(first, sizeof first, "%s", nlogs ? b->logs[0].open_msg : "");
        run_free(m); /* b with it */
        return run_load_fail(msg, msglen, RUN_ERR_NO_READABLE,
                             "%s: none of its %zu log(s) could be read (first: %s)", shown, nlogs,
                             first);
    }
    int merged = nomem ? -1 : run_merge(m, &b->mem, b->logs, &b->opt);
    if (merged == -2) {
        size_t n = m->nattempts, want = b->opt.attempt;
        run_free(m); /* b with it */
        return run_load_fail(msg, msglen, RUN_ERR_NO_ATTEMPT,
                             "%s: no attempt %zu: the run holds %zu (1 the oldest, %zu the newest)",
                             shown, want, n, n);
    }
    if (merged == 0)
        run_judge_live(m, b->logs);
    else
        nomem = 1;
    if (nomem || run_add_caveats(m, &b->mem, b->logs) < 0) {
        run_free(m);
        return run_load_fail(msg, msglen, RUN_ERR_NOMEM, "%s: out of memory while loading", shown);
    }
    m->no_samples = b->opt.no_samples;
    *out = m;
    return RUN_OK;
}

/* The parts' caveats: each run-level one once (the first part's wording),
 * then each process's, its worker numbered in the model. */
static int copy_part_caveats(run_model *m, const run_model *const *parts, const size_t *first,
                             size_t nparts) {
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < nparts; i++)
            for (size_t k = 0; k < parts[i]->ncaveats; k++) {
                const run_caveat *cv = &parts[i]->caveats[k];
                int run_level = cv->worker == SIZE_MAX;
                if (run_level != !pass)
                    continue;
                int seen = 0;
                for (size_t j = 0; run_level && j < m->ncaveats && !seen; j++)
                    seen = m->caveats[j].kind == cv->kind && !strcmp(m->caveats[j].text, cv->text);
                if (seen)
                    continue;
                if (SCOPE_VEC_RESERVE(m->caveats, m->cap_caveats, m->ncaveats + 1) < 0)
                    return -1;
                m->caveats[m->ncaveats++] =
                    (run_caveat){cv->kind, run_level ? SIZE_MAX : first[i] + cv->worker, cv->text};
            }
    return 0;
}

enum run_load_error run_builder_finish_parts(run_model_builder *b, const run_model *const *parts,
                                             size_t nparts, run_model **out, char *msg,
                                             size_t msglen) {
    run_model *m = &b->pub;
    char shown[512];
    scope_escape((const uint8_t *)m->dir, strlen(m->dir), shown, sizeof shown, 0);
    *out = NULL;
    size_t n = 0;
    for (size_t i = 0; i < nparts; i++)
        n += parts[i]->nworkers;
    size_t *first = malloc((nparts + 1) * sizeof *first);
    m->workers = arena_alloc(&b->mem, (n + 1) * sizeof *m->workers);
    int rc = first && m->workers ? 0 : -1;
    for (size_t i = 0; i < nparts && rc == 0; i++) {
        first[i] = m->nworkers;
        memcpy(&m->workers[m->nworkers], parts[i]->workers,
               parts[i]->nworkers * sizeof *m->workers);
        m->nworkers += parts[i]->nworkers;
    }
    if (rc == 0)
        /* Parts the builder owns (read from a file) give up what they can. */
        rc = run_merge_parts(m, &b->mem, (run_model *const *)parts, first, nparts,
                             parts == (const run_model *const *)b->owned, &b->opt);
    if (rc == 0)
        rc = copy_part_caveats(m, parts, first, nparts);
    free(first);
    if (rc == -2 || rc == -3) {
        run_free(m); /* b with it */
        return run_load_fail(
            msg, msglen, RUN_ERR_NO_ATTEMPT,
            rc == -2 ? "%s: no such attempt" : "%s: its parts show different attempts", shown);
    }
    if (rc < 0) {
        run_free(m);
        return run_load_fail(msg, msglen, RUN_ERR_NOMEM, "%s: out of memory while loading", shown);
    }
    for (size_t i = 0; i < m->nworkers; i++)
        m->nrunning +=
            m->workers[i].attempt == m->shown_attempt && m->workers[i].end == RUN_END_RUNNING;
    m->no_samples = b->opt.no_samples;
    for (size_t i = 0; i < nparts; i++) /* resources unread in any part are unknown */
        m->no_samples |= parts[i]->no_samples;
    *out = m;
    return RUN_OK;
}

/* ---- one process alone --------------------------------------------------- */

const run_role *run_worker_role(run_model *m, size_t worker) {
    run_model_builder *b = builder_of(m);
    if (worker >= m->nworkers || worker >= b->nlogs || m->workers[worker].role_index == SIZE_MAX)
        return NULL;
    if (!b->alone && !(b->alone = calloc(b->nlogs, sizeof *b->alone)))
        return NULL;
    if (b->alone[worker])
        return &b->alone[worker]->role;
    worker_role *wr = calloc(1, sizeof *wr);
    if (!wr)
        return NULL;
    wr->worker = worker;
    wr->role = (run_role){.name = m->workers[worker].role, .nprocs = 1, .workers = &wr->worker};
    run_options opt = {.iteration_name = m->iteration_name, .ndominant = b->opt.ndominant};
    if (run_merge_alone(m, &b->mem, b->logs, &wr->role, &opt) < 0) {
        run_role_free(&wr->role);
        free(wr);
        return NULL;
    }
    b->alone[worker] = wr;
    return &wr->role;
}

void run_free(run_model *m) {
    if (!m)
        return;
    run_model_builder *b = builder_of(m);
    if (b->ext_free)
        b->ext_free(b->ext);
    if (b->alone) {
        for (size_t i = 0; i < b->nlogs; i++) {
            if (b->alone[i])
                run_role_free(&b->alone[i]->role);
            free(b->alone[i]);
        }
        free(b->alone);
    }
    run_res_free(m->all_res);
    if (m->proc_res)
        for (size_t i = 0; i < m->nworkers; i++)
            run_res_free(m->proc_res[i]);
    free(m->proc_res);
    if (!b->logs_borrowed) {
        for (size_t i = 0; i < b->nlogs; i++)
            worker_log_release(&b->logs[i]);
        free(b->logs);
    }
    run_merge_free(m);
    run_caveats_free(m);
    read_caps_drop(b->caps);
    arena_free(&b->mem);
    /* After this model: its names and resources point into them. */
    for (size_t i = 0; i < b->nowned; i++)
        run_free(b->owned[i]);
    free(b->owned);
    free(b);
}
