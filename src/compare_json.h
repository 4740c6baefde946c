/* `scope-tui compare A B --json`: the comparison model as one JSON document
 * (schema "scope-compare/1", documented in docs/json.md). */
#ifndef SCOPE_COMPARE_JSON_H
#define SCOPE_COMPARE_JSON_H

#include "run_compare.h"

#include <stdio.h>

#define COMPARE_JSON_SCHEMA "scope-compare/1"

/* Returns 0, or -1 when the document could not be built or written. */
int compare_json_print(FILE *f, const run_cmp *c);

#endif
