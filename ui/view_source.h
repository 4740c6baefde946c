/* The Source view's moves, which the Lines view, the Phases view and the
 * dispatcher make into it. */
#ifndef SCOPE_UI_VIEW_SOURCE_H
#define SCOPE_UI_VIEW_SOURCE_H

#include "browser.h"
#include "hot_lines.h"

/* Enter on a line, and H: the Source view shows the line's function with
 * the cursor on the line, for the scope; Backspace goes back to the view
 * `from`.  Says in the status line when it cannot. */
void source_view_open(view *v, const hot_scope *sc, const run_line *line, size_t from);

/* H: the hottest line of the phase (or role, or the run when both are NULL)
 * under the process filter and by the attribution attr, opened in the
 * Source view; a one-line message when there is none. */
void source_view_show_hottest(app *a, enum run_lines_attr attr, const run_role *role,
                              const run_phase *phase);

#endif
