/* `scope-tui lines --json`: a query's rows and functions as one JSON
 * document (docs/json.md, schema scope-lines/1). */
#ifndef SCOPE_LINES_JSON_H
#define SCOPE_LINES_JSON_H

#include "run_lines.h"

#include <stdio.h>

#define LINES_JSON_SCHEMA "scope-lines/1"

/* Prints the document.  top: at most this many rows (0: all); rows under
 * min_time_us are left out.  Returns 0, or -1 when it could not be built. */
int lines_json_print(FILE *f, const run_model *m, const run_lines_info *info,
                     const run_lines_query *q, const run_lines_result *r, size_t top,
                     double min_time_us);

#endif
