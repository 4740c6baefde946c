/*
 * The browser's screen layout and dispatcher: keys through the key table to
 * the view shown or the actions every view shares, reloading, and drawing.
 * The state it works on and the calls views make are browser.h's.
 *
 * Screen layout, top to bottom: the run's header line, the tab bar, the
 * filter line (only while a process filter or the view's name filter is
 * on), the view, and the status line (the keys that matter now, a message,
 * or the search or filter being typed).
 */
#ifndef SCOPE_UI_APP_H
#define SCOPE_UI_APP_H

#include "browser.h"

#include <stddef.h>

/* The smallest terminal the layout works in; below it the screen says so. */
#define APP_MIN_COLS 60
#define APP_MIN_ROWS 16

#define APP_REFRESH_MS 5000 /* a recorder closes a frame every 5 s in a run's first minutes */

/* Loads nothing: the caller sets run_dir, opt, model, theme and current,
 * opens ncurses, then calls this to build the views.  Returns 0 or -1
 * (memory). */
int app_init(app *a);
void app_release(app *a);

/* Whether the run shown is in progress and refreshes by itself. */
int app_refreshing(const app *a);

/* The refresh timer fired: reads a run in progress again as r does (every
 * view keeps its view, row, scroll, expanded nodes and filter), unless a
 * search is being typed; says so once the run has ended, and refreshing
 * stops there. */
void app_refresh_tick(app *a);

/* Handles one key (an ASCII character or an ncurses KEY_ code) through the
 * key table. */
void app_key(app *a, int key);

/* A character beyond ASCII, kept apart from keys because ncurses' KEY_
 * codes share its numbers (U+0102 is KEY_DOWN): typed into a search, or
 * else bound to nothing. */
void app_char(app *a, unsigned codepoint);

/* Draws the whole screen into stdscr (the caller refreshes). */
void app_draw(app *a);

/* Whether the process filter narrows that view (its view_ops say
 * narrowed), so its line shows above it. */
int app_view_filtered(const app *a, size_t view);

#endif
