/*
 * Colour themes: YAML files read with libyaml, resolved from --theme,
 * $SCOPE_THEME or the user's config file, and mapped to what the terminal
 * can show (true colour, 256, 16, 8 colours, or none).
 *
 * Nothing here calls ncurses: a theme is data, and mapping a colour to a
 * terminal's palette is arithmetic, so both are unit-tested without a
 * terminal.  ui/style.c turns the result into ncurses colour pairs.
 */
#ifndef SCOPE_UI_THEME_H
#define SCOPE_UI_THEME_H

#include <stddef.h>
#include <stdint.h>

/* What the browser draws; each gets one style from the theme.  The YAML
 * keys are the names theme_element_name() returns ("header", "tab_active",
 * ...). */
enum theme_element {
    TH_NORMAL,     /* list text */
    TH_HEADER,     /* the run header line at the top */
    TH_TAB,        /* a view's name in the tab bar */
    TH_TAB_ACTIVE, /* the current view's name */
    TH_COLUMNS,    /* column headings of a list */
    TH_SELECTED,   /* the row under the cursor */
    TH_ROLE,       /* a role's row in the phase tree */
    TH_COUNTER,    /* a counter's row under its phase */
    TH_DIM,        /* secondary text: units, n/a, hints */
    TH_BAR,        /* the filled part of a share bar, sparkline bars */
    TH_BAR_EMPTY,  /* the rest of a share bar */
    TH_MATCH,      /* search matches */
    TH_FILTER,     /* the filter line ("process: actor rank 3 ... Esc clears") */
    TH_WARN,       /* caveats, imbalance worth a look */
    TH_ERROR,      /* errors: lost workers, failed saves */
    TH_STATUS,     /* the status line at the bottom */
    TH_STATUS_KEY, /* a key's name in the status line */
    TH_SLOWER,     /* Diff: a change beyond the noise that made B slower (or a line hotter) */
    TH_FASTER,     /* Diff: a change beyond the noise that made B faster (or a line cooler) */
    TH_ELEMENT_COUNT
};

enum theme_color_kind {
    THEME_COLOR_DEFAULT, /* the terminal's own foreground or background */
    THEME_COLOR_INDEX,   /* a palette index 0..255 (0..7 the classic eight) */
    THEME_COLOR_RGB      /* 0xRRGGBB */
};

typedef struct theme_color {
    enum theme_color_kind kind;
    uint32_t value;
} theme_color;

#define THEME_BOLD      0x1u
#define THEME_DIM       0x2u
#define THEME_UNDERLINE 0x4u
#define THEME_REVERSE   0x8u
#define THEME_ITALIC    0x10u

typedef struct theme_style {
    theme_color fg, bg;
    unsigned attrs; /* THEME_* */
} theme_style;

typedef struct theme {
    char name[64];   /* the file's `name:`, else its base name */
    char path[4096]; /* the file it was read from; "" for the built-in default */
    theme_style style[TH_ELEMENT_COUNT];
} theme;

/* "header", "tab_active", ...; NULL past the end. */
const char *theme_element_name(enum theme_element e);

/* Reads one theme file (format: docs/themes.md).  Elements the file leaves
 * out keep the built-in default theme's style; an element it gives is
 * replaced whole (no fg: means the terminal's default colour, no attrs: none).
 * Returns 0, or -1 with one line in err and *out untouched:
 * "PATH:LINE:COLUMN: what is wrong" (LINE and COLUMN 1-based; 1:1 for a
 * file that cannot be read or is empty). */
int theme_load_file(const char *path, theme *out, char *err, size_t errlen);

/* Chooses and loads the theme: `cli` (--theme NAME|PATH) if not NULL, else
 * $SCOPE_THEME, else `theme:` in $XDG_CONFIG_HOME/scope/config.yaml
 * (~/.config when XDG_CONFIG_HOME is unset), else "default".  A value with
 * a '/' or ending in ".yaml" is a path; otherwise a name looked up as
 * NAME.yaml in $XDG_CONFIG_HOME/scope/themes/, then in the installed
 * themes folder, then in the source tree's themes/; "default" found in none
 * of them is the built-in table.  A relative path in config.yaml is relative
 * to its folder.  Returns 0, or -1 with one line in err (a bad file: its
 * line and column; an unknown name: the names that exist, prefixed by
 * "$SCOPE_THEME: " or "CONFIG:LINE:COLUMN: " when it came from there). */
int theme_resolve(const char *cli, theme *out, char *err, size_t errlen);

/* The colour number to give the terminal for c, given how many colours it
 * has (ncurses' COLORS): -1 for the default colour, or when ncolors < 8;
 * for 0x1000000 or more (a direct-colour terminal) the RGB value itself
 * (0..7 become 8: xterm-direct sends numbers below 8 as palette colours);
 * for 256 the nearest entry of the cube or grey ramp (16..255); for 16 or 8
 * the nearest of those, where a grey stays a grey (by brightness) and a hue
 * stays its hue.  Palette indexes the terminal lacks are mapped the same way
 * from their xterm RGB. */
int theme_color_for(theme_color c, int ncolors);

/* The theme for a terminal without colour (NO_COLOR, or none to give):
 * colours dropped; an element that stood out only by its background
 * (selection, header, status line, active tab) gets reverse video so it
 * still does.  That is any element but normal whose bg is a colour other
 * than normal's bg. */
void theme_strip_color(theme *t);

#endif
