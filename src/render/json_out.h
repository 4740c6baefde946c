/*
 * cJSON helpers shared by the JSON renderers (report, compare), so every
 * document writes numbers, missing figures, names and times the same way:
 *
 *  - integers exactly (ns since the epoch do not fit a double's 53 bits);
 *  - a figure that was not measured (NAN, SIZE_MAX, -1 ranks) as null;
 *  - names as JSON strings that are always valid UTF-8: the recorded bytes
 *    when they are valid UTF-8 without NUL, else their escaped form
 *    (text_escape.h);
 *  - in every string, each control character (C0, DEL, C1) and each format
 *    character that can disguise text (scope_is_hidden_format) written as
 *    \uXXXX, so the document's bytes hold none of them raw;
 *  - wall-clock times as ISO-8601 UTC with nanoseconds.
 *
 * An allocation failure anywhere is remembered in the json_out, so a
 * renderer fails instead of printing a document with keys silently missing.
 * Every helper takes the key to add to an object, or NULL to append to an
 * array.
 */
#ifndef SCOPE_JSON_OUT_H
#define SCOPE_JSON_OUT_H

#include "run_model.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>

typedef struct json_out {
    int failed;
} json_out;

cJSON *jo_object(json_out *j, cJSON *parent, const char *key);
cJSON *jo_array(json_out *j, cJSON *parent, const char *key);

void jo_null(json_out *j, cJSON *parent, const char *key);
void jo_bool(json_out *j, cJSON *parent, const char *key, int v);
void jo_u64(json_out *j, cJSON *parent, const char *key, uint64_t v);
void jo_i64(json_out *j, cJSON *parent, const char *key, int64_t v);
/* NAN and infinities as null; integral values as integers. */
void jo_num(json_out *j, cJSON *parent, const char *key, double v);
/* An index into another array of the document; SIZE_MAX as null. */
void jo_index(json_out *j, cJSON *parent, const char *key, size_t i);
/* A NUL-terminated string (as a name: its escaped form when it is not
 * valid UTF-8); NULL as null. */
void jo_str(json_out *j, cJSON *parent, const char *key, const char *s);
void jo_name(json_out *j, cJSON *parent, const char *key, run_str name);
/* The JSON string literal, quotes included, that jo_name writes for a name
 * (malloc'd; NULL when out of memory): for documents written as a stream. */
char *jo_name_literal(run_str name);
/* A name, or null when it is empty (an absent job id, source file, ...). */
void jo_name_or_null(json_out *j, cJSON *parent, const char *key, run_str name);
/* "2026-11-30T17:22:31.123456789Z"; 0 (never recorded) as null. */
void jo_wall(json_out *j, cJSON *parent, const char *key, uint64_t wall_ns);

/* "dir" and "run_id" (the newest attempt's, null when there is none): how
 * the report and the comparison name a run. */
void jo_run_identity(json_out *j, cJSON *parent, const run_model *m);

/* A new document: an object whose first key is "schema".  NULL when out of
 * memory. */
cJSON *jo_document(json_out *j, const char *schema);

/* Prints the document and a newline to f, then frees it.  Returns 0, or -1
 * when building or printing it failed (nothing is printed then). */
int jo_finish(json_out *j, cJSON *root, FILE *f);

#endif
