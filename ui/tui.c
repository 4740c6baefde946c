/*
 * `scope-tui RUN`: the terminal browser's command line, the terminal's
 * setup and the key loop.  Headless mode (--keys, --size, --print) runs the
 * same dispatcher and drawing code against a screen of the asked size that
 * no terminal shows, and prints it as text: that is how the views are
 * tested.
 */
#include "tui.h"

#include "app.h"
#include "progress.h"
#include "run_follow.h"
#include "screen_text.h"
#include "style.h"
#include "text_escape.h"

#include <term.h>

#include <errno.h>
#include <langinfo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char tui_usage[] = "RUN|A B [--theme NAME|PATH] [--iteration NAME] [--view NAME]\n"
                         "                 [--attempt N] [--attempt-a N] [--confidence PCT]\n"
                         "                 [--source-dir DIR] [--refresh SECONDS]\n"
                         "                 [--keys KEYS] [--size WxH] [--print]";

static void usage(FILE *f) {
    char views[256];
    fprintf(f,
            "usage: scope-tui %s\n\n"
            "Opens a run directory in the terminal browser; two (A B) open on the Diff\n"
            "view, run B against run A, the other views showing B (b: A).\n\n"
            "  --theme NAME|PATH  colour theme (default: $SCOPE_THEME, else theme: in\n"
            "                     $XDG_CONFIG_HOME/scope/config.yaml, else 'default')\n"
            "  --iteration NAME   the phase that marks one iteration (default 'iteration')\n"
            "  --view NAME        open on %s\n"
            "                     (default: phases; lines for a run without phases)\n"
            "  --attempt N        the run's Nth attempt, 1 the oldest (default: the newest;\n"
            "                     A in the browser shows the next; of B with two runs)\n"
            "  --attempt-a N      with two runs: that attempt of A (default: the newest)\n"
            "  --confidence PCT   with two runs: of the Diff view's intervals (default 95)\n"
            "  --source-dir DIR   where else to look for source files (after the path\n"
            "                     recorded and the project folder)\n"
            "  --refresh SECONDS  how often a run in progress is read again by itself\n"
            "                     (default 5; 0: only when r is pressed)\n"
            "  --keys KEYS        headless: replay KEYS ('jj<Enter>/mcts<Enter>P'; names in\n"
            "                     <>: <Up> <Down> <Enter> <Esc> <Tab> <PgDn> <resize:WxH>, ...;\n"
            "                     <refresh>: the refresh timer fires; <wait:PATH>: wait\n"
            "                     until PATH exists)\n"
            "  --size WxH         headless: the screen's size (default 80x24)\n"
            "  --print            headless: print the final screen as text\n\n"
            "Keys: ? in the browser lists them.  NO_COLOR=1 turns colour off.\n"
            "Without a terminal, 'scope-tui report RUN' prints the same figures as text.\n",
            tui_usage, view_names(views, sizeof views, " or "));
}

static int bad(const char *fmt, const char *arg) {
    fputs("scope-tui: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (see 'scope-tui --help')\n", stderr);
    return 2;
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- timings for the benchmark --------------------------------------------------- */

/* With $SCOPE_TUI_TIMINGS naming a file, the browser appends how long its
 * first screen took (from main) and how long each key took to handle and
 * draw: bench/bench_tui.sh reads them.  Costs nothing when unset. */
typedef struct timings {
    FILE *f;
    double start_ms;
} timings;

static void timing(timings *t, const char *what, double ms) {
    if (t->f)
        fprintf(t->f, "%s %.3f\n", what, ms);
}

/* ---- the screen ------------------------------------------------------------------------ */

static void refresh_screen(app *a) {
    if (!a->model)
        return; /* a reload failed and left nothing to show: the app quits */
    app_draw(a);
    if (a->searching && !a->headless) {
        curs_set(1);
        move(a->rows - 1, 1 + (int)strlen(a->query));
    } else if (!a->headless) {
        curs_set(0);
    }
    if (!a->headless)
        refresh();
}

/* ---- progress of long work (src/base/progress.h) ---------------------------------------- */

/* While the browser holds the terminal, long work (symbolizing when Lines
 * first opens, even before the first screen when Lines is the first view;
 * reading a run again) shows its progress on the screen's last line, drawn
 * at once and alone (the views may not be built yet); the caller draws the
 * whole screen when the work is done. */
static void show_in_status(void *ctx, const char *line) {
    const app *a = ctx;
    if (!line[0] || a->rows < 1 || a->cols < 2)
        return;
    char shown[256];
    snprintf(shown, sizeof shown, "%s ...", line);
    move(a->rows - 1, 0);
    clrtoeol();
    addnstr(shown, a->cols - 1);
    refresh();
}

/* "<wait:PATH>" among headless keys: waits until PATH exists (at most
 * WAIT_KEY_S), so that a test can change the run between two keys, say a
 * recording program's next frames before a <refresh>.  Returns 1 when *p
 * was one (consumed), 0 when not, -1 with err when it never came. */
#define WAIT_KEY_S 60
static int wait_key(const char **p, char *err, size_t errlen) {
    if (strncmp(*p, "<wait:", 6) != 0)
        return 0;
    const char *end = strchr(*p + 6, '>');
    char path[4096];
    size_t n = end ? (size_t)(end - (*p + 6)) : 0;
    if (!end || n == 0 || n >= sizeof path) {
        snprintf(err, errlen, "--keys: <wait:PATH> needs a path and a '>'");
        return -1;
    }
    memcpy(path, *p + 6, n);
    path[n] = '\0';
    *p = end + 1;
    for (int i = 0; i < WAIT_KEY_S * 100; i++) {
        if (access(path, F_OK) == 0)
            return 1;
        struct timespec ts = {0, 10000000L};
        nanosleep(&ts, NULL);
    }
    snprintf(err, errlen, "--keys: <wait:%.200s>: it did not appear within %d s", path, WAIT_KEY_S);
    return -1;
}

static int run_headless(app *a, const char *keys, int cols, int rows, int print, timings *t) {
    FILE *null_out = fopen("/dev/null", "w"), *null_in = fopen("/dev/null", "r");
    if (!null_out || !null_in) {
        fprintf(stderr, "scope-tui: cannot open /dev/null: %s\n", strerror(errno));
        return 2;
    }
    /* Any terminal description will do: nothing is sent to it.  The size
     * is ours, not the environment's. */
    use_env(FALSE);
    const char *types[] = {"xterm", "vt100", "ansi", "dumb"};
    SCREEN *scr = NULL;
    for (size_t i = 0; i < sizeof types / sizeof types[0] && !scr; i++)
        scr = newterm(types[i], null_out, null_in);
    if (!scr) {
        fputs("scope-tui: headless mode needs a terminfo entry (xterm, vt100, ansi or dumb); "
              "install ncurses-base\n",
              stderr);
        return 2;
    }
    resize_term(rows, cols);
    a->rows = rows;
    a->cols = cols;
    a->headless = 1;
    style_init(&a->theme, 0);
    int rc = 0;
    if (app_init(a) < 0) {
        fputs("scope-tui: out of memory\n", stderr);
        rc = 2;
    }
    refresh_screen(a);
    timing(t, "first-screen", now_ms() - t->start_ms);
    const char *p = keys ? keys : "";
    char err[300];
    while (rc == 0 && !a->quit) {
        int waited = wait_key(&p, err, sizeof err);
        if (waited < 0) {
            fprintf(stderr, "scope-tui: %s\n", err);
            rc = 2;
            break;
        }
        if (waited)
            continue;
        int kc = 0, kr = 0, is_char;
        int key = keymap_parse_key(&p, &kc, &kr, &is_char, err, sizeof err);
        if (key == 0)
            break;
        if (key < 0) {
            fprintf(stderr, "scope-tui: %s\n", err);
            rc = 2;
            break;
        }
        double t0 = now_ms();
        if (key == KEY_RESIZE) {
            resize_term(kr, kc);
            a->rows = kr;
            a->cols = kc;
        }
        if (key == KEYMAP_REFRESH_TIMER && !is_char)
            app_refresh_tick(a);
        else if (is_char && key >= 128)
            app_char(a, (unsigned)key);
        else
            app_key(a, key);
        refresh_screen(a);
        timing(t, "key", now_ms() - t0);
    }
    if (rc == 0 && print && screen_text_write(stdscr, stdout) < 0) {
        fprintf(stderr, "scope-tui: cannot write the screen: %s\n", strerror(errno));
        rc = 1;
    }
    endwin();
    delscreen(scr);
    fclose(null_out);
    fclose(null_in);
    return rc;
}

static int run_terminal(app *a, timings *t) {
    const char *term = getenv("TERM");
    if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
        fprintf(stderr,
                "scope-tui: the browser needs a terminal (std%s is not one); "
                "'scope-tui report %s' prints the same figures as text\n",
                isatty(STDIN_FILENO) ? "out" : "in", a->run_dir);
        return 2;
    }
    if (!term || !*term) {
        fprintf(stderr,
                "scope-tui: TERM is not set, so the terminal's type is unknown; set it "
                "(TERM=xterm-256color), or 'scope-tui report %s' prints the same "
                "figures as text\n",
                a->run_dir);
        return 2;
    }
    /* Asked first of setupterm, which fails cleanly: newterm with an
     * unknown type leaves what it allocated behind. */
    int term_err = 0;
    SCREEN *scr = NULL;
    int addressable = 0;
    if (setupterm(term, STDOUT_FILENO, &term_err) == OK) {
        /* A terminal that cannot move its cursor (TERM=dumb) would get
         * every screen as a stream of garbage: refused as an unknown one. */
        char *cup = tigetstr("cup");
        addressable = cup && cup != (char *)-1;
        del_curterm(cur_term);
        if (addressable)
            scr = newterm(NULL, stdout, stdin);
    }
    if (!scr) {
        char shown[128];
        scope_escape((const uint8_t *)term, strlen(term), shown, sizeof shown, 0);
        fprintf(stderr,
                "scope-tui: %s TERM '%s'%s; try TERM=xterm-256color, or 'scope-tui report %s' "
                "prints the same figures as text\n",
                term_err == 1 && !addressable ? "the browser cannot draw on"
                                              : "this system has no terminfo entry for",
                shown, term_err == 1 && !addressable ? ", which cannot move the cursor" : "",
                a->run_dir);
        return 2;
    }
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    set_escdelay(25);
    /* Mouse off: the terminal's own selection keeps working for copying. */
    mousemask(0, NULL);
    curs_set(0);
    getmaxyx(stdscr, a->rows, a->cols);
    progress_set_sink(show_in_status, a); /* stderr lies under the screen from here on */
    const char *no_color = getenv("NO_COLOR");
    style_init(&a->theme, !(no_color && *no_color));
    if (app_init(a) < 0) {
        progress_set_sink(NULL, NULL);
        endwin();
        delscreen(scr);
        fputs("scope-tui: out of memory\n", stderr);
        return 2;
    }
    refresh_screen(a);
    timing(t, "first-screen", now_ms() - t->start_ms);
    /* A run in progress is read again every refresh_ms after its last
     * reading (r's included); keys wait for the timer no longer than that. */
    unsigned loads = a->loads;
    double due = now_ms() + a->refresh_ms;
    while (!a->quit) {
        if (a->loads != loads) {
            loads = a->loads;
            due = now_ms() + a->refresh_ms;
        }
        double left = due - now_ms();
        timeout(app_refreshing(a) ? (left > 0 ? (int)left + 1 : 0) : -1);
        wint_t wc;
        int kind = get_wch(&wc);
        if (kind == ERR) {
            if (app_refreshing(a) && now_ms() >= due) {
                app_refresh_tick(a);
                due = now_ms() + a->refresh_ms; /* also when a search put it off */
                refresh_screen(a);
            }
            continue;
        }
        double t0 = now_ms();
        int key = (int)wc;
        if (kind == KEY_CODE_YES && wc == KEY_RESIZE)
            getmaxyx(stdscr, a->rows, a->cols);
        if (kind == OK && wc >= 128)
            app_char(a, (unsigned)wc);
        else
            app_key(a, key);
        refresh_screen(a);
        timing(t, "key", now_ms() - t0);
    }
    progress_set_sink(NULL, NULL);
    endwin();
    delscreen(scr);
    return 0;
}

/* ---- the command ---------------------------------------------------------------------------- */

int tui_main(int argc, char **argv) {
    timings t = {.start_ms = now_ms()};
    const char *dir = NULL, *dir_a = NULL, *theme_arg = NULL, *keys = NULL, *view_name = NULL,
               *source_dir = NULL;
    int cols = 80, rows = 24, print = 0, headless = 0, refresh_ms = APP_REFRESH_MS;
    run_options opt = {0}, opt_a = {0};
    double confidence = 0.95;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(s, "--print")) {
            print = headless = 1;
        } else if (!strcmp(s, "--theme") || !strcmp(s, "--iteration") || !strcmp(s, "--keys") ||
                   !strcmp(s, "--size") || !strcmp(s, "--view") || !strcmp(s, "--source-dir") ||
                   !strcmp(s, "--refresh") || !strcmp(s, "--attempt") ||
                   !strcmp(s, "--attempt-a") || !strcmp(s, "--confidence")) {
            if (!val)
                return bad("%s needs a value", s);
            i++;
            if (!strcmp(s, "--theme"))
                theme_arg = val;
            else if (!strcmp(s, "--iteration"))
                opt.iteration_name = val;
            else if (!strcmp(s, "--view"))
                view_name = val;
            else if (!strcmp(s, "--confidence")) {
                char *end;
                double pct = strtod(val, &end);
                if (end != val && *end == '%')
                    end++;
                if (end == val || *end || !(pct >= 50 && pct <= 99.9))
                    return bad("--confidence: expected a percentage from 50 to 99.9, got '%s'",
                               val);
                confidence = pct / 100;
            } else if (!strcmp(s, "--attempt") || !strcmp(s, "--attempt-a")) {
                char *end;
                errno = 0;
                unsigned long long n = strtoull(val, &end, 10);
                if (errno || end == val || *end || val[0] == '-' || n < 1 || n > 1000000)
                    return bad("--attempt: expected a number from 1 (the oldest attempt), got '%s'",
                               val);
                (s[9] ? &opt_a : &opt)->attempt = (size_t)n; /* "--attempt-a" */
            } else if (!strcmp(s, "--source-dir"))
                source_dir = val;
            else if (!strcmp(s, "--keys"))
                keys = val, headless = 1;
            else if (!strcmp(s, "--refresh")) {
                char *end;
                double sec = strtod(val, &end);
                if (end == val || *end || !(sec == 0 || (sec >= 0.1 && sec <= 3600)))
                    return bad("--refresh: expected 0 or seconds from 0.1 to 3600, got '%s'", val);
                refresh_ms = (int)(sec * 1000 + 0.5);
            } else {
                char x;
                if (sscanf(val, "%dx%d%c", &cols, &rows, &x) != 2 || cols < 1 || rows < 1 ||
                    cols > 1000 || rows > 1000)
                    return bad("--size: expected WxH such as 120x40, got '%s'", val);
                headless = 1;
            }
        } else if (s[0] == '-' && s[1]) {
            return bad("unknown option '%s'", s);
        } else if (dir_a) {
            return bad("two runs at most (A B, compared): '%s' is one too many", s);
        } else if (dir) {
            dir_a = dir; /* two runs: the first is the base, A */
            dir = s;
        } else {
            dir = s;
        }
    }
    if (!dir)
        return bad("%s", "no run directory given");
    /* One run opens on Phases, two on Diff, unless --view names another. */
    size_t first = view_of_ops(dir_a ? &diff_view_ops : &phases_view_ops);
    if (view_name && (first = view_named(view_name)) == SIZE_MAX) {
        char names[256], fmt[320];
        snprintf(fmt, sizeof fmt, "--view: no view '%%s' (%s)",
                 view_names(names, sizeof names, ", "));
        return bad(fmt, view_name);
    }

    struct stat sst;
    if (source_dir && (stat(source_dir, &sst) != 0 || !S_ISDIR(sst.st_mode)))
        return bad("--source-dir: '%s' is not a folder", source_dir);

    static app a;
    a = (app){.run_dir = dir,
              .source_dir = source_dir,
              .opt = opt,
              .current = first,
              .refresh_ms = refresh_ms,
              .diff = dir_a != NULL,
              .other = {.run_dir = dir_a, .opt = opt_a},
              .confidence = confidence};
    char err[1200];
    if (theme_resolve(theme_arg, &a.theme, err, sizeof err) < 0) {
        fprintf(stderr, "scope-tui: %s\n", err);
        return 2;
    }
    const char *cs = nl_langinfo(CODESET);
    style_utf8 = cs && !strcmp(cs, "UTF-8");

    char msg[1200];
    if (run_follow_open(&a.follow, dir, &a.opt, &a.model, msg, sizeof msg) != RUN_OK) {
        if (!strchr(dir, '/') && access(dir, F_OK) != 0) {
            char shown[256];
            scope_escape((const uint8_t *)dir, strlen(dir), shown, sizeof shown, 0);
            fprintf(stderr,
                    "scope-tui: '%s' is neither a command nor a run directory "
                    "(see 'scope-tui --help')\n",
                    shown);
        } else {
            fprintf(stderr, "scope-tui: %s\n", msg);
        }
        return 2;
    }
    /* The base of two runs is read whole, once: r reads the run shown. */
    if (dir_a && run_load(dir_a, &a.other.opt, &a.other.model, msg, sizeof msg) != RUN_OK) {
        fprintf(stderr, "scope-tui: %s\n", msg);
        run_free(a.model);
        run_follow_close(a.follow);
        return 2;
    }
    /* A run without phases (scope-tui record of a program never
     * instrumented) has nothing to show on Phases: it opens on its lines. */
    if (!view_name && !dir_a && run_opens_on_lines(a.model))
        a.current = view_named("lines");
    const char *tpath = getenv("SCOPE_TUI_TIMINGS");
    if (tpath && *tpath)
        t.f = fopen(tpath, "a");
    if (t.f) /* a line at a time, so a harness can wait for the first screen */
        setvbuf(t.f, NULL, _IOLBF, 0);
    int rc = headless ? run_headless(&a, keys, cols, rows, print, &t) : run_terminal(&a, &t);
    app_release(&a);
    if (!a.model) {
        fprintf(stderr, "scope-tui: %s\n", a.message);
        rc = 1;
    }
    run_free(a.model);
    lines_sym_free(a.symbolizer); /* after the model, which symbolized with it */
    run_follow_close(a.follow);
    run_free(a.other.model);
    lines_sym_free(a.other.symbolizer);
    run_follow_close(a.other.follow);
    if (t.f)
        fclose(t.f);
    return rc;
}
