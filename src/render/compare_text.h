/* `scope-tui compare A B` as text: per role, one row per phase by impact,
 * laid out for a given width. */
#ifndef SCOPE_COMPARE_TEXT_H
#define SCOPE_COMPARE_TEXT_H

#include "report_text.h"
#include "run_compare.h"

#include <stdio.h>

/* Columns that do not fit st->width are left out, least telling first, and
 * named under the tables. */
void compare_text_print(FILE *f, const run_cmp *c, const text_style *st);

#endif
