/* Finding roles and phases in a loaded model; see run_model.h. */
#include "run_model.h"
#include "text_escape.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double run_queued_share(const run_model *m) {
    double delay = 0, wall = 0;
    for (size_t r = 0; r < m->nroles; r++) {
        const run_phase *root = m->roles[r].root;
        for (size_t i = 0; root && i < root->nchildren; i++) {
            delay += (double)root->children[i]->delay_ns;
            wall += (double)root->children[i]->delay_wall_ns;
        }
    }
    return wall > 0 ? delay / wall : NAN;
}

int run_str_eq(run_str a, run_str b) {
    return a.len == b.len && (a.len == 0 || !memcmp(a.s, b.s, a.len));
}

int run_str_cmp(run_str a, run_str b) {
    size_t n = a.len < b.len ? a.len : b.len;
    int c = n ? memcmp(a.s, b.s, n) : 0;
    return c ? c : (a.len > b.len) - (a.len < b.len);
}

const run_role *run_find_role(const run_model *m, const char *name) {
    run_str want = {name, strlen(name)};
    for (size_t r = 0; r < m->nroles; r++)
        if (run_str_eq(m->roles[r].name, want))
            return &m->roles[r];
    return NULL;
}

const run_phase *run_phase_child(const run_phase *parent, const char *name, size_t len) {
    for (size_t i = 0; i < parent->nchildren; i++) {
        const run_phase *k = parent->children[i];
        if (run_str_eq(k->name, (run_str){name, len}))
            return k;
    }
    return NULL;
}

const run_phase *run_find_phase(const run_role *role, const char *path) {
    const run_phase *p = role->root;
    while (p && *path) {
        const char *slash = strchr(path, '/');
        size_t len = slash ? (size_t)(slash - path) : strlen(path);
        p = run_phase_child(p, path, len);
        path += len + (slash ? 1 : 0);
    }
    return p == role->root ? NULL : p;
}

const char *run_phase_path(const run_phase *p, char *buf, size_t cap) {
    /* A phase is at most RUN_MAX_DEPTH deep (the merge places none deeper),
     * so its whole chain fits. */
    const run_phase *chain[RUN_MAX_DEPTH];
    size_t n = 0;
    assert(!p || p->depth <= RUN_MAX_DEPTH);
    for (; p && p->parent && n < RUN_MAX_DEPTH; p = p->parent)
        chain[n++] = p;
    size_t used = 0;
    if (cap)
        buf[0] = '\0';
    while (n-- > 0 && used + 1 < cap) {
        if (used)
            buf[used++] = '/';
        used += scope_escape((const uint8_t *)chain[n]->name.s, chain[n]->name.len, buf + used,
                             cap - used, 0);
        if (used >= cap)
            used = cap - 1;
        buf[used] = '\0';
    }
    return buf;
}

static int by_proc(const void *key, const void *entry) {
    size_t k = *(const size_t *)key, e = ((const run_proc_ns *)entry)->proc;
    return (k > e) - (k < e);
}

double run_phase_proc_ns(const run_phase *p, size_t k) {
    /* In process order. */
    const run_proc_ns *e =
        p->nprocs ? bsearch(&k, p->per_proc, p->nprocs, sizeof *e, by_proc) : NULL;
    return e ? e->ns : NAN;
}

int run_opens_on_lines(const run_model *m) {
    if (!m || !m->roles_by_samples)
        return 0;
    for (size_t r = 0; r < m->nroles; r++)
        if (m->roles[r].line_samples)
            return 1;
    return 0;
}

const char *run_role_order(const run_model *m) {
    return m->roles_by_samples ? "roles by line samples, most first"
                               : "roles by phase time, most first";
}
