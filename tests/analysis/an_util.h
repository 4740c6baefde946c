/* Lookups the analysis tests share: a phase by role and path, a counter by
 * name, each failing the test when it is not there. */
#ifndef SCOPE_TESTS_AN_UTIL_H
#define SCOPE_TESTS_AN_UTIL_H

#include "run_model.h"

const run_phase *an_phase(const run_model *m, const char *role, const char *path);
const run_counter *an_counter(const run_phase *p, const char *name);

#endif
