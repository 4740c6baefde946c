/*
 * `scope-tui compare A B --html -o FILE`: the comparison as one
 * self-contained HTML page.  Every figure and verdict is run_compare's, the
 * same as compare --json: per role, its phases by impact with the change of
 * each figure of compare --json (phase_figures_in(PF_OUT_COMPARE_JSON)),
 * the interval of change where the noise is known and the verdict it
 * gives, the sampled resources and the hot lines compared.
 */
#ifndef SCOPE_HTML_COMPARE_H
#define SCOPE_HTML_COMPARE_H

#include "run_compare.h"

#include <stdio.h>

#define HTML_CMP_MAX_PHASES 400

void html_compare_print(FILE *f, const run_cmp *c);

#endif
