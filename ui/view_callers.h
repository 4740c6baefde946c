/* The Callers view's way in, from Lines and Flame (c). */
#ifndef SCOPE_UI_VIEW_CALLERS_H
#define SCOPE_UI_VIEW_CALLERS_H

#include "browser.h"
#include "hot_lines.h"

/* Shows the callers and callees of the function (name, file, module as the
 * model names it) among the scope's samples; Backspace goes back to view
 * `from`. */
void callers_view_open(app *a, const hot_scope *sc, run_str function, run_str file, run_str module,
                       size_t from);

#endif
