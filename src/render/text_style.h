/*
 * How text is laid out for a terminal: its width, colour and character set,
 * and the pieces every text renderer (report, compare, check) draws with.
 */
#ifndef SCOPE_TEXT_STYLE_H
#define SCOPE_TEXT_STYLE_H

#include <stdio.h>

/* The narrowest layout: the phase table's name keeps room beside the
 * columns that are never given up. */
#define TEXT_MIN_WIDTH 40

typedef struct text_style {
    int width; /* columns to lay out for (at least TEXT_MIN_WIDTH) */
    int color; /* ANSI bold/dim for headings and rules */
    int utf8;  /* box-drawing rules and an ellipsis; else ASCII */
} text_style;

/* The style for stdout: width from --width, else the terminal, else
 * $COLUMNS, else 100; colour when stdout is a terminal and NO_COLOR is
 * unset (or forced with color_mode 1, refused with 0; -1: auto); UTF-8 from
 * the locale. */
text_style text_style_for(FILE *f, int width, int color_mode);

/* Rules, headings, dim text. */
void text_rule(FILE *f, const text_style *st);
void text_heading(FILE *f, const text_style *st, const char *text);
void text_dim(FILE *f, const text_style *st, const char *text);

/* Prose broken at spaces to fit the width, then a newline; continuation
 * lines are indented by `indent`.  `col` is where the cursor already is. */
void text_wrap(FILE *f, const text_style *st, const char *text, size_t col, size_t indent);

#endif
