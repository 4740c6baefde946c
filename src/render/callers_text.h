/*
 * A function's callers and callees as text (`scope-tui lines --callers`):
 * the function, its samples and share of the selection, then each caller
 * and each callee with its samples and its share of the function's samples
 * (+- one standard deviation), most first.
 */
#ifndef SCOPE_CALLERS_TEXT_H
#define SCOPE_CALLERS_TEXT_H

#include "run_stacks.h"

#include <stdio.h>

void callers_text_print(FILE *f, const run_callers *c);

#endif
