/* `scope-tui report --json`: the whole run model as one JSON document
 * (schema "scope-report/1", documented in docs/json.md). */
#ifndef SCOPE_REPORT_JSON_H
#define SCOPE_REPORT_JSON_H

#include "run_model.h"

#include <stdio.h>

#define REPORT_JSON_SCHEMA "scope-report/1"

/* Returns 0, or -1 when the document could not be built or written. */
int report_json_print(FILE *f, const run_model *m);

#endif
