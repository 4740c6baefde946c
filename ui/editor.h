/* `o`: a phase's or a hot line's source file opened in the user's editor at its line. */
#ifndef SCOPE_UI_EDITOR_H
#define SCOPE_UI_EDITOR_H

#include "browser.h"

/* Finds the phase's recorded source file (an absolute path as recorded; a
 * relative one under the working directory of one of the role's processes,
 * else under the browser's), then runs $VISUAL, else $EDITOR, else vi, as
 * `EDITOR +LINE FILE` through the shell (so EDITOR may hold arguments, as
 * git allows), with the terminal given back to it until it exits.  The
 * path from the log is data: it reaches the editor as one argument that
 * starts with '/' or "./", never through the shell's parsing, so it can be
 * neither an option nor a command.  Says in the status line what went
 * wrong. */
void editor_open_phase(app *a, const run_phase *p, const run_role *role);

/* The same for a hot line (the Lines and Source views' o): its file as
 * recorded, else under the project folder, else under --source-dir. */
void editor_open_line(app *a, const run_line *l, const run_role *role);

#endif
