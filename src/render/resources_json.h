/*
 * Resources in JSON (docs/json.md, "resources"): one object per set of
 * processes (the run, a role, a worker) and the sampled bytes of a phase,
 * with every figure that was not measured as null.
 */
#ifndef SCOPE_RESOURCES_JSON_H
#define SCOPE_RESOURCES_JSON_H

#include "json_out.h"
#include "run_resources.h"

/* Adds key: the object for r, or null when r is NULL or sampled nothing. */
void resources_json_put(json_out *j, cJSON *parent, const char *key, const run_model *m,
                        const run_res *r);

/* Adds key: the phase's sampled bytes, or null when none were billed to it. */
void resources_json_phase(json_out *j, cJSON *parent, const char *key, const run_phase *p);

#endif
