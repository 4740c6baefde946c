/*
 * Folded stacks, as Brendan Gregg's flamegraph.pl, speedscope and inferno
 * read them: one line per distinct call path, its frames from the
 * outermost to the one that ran joined by ';', a space, and its samples:
 *
 *     learner;main;train;forward;tanhf 28
 *
 * Frames are named as run_flame_name names them (escaped, so a line is one
 * line); a ';' inside a name, which the format cannot hold, is written ':'.
 */
#ifndef SCOPE_STACKS_FOLDED_H
#define SCOPE_STACKS_FOLDED_H

#include "run_stacks.h"

#include <stdio.h>

/* The flame's paths with samples (each frame's self), depth first.  With
 * roles as the root's children, each line starts with its role's name.
 * Returns the lines written. */
size_t stacks_folded_print(FILE *f, const run_flame *fl);

#endif
