/* See an_util.h. */
#define _GNU_SOURCE
#include "an_util.h"
#include "report_json.h"

#include <check.h>
#include <stdio.h>
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

size_t an_caveats_with(const run_model *m, const char *substr) {
    size_t n = 0;
    for (size_t i = 0; i < m->ncaveats; i++)
        n += strstr(m->caveats[i].text, substr) != NULL;
    return n;
}

char *an_report_json(const run_model *m, size_t *len) {
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(report_json_print(f, m), 0);
    fclose(f);
    return text;
}
