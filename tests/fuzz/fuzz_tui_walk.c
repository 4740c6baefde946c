/*
 * The browser's stage of fuzz_tui: a hostile model (fuzz_run_load's input,
 * loaded) drawn through the real views, dispatcher and drawing code on an
 * ncurses screen that no terminal shows.  One SCREEN serves every input;
 * each input gets fresh views (app_init .. app_release), so what leaks or
 * overruns shows per input.
 */
#include "fuzz_tui_walk.h"

#include "app.h"
#include "style.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

static SCREEN *g_screen;
static theme g_theme, g_plain;

static void open_screen(void) {
    if (!setlocale(LC_CTYPE, "C.UTF-8"))
        setlocale(LC_CTYPE, "");
    FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
    if (!out || !in) {
        fprintf(stderr, "fuzz_tui: cannot open /dev/null\n");
        abort();
    }
    use_env(FALSE);
    g_screen = newterm("xterm", out, in);
    if (!g_screen) {
        fprintf(stderr, "fuzz_tui: no xterm terminfo entry\n");
        abort();
    }
    char err[512];
    if (theme_resolve("default", &g_theme, err, sizeof err) < 0) {
        fprintf(stderr, "fuzz_tui: %s\n", err);
        abort();
    }
    g_plain = g_theme;
    style_init(&g_plain, 0);
}

/* Keys as the terminal gives them; the walk picks from these. */
static const int walk_keys[] = {
    'j',  'j',      'k', KEY_NPAGE, KEY_PPAGE, 'G',  'g',        KEY_RIGHT, KEY_LEFT, '\n',
    'h',  'x',      '*', '-',       's',       '\t', KEY_BTAB,   '1',       '3',      '4',
    '5',  '6',      '7', '?',       'n',       'N',  KEY_ESCAPE, 'Z',       127,      'I',
    '\\', KEY_F(4), 'F', 'c',       'f',       'm',  '[',        ']',
};

lines_symbolizer *fuzz_tui_walk(run_model *m, const char *run_dir, size_t seed) {
    if (!g_screen)
        open_screen();
    static app a;
    int cols = 30 + (int)(seed % 211), rows = 8 + (int)((seed / 211) % 63);
    resize_term(rows, cols);
    style_utf8 = (int)(seed & 1);
    a = (app){.run_dir = run_dir,
              .model = m,
              .theme = g_plain,
              .rows = rows,
              .cols = cols,
              .headless = 1};
    if (app_init(&a) < 0) {
        fprintf(stderr, "fuzz_tui: app_init failed (out of memory?)\n");
        abort();
    }
    app_draw(&a);
    /* Every view opened wide, then a walk of 48 keys, a search and a name
     * filter typed in the middle, the process filter and a resize on the
     * way. */
    static const int opening[] = {'*', 'G', '5', 'G', '\n', '*', '3', 'G',
                                  '4', 'G', '6', 'G', '7',  'G', '1'};
    for (size_t i = 0; i < sizeof opening / sizeof opening[0]; i++) {
        app_key(&a, opening[i]);
        app_draw(&a);
    }
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (int i = 0; i < 48; i++) {
        x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
        uint64_t r = x * 0x2545F4914F6CDD1Dull;
        if (i == 20) {
            app_key(&a, '/');
            app_key(&a, 'e');
            app_char(&a, 0x4F11); /* 休 */
            app_key(&a, '\n');
        } else if (i == 25) {
            app_key(&a, '\\'); /* a name filter, kept: later keys walk the filtered rows */
            app_key(&a, 'e');
            app_char(&a, 0x4F11);
            app_key(&a, '\n');
        } else if (i == 30) {
            resize_term(8 + (int)(r % 30), 20 + (int)(r % 90));
            getmaxyx(stdscr, a.rows, a.cols);
            app_key(&a, KEY_RESIZE);
        } else {
            app_key(&a, walk_keys[r % (sizeof walk_keys / sizeof walk_keys[0])]);
        }
        app_draw(&a);
    }
    app_release(&a);
    return a.symbolizer;
}
