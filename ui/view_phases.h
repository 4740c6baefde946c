/* What the Phases view tells the views that follow its selection. */
#ifndef SCOPE_UI_VIEW_PHASES_H
#define SCOPE_UI_VIEW_PHASES_H

#include "browser.h"

/* The role and phase (NULL: the role's whole tree) of the row selected in
 * the Phases view, a counter's row counting as its phase's; the role NULL
 * when nothing is selected. */
const run_role *phases_view_selection(app *a, const run_phase **phase);

#endif
