/*
 * The text report: the model laid out for a terminal of a given width, one
 * section per role (its phase table, dominant phases, iterations, exact I/O
 * and the sampled blocks of report_resources.h), then the run's caveats.
 * Prints figures, computes none (run_model.h has them all); the phase
 * table's columns are laid out by layout.h, the style is text_style.h.
 */
#ifndef SCOPE_REPORT_TEXT_H
#define SCOPE_REPORT_TEXT_H

#include "run_model.h"
#include "text_style.h"

#include <stdio.h>

void report_text_print(FILE *f, const run_model *m, const text_style *st);

/* Its parts that report_hot.h shares: the run's header, and its caveats
 * under their heading (nothing when there are none). */
void report_text_header(FILE *f, const run_model *m, const text_style *st);
void report_text_caveats(FILE *f, const run_model *m, const text_style *st);

#endif
