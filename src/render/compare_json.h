/* `scope-tui compare A B --json`: the comparison model as one JSON document
 * (schema "scope-compare/1"), and `scope-tui check --json`: the verdicts
 * judged from it (schema "scope-check/1"); both documented in docs/json.md. */
#ifndef SCOPE_COMPARE_JSON_H
#define SCOPE_COMPARE_JSON_H

#include "run_check.h"
#include "run_compare.h"

#include <stdio.h>

#define COMPARE_JSON_SCHEMA "scope-compare/1"

#define CHECK_JSON_SCHEMA "scope-check/1"

/* Return 0, or -1 when the document could not be built or written. */
int compare_json_print(FILE *f, const run_cmp *c);
int check_json_print(FILE *f, const run_cmp *c, const run_check *k, const run_check_opts *o);

#endif
