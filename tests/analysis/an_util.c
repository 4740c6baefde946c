/* See an_util.h. */
#include "an_util.h"

#include <check.h>
#include <string.h>

const run_phase *an_phase(const run_model *m, const char *role, const char *path) {
    const run_role *r = run_find_role(m, role);
    ck_assert_msg(r, "no role %s", role);
    const run_phase *p = run_find_phase(r, path);
    ck_assert_msg(p, "no phase %s in role %s", path, role);
    return p;
}

const run_counter *an_counter(const run_phase *p, const char *name) {
    for (size_t i = 0; p && i < p->ncounters; i++)
        if (p->counters[i].name.len == strlen(name) &&
            !memcmp(p->counters[i].name.s, name, p->counters[i].name.len))
            return &p->counters[i];
    ck_abort_msg("no counter %s", name);
    return NULL;
}
