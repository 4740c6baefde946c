/* Lookups the analysis tests share: a phase by role and path, a counter by
 * name, each failing the test when it is not there. */
#ifndef SCOPE_TESTS_AN_UTIL_H
#define SCOPE_TESTS_AN_UTIL_H

#include "run_model.h"

const run_phase *an_phase(const run_model *m, const char *role, const char *path);
const run_counter *an_counter(const run_phase *p, const char *name);
/* How many of the run's caveats hold substr. */
size_t an_caveats_with(const run_model *m, const char *substr);
/* What report --json prints for m (malloc'd, *len bytes), failing the test
 * when it cannot. */
char *an_report_json(const run_model *m, size_t *len);

#endif
