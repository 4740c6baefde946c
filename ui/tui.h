/* `scope-tui RUN`: the terminal browser's command. */
#ifndef SCOPE_UI_TUI_H
#define SCOPE_UI_TUI_H

/* argv[0] is "scope-tui"; the run and options follow.  Returns the exit
 * status: 0, or 2 for bad usage, a bad run, or no terminal to draw on. */
int tui_main(int argc, char **argv);

/* The browser's line in scope-tui's help. */
extern const char tui_usage[];

#endif
