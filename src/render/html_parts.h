/* The sections of the HTML report (html_report.h), each in a file of its
 * own: ri is the role's index, the anchor prefix of its sections. */
#ifndef SCOPE_HTML_PARTS_H
#define SCOPE_HTML_PARTS_H

#include "run_model.h"

#include <stdio.h>

/* The phase tree as an icicle: share by width, wait% by shade, the queued
 * part hatched (html_icicle.c). */
void html_icicle(FILE *f, const run_role *r, size_t ri);
/* Each phase's totals across the role's processes, as a box and strip
 * plot (html_icicle.c). */
void html_spread(FILE *f, const run_model *m, const run_role *r, size_t ri);
/* I/O, memory and CPU, GPU over time (html_resources.c). */
void html_resources(FILE *f, run_model *m, const run_role *r, size_t ri);
/* Hot lines of the role and of its dominant phases (html_lines.c):
 * has_lines 0 writes why there are none.  Returns -1 with msg when out of
 * memory. */
int html_lines(FILE *f, run_model *m, const run_role *r, size_t ri, int has_lines, char *msg,
               size_t msglen);

/* The anchor of a phase's row in the phase table: "ph-RI-N", N its place
 * in the tree's preorder (html_report.c). */
size_t html_phase_index(const run_role *r, const run_phase *p);
/* The phase's path from its top-level phase, escaped (html_report.c). */
void html_phase_path(FILE *f, const run_phase *p);
/* Whether the phase table has a row for the phase at preorder place pre
 * (1 the first): only the first HTML_MAX_PHASES are written. */
int html_phase_has_row(size_t pre);
/* The phase's path, linked to its row in the phase table where the table
 * has one, else said to be past the rows shown: no link leads nowhere.
 * pre: its preorder place, SIZE_MAX to have it looked up. */
void html_phase_link(FILE *f, const run_role *r, size_t ri, const run_phase *p, size_t pre);

#endif
