/*
 * The screen as plain text: what `P` saves and what headless mode prints.
 * Read back from ncurses' own copy of the screen, so it is exactly what was
 * drawn, less colours and attributes.
 */
#ifndef SCOPE_UI_SCREEN_TEXT_H
#define SCOPE_UI_SCREEN_TEXT_H

#include <curses.h>
#include <stdio.h>

/* Writes every row of w as UTF-8 (ASCII in a non-UTF-8 locale), trailing
 * spaces dropped, one line each.  Returns 0, or -1 when writing failed. */
int screen_text_write(WINDOW *w, FILE *f);

/* Saves stdscr to the first free "scope-VIEW-N.txt" in the current
 * directory (created exclusively, so two saves never overwrite each
 * other).  Returns 0 with the file's name in path, or -1 with a message. */
int screen_text_save(WINDOW *w, const char *view, char *path, size_t cap, char *err, size_t errlen);

#endif
