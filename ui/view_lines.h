/* The Lines view's moves, which the Phases view and the dispatcher make
 * into it. */
#ifndef SCOPE_UI_VIEW_LINES_H
#define SCOPE_UI_VIEW_LINES_H

#include "browser.h"

/* H: the hottest line of the phase (or role, or the run when both are NULL)
 * under the process filter, by the attribution the Lines view shows (so H
 * agrees with its top row), opened in the Source view; a one-line message
 * when there is none. */
void lines_view_show_hottest(app *a, const run_role *role, const run_phase *phase);

/* L: the Lines view narrowed to the phase (or role). */
void lines_view_show_phase(app *a, const run_role *role, const run_phase *phase);

#endif
