/* The key table and key names; see keymap.h. */
#include "keymap.h"

#include "views.h"

#include <assert.h>
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first binding of an action carries its help line and, when a new
 * group of the help starts there, the group's heading. */
static const struct {
    int key;
    enum action action;
    const char *group, *help; /* as in key_binding */
} table[] = {
    {KEY_UP, ACT_UP, "Moving", "move up"},
    {'k', ACT_UP, NULL, NULL},
    {KEY_DOWN, ACT_DOWN, NULL, "move down"},
    {'j', ACT_DOWN, NULL, NULL},
    {KEY_PPAGE, ACT_PAGE_UP, NULL, "page up"},
    {KEY_CTRL('b'), ACT_PAGE_UP, NULL, NULL},
    {KEY_NPAGE, ACT_PAGE_DOWN, NULL, "page down"},
    {KEY_CTRL('f'), ACT_PAGE_DOWN, NULL, NULL},
    {' ', ACT_PAGE_DOWN, NULL, NULL},
    {KEY_HOME, ACT_HOME, NULL, "first row"},
    {'g', ACT_HOME, NULL, NULL},
    {KEY_END, ACT_END, NULL, "last row"},
    {'G', ACT_END, NULL, NULL},

    {KEY_ENTER, ACT_ENTER, "Tree",
     "drill in: expand a phase; a process: its phase tree; a line: its source; Flame: zoom "
     "into the frame"},
    {'\n', ACT_ENTER, NULL, NULL},
    {'\r', ACT_ENTER, NULL, NULL},
    {KEY_RIGHT, ACT_ENTER, NULL, NULL},
    {'l', ACT_ENTER, NULL, NULL},
    {KEY_LEFT, ACT_BACK, NULL,
     "back: collapse, or go up to the parent; Source, Callers: back; Flame: zoom out"},
    {'h', ACT_BACK, NULL, NULL},
    {KEY_BACKSPACE, ACT_BACK, NULL, NULL},
    {127, ACT_BACK, NULL, NULL},
    {'x', ACT_TOGGLE, NULL, "expand or collapse the row"},
    {'*', ACT_EXPAND_ALL, NULL, "expand everything"},
    {'-', ACT_COLLAPSE_ALL, NULL, "collapse everything"},

    {KEY_TAB, ACT_VIEW_NEXT, "Views", "next view"},
    {KEY_BTAB, ACT_VIEW_PREV, NULL, "previous view"},
    {0, ACT_VIEW, NULL, NULL}, /* stands for each view's key, from views.c */
    {'?', ACT_HELP, NULL, "help; on it, ? q or Esc go back"},
    {KEY_F(1), ACT_HELP, NULL, NULL},
    {'D', ACT_DIFF, NULL, "two runs (scope-tui A B): the Diff view, A against B"},
    {'b', ACT_SWAP_RUN, NULL, "two runs: the other views show run A, or run B again"},

    {'/', ACT_SEARCH, "Finding", "search names as you type (Enter keeps, Esc cancels)"},
    {'n', ACT_SEARCH_NEXT, NULL, "next match; on Source, the next line down the heat ranking"},
    {'N', ACT_SEARCH_PREV, NULL, "previous match; on Source, the next line up (hotter)"},
    {'\\', ACT_FILTER, NULL,
     "filter: only rows whose names match, their parents and what is below them (empty or "
     "Esc clears)"},
    {KEY_F(4), ACT_FILTER, NULL, NULL},
    {'s', ACT_SORT, NULL, "cycle the sort order (its column's heading is marked)"},
    {'I', ACT_REVERSE, NULL, "reverse the sort order (its heading's mark turns), as htop's I"},
    {KEY_ESCAPE, ACT_CLEAR, NULL,
     "clear a filter: the names' first, then on Lines the phase's, then the process's"},

    {'H', ACT_HOTTEST, "Hot lines",
     "the hottest line in its source: of the phase or role selected in Phases, else of the run"},
    {'L', ACT_PHASE_LINES, NULL, "on Phases: the hot lines of the selected phase or role"},
    {'a', ACT_ATTRIBUTION, NULL,
     "on Lines and Source: the line that ran (self), or its caller in the project"},

    {'c', ACT_CALLERS, "Stacks",
     "on Lines and Flame: the callers and callees of the function selected, with their shares"},
    {'[', ACT_FRAME_PREV, NULL, "on Flame: the frame left of the selected one on its row"},
    {']', ACT_FRAME_NEXT, NULL, "on Flame: the frame right of it"},
    {'f', ACT_FRAME_NAMES, NULL, "on Flame: frames named by function, or by file:line"},
    {'m', ACT_FRAME_COLOR, NULL, "on Flame: colour by module, or the project against the rest"},
    {'w', ACT_CPU_STATE, NULL,
     "on Flame: every sample, then off-CPU (where threads waited: SCOPE_LINES_CLOCK=wall), "
     "then on-CPU"},

    {'P', ACT_SAVE, "Other", "save the screen as text to scope-VIEW-N.txt"},
    {'o', ACT_OPEN_SOURCE, NULL, "open the phase's or line's source in $VISUAL or $EDITOR"},
    {'r', ACT_RELOAD, NULL, "reload the run from disk"},
    {'A', ACT_ATTEMPT, NULL, "show the run's next older attempt, back to the newest (Overview)"},
    {KEY_CTRL('l'), ACT_REDRAW, NULL, "redraw the screen"},
    {'q', ACT_QUIT, NULL, "quit"},
    {KEY_F(10), ACT_QUIT_NOW, NULL, "quit, from the help too"},
};

#define NTABLE (sizeof table / sizeof table[0])

/* Where the views' keys stand in the table. */
static size_t views_at(void) {
    size_t i = 0;
    while (i < NTABLE && table[i].action != ACT_VIEW)
        i++;
    assert(i < NTABLE); /* the table has a place for them */
    return i;
}

size_t keymap_count(void) {
    return NTABLE - 1 + view_keyed_count();
}

key_binding keymap_binding(size_t i) {
    assert(i < keymap_count());
    size_t at = views_at(), nkeyed = view_keyed_count();
    if (i >= at && i < at + nkeyed) {
        size_t v = view_keyed(i - at);
        return (key_binding){.key = view_table[v].key, .action = ACT_VIEW, .view = v};
    }
    size_t t = i < at ? i : i - nkeyed + 1;
    return (key_binding){table[t].key, table[t].action, table[t].group, table[t].help, 0};
}

int keymap_action_key(enum action a) {
    for (size_t i = 0; i < keymap_count(); i++) {
        key_binding b = keymap_binding(i);
        if (b.action == a)
            return b.key;
    }
    return 0;
}

key_binding keymap_lookup(int key) {
    for (size_t i = 0; i < keymap_count(); i++) {
        key_binding b = keymap_binding(i);
        if (b.key == key)
            return b;
    }
    return (key_binding){.key = key, .action = ACT_NONE};
}

static const struct {
    int key;
    const char *name;
} names[] = {
    {KEY_UP, "Up"},       {KEY_DOWN, "Down"},  {KEY_LEFT, "Left"},     {KEY_RIGHT, "Right"},
    {KEY_PPAGE, "PgUp"},  {KEY_NPAGE, "PgDn"}, {KEY_HOME, "Home"},     {KEY_END, "End"},
    {KEY_ENTER, "Enter"}, {'\n', "Enter"},     {'\r', "CR"},           {KEY_BACKSPACE, "BS"},
    {127, "Del"},         {KEY_TAB, "Tab"},    {KEY_BTAB, "S-Tab"},    {KEY_ESCAPE, "Esc"},
    {' ', "Space"},       {'<', "lt"},         {KEY_RESIZE, "resize"},
};

const char *keymap_key_name(int key, char *buf, size_t cap) {
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].key == key) {
            snprintf(buf, cap, "<%s>", names[i].name);
            return buf;
        }
    const char *curses_name = key >= KEY_MIN ? keyname(key) : NULL;
    if (key >= 1 && key < 32)
        snprintf(buf, cap, "<C-%c>", key + 'a' - 1);
    else if (key > 32 && key < 127)
        snprintf(buf, cap, "%c", key);
    else if (key >= KEY_F(1) && key <= KEY_F(63))
        snprintf(buf, cap, "<F%d>", key - KEY_F0);
    else if (curses_name && !strncmp(curses_name, "KEY_", 4))
        snprintf(buf, cap, "<%s>", curses_name + 4);
    else
        return NULL;
    return buf;
}

static int same_deed(const key_binding *a, const key_binding *b) {
    return a->action == b->action && (a->action != ACT_VIEW || a->view == b->view);
}

const char *keymap_keys_of(const key_binding *b, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < keymap_count(); i++) {
        key_binding k = keymap_binding(i);
        if (!same_deed(&k, b) || k.key == '\r' || k.key == 127)
            continue; /* twins of <Enter> and <BS> that terminals send */
        char name[24];
        keymap_key_name(k.key, name, sizeof name);
        int dup = 0; /* KEY_ENTER and '\n' are both <Enter> */
        for (size_t j = 0; j < i && !dup; j++) {
            key_binding other = keymap_binding(j);
            char other_name[24];
            dup = same_deed(&other, b) &&
                  !strcmp(keymap_key_name(other.key, other_name, sizeof other_name), name);
        }
        if (dup)
            continue;
        int n = snprintf(buf + len, cap - len, "%s%s", len ? " " : "", name);
        if (n < 0 || (size_t)n >= cap - len)
            break;
        len += (size_t)n;
    }
    return buf;
}

int keymap_parse_key(const char **s, int *cols, int *rows, int *is_char, char *err, size_t errlen) {
    const unsigned char *p = (const unsigned char *)*s;
    *is_char = 0;
    if (!*p)
        return 0;
    if (*p != '<') {
        /* A character, UTF-8 decoded as the terminal would send it. */
        int len = *p < 0x80 ? 1 : *p >= 0xF0 ? 4 : *p >= 0xE0 ? 3 : 2;
        int c = len == 1 ? *p : *p & (0x3F >> (len - 1));
        for (int i = 1; i < len; i++) {
            if ((p[i] & 0xC0) != 0x80) {
                snprintf(err, errlen, "--keys: invalid UTF-8 at '%.8s'", *s);
                return -1;
            }
            c = c << 6 | (p[i] & 0x3F);
        }
        *s += len;
        *is_char = 1;
        return c;
    }
    const char *end = strchr(*s, '>');
    if (!end) {
        snprintf(err, errlen, "--keys: '<' without '>' at '%.16s' (write <lt> for '<')", *s);
        return -1;
    }
    const char *name = *s + 1;
    size_t n = (size_t)(end - name);
    int key = -1;
    if (n > 7 && !strncmp(name, "resize:", 7)) {
        if (sscanf(name + 7, "%dx%d", cols, rows) == 2 && *cols > 0 && *rows > 0 && *cols <= 1000 &&
            *rows <= 1000)
            key = KEY_RESIZE;
    } else if (n == 7 && !strncmp(name, "refresh", 7)) {
        key = KEYMAP_REFRESH_TIMER;
    } else if (n == 3 && !strncmp(name, "C-", 2) && name[2] >= 'a' && name[2] <= 'z') {
        key = KEY_CTRL(name[2]);
    } else if (n >= 2 && n <= 3 && name[0] == 'F' && name[1] >= '1' && name[1] <= '9' &&
               (n == 2 || (name[2] >= '0' && name[2] <= '9'))) {
        int f = atoi(name + 1);
        if (f <= 63)
            key = KEY_F(f);
    } else {
        for (size_t i = 0; i < sizeof names / sizeof names[0] && key < 0; i++)
            if (strlen(names[i].name) == n && !strncmp(names[i].name, name, n) &&
                names[i].key != KEY_RESIZE)
                key = names[i].key;
    }
    if (key < 0) {
        snprintf(err, errlen,
                 "--keys: unknown key <%.*s> (names: <Up> <Down> <Left> <Right> <PgUp> <PgDn> "
                 "<Home> <End> <Enter> <BS> <Tab> <S-Tab> <Esc> <Space> <lt> <C-x> <F1> "
                 "<resize:WxH> <refresh>)",
                 (int)(n > 24 ? 24 : n), name);
        return -1;
    }
    *s = end + 1;
    return key;
}
