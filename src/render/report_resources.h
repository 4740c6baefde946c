/*
 * The text report's sampled blocks for one role (run_resources.h): I/O in
 * both layers with rates, the "(no phase open)" share, dropped intervals
 * and sparklines of the bytes over the run; MEMORY (RSS peak and the
 * process that reached it, CPU); GPU per device (busy, this run's share,
 * idle, this run's device memory and the processes on it).  Nothing is
 * printed for a role none of whose processes was sampled.
 */
#ifndef SCOPE_REPORT_RESOURCES_H
#define SCOPE_REPORT_RESOURCES_H

#include "run_model.h"
#include "text_style.h"

#include <stdio.h>

void report_resources_print(FILE *f, const run_model *m, const run_role *r, const text_style *st);

#endif
