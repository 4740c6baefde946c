/* `o`: a phase's source file opened in the user's editor at its line. */
#ifndef SCOPE_UI_EDITOR_H
#define SCOPE_UI_EDITOR_H

#include "app.h"

/* Finds the phase's recorded source file (as recorded, else relative to
 * the working directory of one of the role's processes), then runs
 * $VISUAL, else $EDITOR, else vi, as `EDITOR +LINE FILE` through the shell
 * (so EDITOR may hold arguments, as git allows), with the terminal given
 * back to it until it exits.  Says in the status line what went wrong. */
void editor_open_phase(app *a, const run_phase *p, const run_role *role);

#endif
