/* Finding roles and phases in a loaded model; see run_model.h. */
#include "run_model.h"
#include "text_escape.h"

#include <string.h>

const run_role *run_find_role(const run_model *m, const char *name) {
    size_t n = strlen(name);
    for (size_t r = 0; r < m->nroles; r++)
        if (m->roles[r].name.len == n && !memcmp(m->roles[r].name.s, name, n))
            return &m->roles[r];
    return NULL;
}

const run_phase *run_phase_child(const run_phase *parent, const char *name, size_t len) {
    for (size_t i = 0; i < parent->nchildren; i++) {
        const run_phase *k = parent->children[i];
        if (k->name.len == len && !memcmp(k->name.s, name, len))
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
    const run_phase *chain[64];
    size_t n = 0;
    for (; p && p->parent && n < 64; p = p->parent)
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
