/*
 * Keys and what they do.  One table binds keys to actions, with each view's
 * key taken from the views' table (views.c); the dispatcher looks keys up in
 * it and the help view prints it, so the two cannot disagree (tig's way).
 * Headless mode names keys in the same notation ("<Down>", "<Enter>") that
 * the help shows.
 */
#ifndef SCOPE_UI_KEYMAP_H
#define SCOPE_UI_KEYMAP_H

#include <stddef.h>

enum action {
    ACT_NONE,
    /* moving */
    ACT_UP,
    ACT_DOWN,
    ACT_PAGE_UP,
    ACT_PAGE_DOWN,
    ACT_HOME,
    ACT_END,
    /* the tree */
    ACT_ENTER, /* drill in: expand, or open what the row leads to */
    ACT_BACK,  /* go back: collapse, or up to the parent */
    ACT_TOGGLE,
    ACT_EXPAND_ALL,
    ACT_COLLAPSE_ALL,
    /* views */
    ACT_VIEW_NEXT,
    ACT_VIEW_PREV,
    ACT_VIEW, /* show the view whose key it is (views.c) */
    ACT_HELP,
    ACT_DIFF,     /* D: the Diff view of two runs */
    ACT_SWAP_RUN, /* b: in a diff, the other views show the other run */
    /* finding */
    ACT_SEARCH,
    ACT_SEARCH_NEXT,
    ACT_SEARCH_PREV,
    ACT_FILTER, /* \: show only the rows whose names match, with their ancestors */
    ACT_SORT,
    ACT_REVERSE, /* I: the sort order turned round */
    ACT_CLEAR,   /* Esc: clear the filter or the search */
    /* hot lines */
    ACT_HOTTEST,     /* H: the hottest line, in the Source view */
    ACT_PHASE_LINES, /* L: the Lines view narrowed to the selected phase */
    ACT_ATTRIBUTION, /* a: project or self attribution */
    /* stacks */
    ACT_CALLERS,     /* c: the callers and callees of the function selected */
    ACT_FRAME_NAMES, /* f: Flame's frames named by function or by file:line */
    ACT_FRAME_COLOR, /* m: Flame's colours by module, or project against the rest */
    ACT_FRAME_PREV,  /* [: the frame left of the selected one on its row */
    ACT_FRAME_NEXT,  /* ]: the frame right of it */
    ACT_CPU_STATE,   /* w: Flame's samples: all, off-CPU (where threads waited), on-CPU */
    /* the rest */
    ACT_SAVE,
    ACT_OPEN_SOURCE,
    ACT_RELOAD,
    ACT_ATTEMPT, /* A: the run's next attempt */
    ACT_REDRAW,
    ACT_QUIT,     /* on the help: back to the view it was opened from */
    ACT_QUIT_NOW, /* from any view, the help too (htop's F10) */
    ACT_COUNT
};

/* Keys beyond ncurses' own KEY_ codes. */
#define KEY_ESCAPE  27
#define KEY_TAB     '\t'
#define KEY_CTRL(c) ((c)&0x1f)

typedef struct key_binding {
    int key; /* a character or an ncurses KEY_ code */
    enum action action;
    const char *group; /* the help's heading; NULL: same as the row above */
    const char *help;  /* what it does; NULL: same line as the row above */
    size_t view;       /* ACT_VIEW: the view's index in views.c's table */
} key_binding;

/* The bindings in the order the help shows them: keymap.c's own, with each
 * view's key (views.c) in the Views group.  keymap_binding(i) for i below
 * keymap_count(). */
size_t keymap_count(void);
key_binding keymap_binding(size_t i);

/* The first key bound to action a (the one the help lists first); 0 when
 * none is. */
int keymap_action_key(enum action a);

/* The binding of key; its action is ACT_NONE when the key has none. */
key_binding keymap_lookup(int key);

/* The key's name as help and headless mode spell it: "j", "<Down>",
 * "<PgDn>", "<C-l>", "<F1>"; another ncurses KEY_ code by ncurses' own
 * name without "KEY_" ("<IC>" for KEY_IC), as tig names keys, never by
 * its number.  Returns buf, or NULL for a key without a name. */
const char *keymap_key_name(int key, char *buf, size_t cap);

/* The keys bound to what b does (its action, and for ACT_VIEW its view),
 * joined for the help: "k <Up>".  Returns buf. */
const char *keymap_keys_of(const key_binding *b, char *buf, size_t cap);

/* Reads the next key of a headless key string at *s: a character (UTF-8
 * decoded), or a name in angle brackets ("<Down>", "<Enter>", "<lt>" for
 * '<').  A resize is "<resize:WxH>": returns KEY_RESIZE with *cols and
 * *rows set.  Returns 0 at the end, -1 with err set on a bad name. */
/* "<refresh>" is no key: it stands for the refresh timer firing
 * (KEYMAP_REFRESH_TIMER), which headless mode replays in its place. */
#define KEYMAP_REFRESH_TIMER (KEY_MAX + 1)
/* *is_char tells a character (which may share its number with a KEY_ code)
 * from a named key. */
int keymap_parse_key(const char **s, int *cols, int *rows, int *is_char, char *err, size_t errlen);

#endif
