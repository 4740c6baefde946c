/* Themes: the shipped files, errors with their line and column, how a theme
 * is chosen, and how colours degrade to what a terminal can show. */
#define _GNU_SOURCE /* nftw */
#include "theme.h"
#include "unit_util.h"

#include <check.h>
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#define DIRECT 0x1000000

static const theme_color DEF = {THEME_COLOR_DEFAULT, 0};

static theme_color idx(uint32_t i) {
    return (theme_color){THEME_COLOR_INDEX, i};
}

static theme_color rgb(uint32_t v) {
    return (theme_color){THEME_COLOR_RGB, v};
}

/* ---- scratch folders and the environment ---------------------------------- */

static char tmp[1024];      /* this test's scratch folder */
static char xdg[4096];      /* $XDG_CONFIG_HOME */
static char user_dir[4200]; /* $XDG_CONFIG_HOME/scope/themes */
static char cfg[4200];      /* $XDG_CONFIG_HOME/scope/config.yaml */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

/* Each test gets its own folders and an environment that says exactly what
 * the test means: the machine's own ~/.config or $SCOPE_THEME must not
 * change any result. */
static void setup(void) {
    unit_tmpdir(tmp, sizeof tmp);
    char home[4200];
    snprintf(home, sizeof home, "%s/home", tmp);
    snprintf(xdg, sizeof xdg, "%s/config", tmp);
    snprintf(user_dir, sizeof user_dir, "%s/scope/themes", xdg);
    snprintf(cfg, sizeof cfg, "%s/scope/config.yaml", xdg);
    char scope_dir[4200];
    snprintf(scope_dir, sizeof scope_dir, "%s/scope", xdg);
    ck_assert_int_eq(mkdir(home, 0700), 0);
    ck_assert_int_eq(mkdir(xdg, 0700), 0);
    ck_assert_int_eq(mkdir(scope_dir, 0700), 0);
    ck_assert_int_eq(mkdir(user_dir, 0700), 0);
    setenv("HOME", home, 1);
    setenv("XDG_CONFIG_HOME", xdg, 1);
    unsetenv("SCOPE_THEME");
}

static void teardown(void) {
    nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *tmp_file(const char *name, const char *text) {
    static char path[4][4200];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", tmp, name);
    if (text)
        write_file(p, text);
    return p;
}

static int ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

/* ---- the shipped themes ----------------------------------------------------- */

/* The .yaml files of the source tree's themes/ folder, sorted. */
static int shipped(char names[][256], int max) {
    DIR *d = opendir(THEMES_SOURCE_DIR);
    ck_assert_msg(d != NULL, "cannot open %s", THEMES_SOURCE_DIR);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len > 5 && e->d_name[0] != '.' && strcmp(e->d_name + len - 5, ".yaml") == 0) {
            ck_assert_int_lt(n, max);
            snprintf(names[n++], 256, "%s", e->d_name);
        }
    }
    closedir(d);
    qsort(names, (size_t)n, 256, (int (*)(const void *, const void *))strcmp);
    return n;
}

/* Which elements the file itself names under styles:, read with libyaml
 * directly: the loader fills the rest in from the built-in theme, so its
 * result cannot tell. */
static void elements_in_file(const char *path, int count[TH_ELEMENT_COUNT]) {
    memset(count, 0, sizeof(int) * TH_ELEMENT_COUNT);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    yaml_parser_t p;
    yaml_document_t doc;
    ck_assert(yaml_parser_initialize(&p));
    yaml_parser_set_input_file(&p, f);
    ck_assert_msg(yaml_parser_load(&p, &doc), "%s does not parse", path);
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    ck_assert(root && root->type == YAML_MAPPING_NODE);
    for (yaml_node_pair_t *kv = root->data.mapping.pairs.start; kv < root->data.mapping.pairs.top;
         kv++) {
        yaml_node_t *k = yaml_document_get_node(&doc, kv->key);
        yaml_node_t *v = yaml_document_get_node(&doc, kv->value);
        if (strcmp((char *)k->data.scalar.value, "styles") != 0)
            continue;
        ck_assert(v->type == YAML_MAPPING_NODE);
        for (yaml_node_pair_t *s = v->data.mapping.pairs.start; s < v->data.mapping.pairs.top;
             s++) {
            yaml_node_t *ek = yaml_document_get_node(&doc, s->key);
            for (int e = 0; e < TH_ELEMENT_COUNT; e++)
                if (strcmp((char *)ek->data.scalar.value, theme_element_name(e)) == 0)
                    count[e]++;
        }
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&p);
    fclose(f);
}

START_TEST(element_names_are_complete) {
    for (int e = 0; e < TH_ELEMENT_COUNT; e++) {
        ck_assert_ptr_nonnull(theme_element_name(e));
        for (int f = 0; f < e; f++)
            ck_assert_str_ne(theme_element_name(e), theme_element_name(f));
    }
    ck_assert_str_eq(theme_element_name(TH_NORMAL), "normal");
    ck_assert_str_eq(theme_element_name(TH_TAB_ACTIVE), "tab_active");
    ck_assert_str_eq(theme_element_name(TH_BAR_EMPTY), "bar_empty");
    ck_assert_str_eq(theme_element_name(TH_STATUS_KEY), "status_key");
    ck_assert_ptr_null(theme_element_name(TH_ELEMENT_COUNT));
}
END_TEST

START_TEST(every_shipped_theme_loads_whole_and_keeps_text_visible) {
    char names[64][256];
    int n = shipped(names, 64);
    const char *must[] = {"default.yaml", "high-contrast.yaml", "light.yaml", "mono.yaml"};
    for (size_t m = 0; m < sizeof must / sizeof *must; m++) {
        int found = 0;
        for (int i = 0; i < n; i++)
            found |= strcmp(names[i], must[m]) == 0;
        ck_assert_msg(found, "themes/%s is missing", must[m]);
    }
    for (int i = 0; i < n; i++) {
        char path[4400], err[1024] = "";
        snprintf(path, sizeof path, "%s/%.255s", THEMES_SOURCE_DIR, names[i]);
        theme t;
        ck_assert_msg(theme_load_file(path, &t, err, sizeof err) == 0, "%s", err);
        /* The name inside matches the file, so --theme NAME shows NAME. */
        char base[256];
        snprintf(base, sizeof base, "%.*s", (int)strlen(names[i]) - 5, names[i]);
        ck_assert_str_eq(t.name, base);
        ck_assert_str_eq(t.path, path);

        int count[TH_ELEMENT_COUNT];
        elements_in_file(path, count);
        for (int e = 0; e < TH_ELEMENT_COUNT; e++)
            ck_assert_msg(count[e] == 1, "%s names %s %d times (want exactly once)", names[i],
                          theme_element_name(e), count[e]);

        /* No element may lose its text to its own background, however few
         * colours the terminal has. */
        const int ncolors[] = {8, 16, 256, DIRECT};
        for (int e = 0; e < TH_ELEMENT_COUNT; e++)
            for (size_t k = 0; k < sizeof ncolors / sizeof *ncolors; k++) {
                int fg = theme_color_for(t.style[e].fg, ncolors[k]);
                int bg = theme_color_for(t.style[e].bg, ncolors[k]);
                ck_assert_msg(fg != bg || fg == -1,
                              "%s: %s has fg and bg both %d on a %d-colour terminal", names[i],
                              theme_element_name(e), fg, ncolors[k]);
            }
    }
}
END_TEST

static int style_eq(const theme_style *a, const theme_style *b) {
    return a->fg.kind == b->fg.kind && a->fg.value == b->fg.value && a->bg.kind == b->bg.kind &&
           a->bg.value == b->bg.value && a->attrs == b->attrs;
}

START_TEST(default_yaml_is_the_builtin_theme) {
    /* A file that gives no style shows the built-in table. */
    theme builtin, file;
    char err[1024] = "";
    ck_assert_msg(theme_load_file(tmp_file("empty-styles.yaml", "styles: {}\n"), &builtin, err,
                                  sizeof err) == 0,
                  "%s", err);
    ck_assert_str_eq(builtin.name, "empty-styles"); /* no name: the file's base name */
    ck_assert_msg(theme_load_file(THEMES_SOURCE_DIR "/default.yaml", &file, err, sizeof err) == 0,
                  "%s", err);
    ck_assert_str_eq(file.name, "default");
    for (int e = 0; e < TH_ELEMENT_COUNT; e++)
        ck_assert_msg(style_eq(&builtin.style[e], &file.style[e]),
                      "%s differs between themes/default.yaml and the built-in theme",
                      theme_element_name(e));

    /* Spot checks of what the file says, in each colour form. */
    ck_assert_int_eq(file.style[TH_HEADER].fg.kind, THEME_COLOR_INDEX);
    ck_assert_uint_eq(file.style[TH_HEADER].fg.value, 15); /* bright-white */
    ck_assert_uint_eq(file.style[TH_HEADER].bg.value, 4);  /* blue */
    ck_assert_uint_eq(file.style[TH_HEADER].attrs, THEME_BOLD);
    ck_assert_int_eq(file.style[TH_SELECTED].bg.kind, THEME_COLOR_RGB);
    ck_assert_uint_eq(file.style[TH_SELECTED].bg.value, 0x5fafd7);
    ck_assert_uint_eq(file.style[TH_DIM].fg.value, 244);
    ck_assert_int_eq(file.style[TH_NORMAL].fg.kind, THEME_COLOR_DEFAULT);
    ck_assert_int_eq(file.style[TH_NORMAL].bg.kind, THEME_COLOR_DEFAULT);
}
END_TEST

START_TEST(a_partial_theme_keeps_the_rest_and_replaces_whole_styles) {
    theme t, builtin;
    char err[1024] = "";
    ck_assert(theme_load_file(tmp_file("b.yaml", "styles: {}\n"), &builtin, err, sizeof err) == 0);
    const char *text = "name: \"partial one\"\n"
                       "styles:\n"
                       "  header: { fg: RED }\n"
                       "  dim:\n"
                       "    fg: \"#0A0b0C\"\n"
                       "    attrs: [dim, italic, underline, reverse, bold]\n"
                       "  match: {}\n";
    ck_assert_msg(theme_load_file(tmp_file("p.yaml", text), &t, err, sizeof err) == 0, "%s", err);
    ck_assert_str_eq(t.name, "partial one");
    /* header: fg given, bg and attrs not: default colour, no attributes. */
    ck_assert(style_eq(&t.style[TH_HEADER], &(theme_style){idx(1), DEF, 0}));
    ck_assert(style_eq(&t.style[TH_DIM], &(theme_style){rgb(0x0a0b0c), DEF,
                                                        THEME_DIM | THEME_ITALIC | THEME_UNDERLINE |
                                                            THEME_REVERSE | THEME_BOLD}));
    ck_assert(style_eq(&t.style[TH_MATCH], &(theme_style){DEF, DEF, 0}));
    ck_assert(style_eq(&t.style[TH_SELECTED], &builtin.style[TH_SELECTED]));
    ck_assert(style_eq(&t.style[TH_STATUS], &builtin.style[TH_STATUS]));
}
END_TEST

/* ---- broken files ----------------------------------------------------------- */

struct broken {
    const char *what, *text;
    const char *at;   /* "LINE:COLUMN: " */
    const char *says; /* the message after it, exactly */
};

static const struct broken broken_files[] = {
    {"unclosed flow mapping",
     "name: x\nstyles:\n  header: { fg: red, bg: blue\n  dim: { fg: 244 }\n", "4:6: ",
     "YAML syntax error: did not find expected ',' or '}' (while parsing a flow mapping at line "
     "3, column 11)"},
    {"bad indentation", "name: x\nstyles:\n  header: { fg: red }\n dim: { fg: 244 }\n", "4:2: ",
     "YAML syntax error: did not find expected key (while parsing a block mapping at line 1, "
     "column 1)"},
    {"unknown element", "name: x\nstyles:\n  headr: { fg: red }\n", "3:3: ",
     "unknown element 'headr' (known: normal, header, tab, tab_active, columns, selected, role, "
     "counter, dim, bar, bar_empty, match, filter, warn, error, status, status_key, slower, "
     "faster)"},
    {"unknown colour", "name: x\nstyles:\n  normal: {}\n  header:  { fg: blu }\n",
     "4:18: ", "unknown colour 'blu' (a name such as red or bright-blue, 0-255, or \"#rrggbb\")"},
    {"index 256", "styles:\n  dim: { fg: 256 }\n",
     "2:14: ", "colour index 256 is out of range (0-255)"},
    {"bad hex digit", "styles:\n  selected: { bg: \"#12345g\" }\n",
     "2:19: ", "bad colour '#12345g' (\"#rrggbb\" takes six hex digits, as in \"#5fafd7\")"},
    {"unquoted #rrggbb", "styles:\n  dim:\n    fg: #5fafd7\n",
     "3:8: ", "fg has no colour (\"#rrggbb\" needs quotes: an unquoted # starts a comment)"},
    {"unknown attr", "styles:\n  header: { attrs: [bold, blink] }\n",
     "2:27: ", "unknown attribute 'blink' (known: bold, dim, underline, reverse, italic)"},
    {"attrs not a list", "styles:\n  header: { attrs: bold }\n",
     "2:20: ", "attrs must be a list such as [bold, underline], found 'bold'"},
    {"styles as a sequence", "name: x\nstyles:\n  - header\n  - dim\n",
     "3:3: ", "styles must be a mapping of element names to styles, found a list"},
    {"style as a scalar", "styles:\n  header: red\n", "2:11: ",
     "the style of header must be a mapping such as { fg: white, bg: blue }, found 'red'"},
    {"unknown style key", "styles:\n  header: { fg: red, blink: true }\n",
     "2:22: ", "unknown style key 'blink' in header (known: fg, bg, attrs)"},
    {"unknown top-level key", "name: x\ncolours:\n  header: { fg: red }\n",
     "2:1: ", "unknown key 'colours' (known: name, styles)"},
    {"element given twice", "styles:\n  dim: { fg: 244 }\n  dim: { fg: 245 }\n",
     "3:3: ", "dim is given twice (first at line 2)"},
    {"root a list", "- name\n",
     "1:1: ", "a theme is a mapping with name: and styles:, found a list"},
    {"name too long",
     "name: 0123456789012345678901234567890123456789012345678901234567890123456789\n", "1:7: ",
     "name must be a line of text of 1 to 63 bytes, found "
     "'012345678901234567890123456789012345678901234567...'"},
    {"two documents", "name: a\n---\nname: b\n",
     "3:1: ", "a second YAML document: the file must hold only one"},
    {"empty file", "", "1:1: ", "the file is empty (a theme has name: and styles:)"},
    {"only comments", "# nothing yet\n\n",
     "1:1: ", "the file is empty (a theme has name: and styles:)"},
    {"not UTF-8", "name: x\nstyles:\n  dim: { fg: \xff }\n",
     "3:14: ", "not valid text: invalid leading UTF-8 octet (0xff)"},
};

START_TEST(broken_file_names_line_column_and_problem) {
    const struct broken *b = &broken_files[_i];
    const char *path = tmp_file("x.yaml", b->text);
    theme t;
    memset(&t, 0x5a, sizeof t);
    char err[1024] = "", want[2048];
    ck_assert_msg(theme_load_file(path, &t, err, sizeof err) == -1, "%s: loaded", b->what);
    snprintf(want, sizeof want, "%s:%s%s", path, b->at, b->says);
    ck_assert_msg(strcmp(err, want) == 0, "%s:\n got  %s\n want %s", b->what, err, want);
    /* A failed load leaves the caller's theme as it was. */
    ck_assert_uint_eq(((unsigned char *)&t)[0], 0x5a);
    ck_assert_uint_eq(((unsigned char *)&t)[sizeof t - 1], 0x5a);
}
END_TEST

START_TEST(unreadable_paths_are_errors_at_1_1) {
    char err[1024] = "", want[4400];
    theme t;
    const char *missing = tmp_file("nope.yaml", NULL);
    ck_assert_int_eq(theme_load_file(missing, &t, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:1:1: cannot open: No such file or directory", missing);
    ck_assert_str_eq(err, want);

    ck_assert_int_eq(theme_load_file(tmp, &t, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:1:1: is a directory, not a YAML file", tmp);
    ck_assert_str_eq(err, want);

    /* A small error buffer gets a cut, terminated message. */
    char small[16];
    ck_assert_int_eq(theme_load_file(tmp, &t, small, sizeof small), -1);
    ck_assert_uint_eq(strlen(small), sizeof small - 1);
    ck_assert_int_eq(theme_load_file(tmp, &t, NULL, 0), -1);
}
END_TEST

/* ---- choosing a theme --------------------------------------------------------- */

static void resolve_ok(const char *cli, theme *t) {
    char err[2048] = "";
    ck_assert_msg(theme_resolve(cli, t, err, sizeof err) == 0, "theme_resolve(%s): %s",
                  cli ? cli : "NULL", err);
}

static const char *user_theme(const char *name, const char *text) {
    static char path[4400];
    snprintf(path, sizeof path, "%s/%s.yaml", user_dir, name);
    write_file(path, text);
    return path;
}

START_TEST(resolve_defaults_to_default) {
    theme t;
    resolve_ok(NULL, &t);
    ck_assert_str_eq(t.name, "default");
    ck_assert_msg(ends_with(t.path, "/scope/themes/default.yaml") ||
                      ends_with(t.path, "/themes/default.yaml"),
                  "%s", t.path);
    /* A missing config file is not an error, nor is an empty one. */
    write_file(cfg, "# no settings yet\n");
    resolve_ok(NULL, &t);
    ck_assert_str_eq(t.name, "default");
}
END_TEST

START_TEST(resolve_cli_path_and_name) {
    theme t;
    const char *p = tmp_file("mine.yaml", "name: mine\nstyles:\n  dim: { fg: red }\n");
    resolve_ok(p, &t);
    ck_assert_str_eq(t.name, "mine");
    ck_assert_str_eq(t.path, p);
    ck_assert(style_eq(&t.style[TH_DIM], &(theme_style){idx(1), DEF, 0}));

    /* Ending in .yaml makes it a path even without a '/'. */
    ck_assert_int_eq(chdir(tmp), 0);
    resolve_ok("mine.yaml", &t);
    ck_assert_str_eq(t.name, "mine");
    ck_assert_str_eq(t.path, "mine.yaml");

    resolve_ok("light", &t);
    ck_assert_str_eq(t.name, "light");
    ck_assert_msg(ends_with(t.path, "/themes/light.yaml"), "%s", t.path);
}
END_TEST

START_TEST(resolve_user_theme_hides_the_shipped_one) {
    theme t;
    const char *p = user_theme("light", "name: my-light\nstyles:\n  normal: { fg: black }\n");
    resolve_ok("light", &t);
    ck_assert_str_eq(t.name, "my-light");
    ck_assert_str_eq(t.path, p);
    ck_assert_uint_eq(t.style[TH_NORMAL].fg.value, 0);

    /* ~/.config when XDG_CONFIG_HOME is unset. */
    unsetenv("XDG_CONFIG_HOME");
    char dir[4400];
    snprintf(dir, sizeof dir, "%s/.config", getenv("HOME"));
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    snprintf(dir, sizeof dir, "%s/.config/scope", getenv("HOME"));
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    snprintf(dir, sizeof dir, "%s/.config/scope/themes", getenv("HOME"));
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    snprintf(dir, sizeof dir, "%s/.config/scope/themes/light.yaml", getenv("HOME"));
    write_file(dir, "name: home-light\n");
    resolve_ok("light", &t);
    ck_assert_str_eq(t.name, "home-light");
}
END_TEST

START_TEST(resolve_precedence_cli_env_config_default) {
    theme t;
    write_file(cfg, "theme: light\n");
    resolve_ok(NULL, &t);
    ck_assert_str_eq(t.name, "light");

    setenv("SCOPE_THEME", "", 1); /* empty counts as unset */
    resolve_ok(NULL, &t);
    ck_assert_str_eq(t.name, "light");

    setenv("SCOPE_THEME", "mono", 1);
    resolve_ok(NULL, &t);
    ck_assert_str_eq(t.name, "mono");

    resolve_ok("high-contrast", &t);
    ck_assert_str_eq(t.name, "high-contrast");

    unsetenv("SCOPE_THEME");
    unlink(cfg);
    resolve_ok(NULL, &t);
    ck_assert_str_eq(t.name, "default");

    /* A relative path in config.yaml is relative to the config folder. */
    char p[4400];
    snprintf(p, sizeof p, "%s/scope/mine.yaml", xdg);
    write_file(p, "name: cfg-mine\n");
    write_file(cfg, "# chosen theme\ntheme: mine.yaml\n");
    resolve_ok(NULL, &t);
    ck_assert_str_eq(t.name, "cfg-mine");
    ck_assert_str_eq(t.path, p);
}
END_TEST

START_TEST(resolve_bad_config_names_config_line_and_column) {
    theme t;
    char err[2048] = "", want[8192];
    write_file(cfg, "theme: light\ncolour: red\n");
    ck_assert_int_eq(theme_resolve(NULL, &t, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:2:1: unknown setting 'colour' (known: theme)", cfg);
    ck_assert_str_eq(err, want);

    write_file(cfg, "theme: [light]\n");
    ck_assert_int_eq(theme_resolve(NULL, &t, err, sizeof err), -1);
    snprintf(want, sizeof want,
             "%s:1:8: theme must be a theme name or a path to a .yaml file, found a list", cfg);
    ck_assert_str_eq(err, want);

    write_file(cfg, "theme: {light\n");
    ck_assert_int_eq(theme_resolve(NULL, &t, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:2:1: YAML syntax error:", cfg);
    ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s", err);

    write_file(cfg, "theme: nope\n");
    ck_assert_int_eq(theme_resolve(NULL, &t, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:1:8: unknown theme 'nope' (themes: ", cfg);
    ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s", err);

    /* The command line wins before the config file is even read. */
    resolve_ok("mono", &t);
    ck_assert_str_eq(t.name, "mono");

    /* A broken theme file reports its own position, not the config's. */
    const char *bad = user_theme("broken", "styles:\n  dim: { fg: 999 }\n");
    write_file(cfg, "theme: broken\n");
    ck_assert_int_eq(theme_resolve(NULL, &t, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:2:14: colour index 999 is out of range (0-255)", bad);
    ck_assert_str_eq(err, want);
}
END_TEST

START_TEST(resolve_unknown_name_lists_the_real_names) {
    user_theme("zz-mine", "name: zz\n");
    user_theme("light", "name: my-light\n");
    write_file(tmp_file("config/scope/themes/notes.txt", NULL), "not a theme\n");
    theme t;
    char err[4096] = "";
    ck_assert_int_eq(theme_resolve("nope", &t, err, sizeof err), -1);
    const char *head = "unknown theme 'nope' (themes: ",
               *tail = "; or give a path to a .yaml file)";
    ck_assert_msg(strncmp(err, head, strlen(head)) == 0, "%s", err);
    ck_assert_msg(ends_with(err, tail), "%s", err);

    /* The list: sorted, unique, every shipped and user theme in it, and
     * every name in it one that resolves. */
    char list[4096];
    snprintf(list, sizeof list, "%.*s", (int)(strlen(err) - strlen(head) - strlen(tail)),
             err + strlen(head));
    char names[64][256];
    int n = shipped(names, 64), listed = 0;
    char prev[256] = "";
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name;
         name = strtok_r(NULL, ",", &save)) {
        if (listed)
            ck_assert_msg(*name++ == ' ', "%s", err);
        ck_assert_msg(strcmp(prev, name) < 0, "not sorted or not unique: %s", err);
        snprintf(prev, sizeof prev, "%s", name);
        resolve_ok(name, &t);
        listed++;
    }
    for (int i = 0; i < n; i++) {
        char want[300];
        snprintf(want, sizeof want, "%.*s", (int)strlen(names[i]) - 5, names[i]);
        ck_assert_msg(strstr(err, want), "%s not listed: %s", want, err);
    }
    ck_assert_msg(strstr(err, ", zz-mine"), "%s", err);
    ck_assert_msg(!strstr(err, "notes"), "%s", err);
    ck_assert_int_ge(listed, n + 1);

    setenv("SCOPE_THEME", "nope", 1);
    ck_assert_int_eq(theme_resolve(NULL, &t, err, sizeof err), -1);
    ck_assert_msg(strncmp(err, "$SCOPE_THEME: unknown theme 'nope' (themes: default, ", 53) == 0,
                  "%s", err);

    /* A value from outside stays one line in the message. */
    setenv("SCOPE_THEME", "two\nlines", 1);
    ck_assert_int_eq(theme_resolve(NULL, &t, err, sizeof err), -1);
    ck_assert_msg(strncmp(err, "$SCOPE_THEME: unknown theme 'two\\x0alines' (themes: ", 50) == 0,
                  "%s", err);
    ck_assert_ptr_null(strchr(err, '\n'));

    ck_assert_int_eq(theme_resolve("", &t, err, sizeof err), -1);
    ck_assert_str_eq(err,
                     "empty theme name (give a name such as light, or a path to a .yaml file)");
}
END_TEST

/* ---- colours ------------------------------------------------------------------ */

START_TEST(color_for_known_mappings) {
    /* Pure red: the cube's red at 256, bright red at 16, red at 8. */
    ck_assert_int_eq(theme_color_for(rgb(0xff0000), 256), 196);
    ck_assert_int_eq(theme_color_for(rgb(0xff0000), 16), 9);
    ck_assert_int_eq(theme_color_for(rgb(0xff0000), 8), 1);
    /* Mid grey: the grey ramp at 256, bright black at 16, white at 8 (it
     * is not dark enough to become black). */
    ck_assert_int_eq(theme_color_for(rgb(0x808080), 256), 244);
    ck_assert_int_eq(theme_color_for(idx(244), 16), 8);
    ck_assert_int_eq(theme_color_for(idx(244), 8), 7);
    ck_assert_int_eq(theme_color_for(idx(236), 8), 0); /* #303030 is dark */
    ck_assert_int_eq(theme_color_for(idx(240), 8), 0); /* #585858 too */
    ck_assert_int_eq(theme_color_for(idx(242), 8), 7); /* #6c6c6c is not */
    /* Pale blues stay blue or cyan on 8 colours instead of turning white. */
    ck_assert_int_eq(theme_color_for(rgb(0x5fafd7), 256), 74);
    ck_assert_int_eq(theme_color_for(rgb(0x5fafd7), 16), 6);
    ck_assert_int_eq(theme_color_for(rgb(0x5fafd7), 8), 6);
    ck_assert_int_eq(theme_color_for(rgb(0x87afff), 8), 4);
    ck_assert_int_eq(theme_color_for(rgb(0x87afff), 16), 12);
    /* A near-grey tint is a grey. */
    ck_assert_int_eq(theme_color_for(rgb(0xd0d0e0), 8), 7);
    ck_assert_int_eq(theme_color_for(rgb(0x101018), 8), 0);
    /* Mid and pale colours keep their hue rather than turn grey; a pastel
     * (under a third saturated) counts as a grey. */
    ck_assert_int_eq(theme_color_for(rgb(0x5fd75f), 16), 2);
    ck_assert_int_eq(theme_color_for(rgb(0x5fd75f), 8), 2);
    ck_assert_int_eq(theme_color_for(rgb(0xff8787), 8), 1);
    ck_assert_int_eq(theme_color_for(rgb(0xffafaf), 8), 7);
    ck_assert_int_eq(theme_color_for(rgb(0x005f87), 16), 6);
    /* Greys on 16 colours: the nearest of the four. */
    ck_assert_int_eq(theme_color_for(idx(236), 16), 0);
    ck_assert_int_eq(theme_color_for(idx(240), 16), 8);
    ck_assert_int_eq(theme_color_for(idx(252), 16), 7);
    ck_assert_int_eq(theme_color_for(rgb(0xfafafa), 16), 15);
    /* Other hues on 8 colours. */
    ck_assert_int_eq(theme_color_for(rgb(0xffaf00), 8), 3); /* orange: yellow */
    ck_assert_int_eq(theme_color_for(rgb(0x008700), 8), 2);
    ck_assert_int_eq(theme_color_for(rgb(0x5f00af), 8), 5);
    ck_assert_int_eq(theme_color_for(rgb(0x00005f), 8), 4); /* navy, as a background */
    /* Bright palette colours on 8: their normal versions. */
    for (uint32_t i = 9; i <= 14; i++)
        ck_assert_int_eq(theme_color_for(idx(i), 8), (int)i - 8);
    ck_assert_int_eq(theme_color_for(idx(8), 8), 7);
    ck_assert_int_eq(theme_color_for(idx(15), 8), 7);
    /* Indexes the terminal has are given as they are. */
    for (uint32_t i = 0; i < 256; i++)
        ck_assert_int_eq(theme_color_for(idx(i), 256), (int)i);
    for (uint32_t i = 0; i < 16; i++)
        ck_assert_int_eq(theme_color_for(idx(i), 16), (int)i);
    for (uint32_t i = 0; i < 8; i++)
        ck_assert_int_eq(theme_color_for(idx(i), 8), (int)i);
    /* 88-colour terminals get the 16. */
    ck_assert_int_eq(theme_color_for(rgb(0xff0000), 88), 9);
}
END_TEST

START_TEST(color_for_cube_and_ramp_round_trip) {
    /* xterm's 256 colours: 16..231 the 6x6x6 cube, 232..255 a grey ramp. */
    static const uint32_t level[6] = {0, 95, 135, 175, 215, 255};
    for (uint32_t i = 16; i < 256; i++) {
        uint32_t v;
        if (i < 232) {
            uint32_t k = i - 16;
            v = level[k / 36] << 16 | level[k / 6 % 6] << 8 | level[k % 6];
        } else {
            uint32_t g = 8 + 10 * (i - 232);
            v = g << 16 | g << 8 | g;
        }
        ck_assert_int_eq(theme_color_for(rgb(v), 256), (int)i);
        if (v >= 8)
            ck_assert_int_eq(theme_color_for(idx(i), DIRECT), (int)v);
    }
}
END_TEST

START_TEST(color_for_direct_default_and_none) {
    ck_assert_int_eq(theme_color_for(rgb(0x5fafd7), DIRECT), 0x5fafd7);
    ck_assert_int_eq(theme_color_for(idx(196), DIRECT), 0xff0000);
    ck_assert_int_eq(theme_color_for(idx(1), DIRECT), 0xcd0000);
    ck_assert_int_eq(theme_color_for(idx(12), DIRECT), 0x5c5cff);
    /* Below 8, xterm-direct would send a palette colour: near-black 8. */
    ck_assert_int_eq(theme_color_for(rgb(0x000000), DIRECT), 8);
    ck_assert_int_eq(theme_color_for(idx(0), DIRECT), 8);
    const int ncolors[] = {0, 2, 8, 16, 88, 256, DIRECT};
    for (size_t k = 0; k < sizeof ncolors / sizeof *ncolors; k++)
        ck_assert_int_eq(theme_color_for(DEF, ncolors[k]), -1);
    ck_assert_int_eq(theme_color_for(rgb(0xff0000), 0), -1);
    ck_assert_int_eq(theme_color_for(idx(1), 2), -1);
    ck_assert_int_eq(theme_color_for(idx(300), 256), -1);
}
END_TEST

/* ---- no colour ------------------------------------------------------------------ */

START_TEST(strip_color_reverses_what_stood_out_by_background) {
    theme t;
    resolve_ok("default", &t);
    theme before = t;
    theme_strip_color(&t);
    for (int e = 0; e < TH_ELEMENT_COUNT; e++) {
        ck_assert_int_eq(t.style[e].fg.kind, THEME_COLOR_DEFAULT);
        ck_assert_int_eq(t.style[e].bg.kind, THEME_COLOR_DEFAULT);
        unsigned want = before.style[e].attrs;
        if (before.style[e].bg.kind != THEME_COLOR_DEFAULT)
            want |= THEME_REVERSE;
        ck_assert_msg(t.style[e].attrs == want, "%s: attrs %#x, want %#x", theme_element_name(e),
                      t.style[e].attrs, want);
    }
    ck_assert_uint_eq(t.style[TH_SELECTED].attrs, THEME_REVERSE);
    ck_assert_uint_eq(t.style[TH_HEADER].attrs, THEME_REVERSE | THEME_BOLD);
    ck_assert_uint_eq(t.style[TH_STATUS].attrs, THEME_REVERSE);
    ck_assert_uint_eq(t.style[TH_TAB_ACTIVE].attrs, THEME_REVERSE | THEME_BOLD);
    ck_assert_uint_eq(t.style[TH_DIM].attrs, 0);
    ck_assert_uint_eq(t.style[TH_NORMAL].attrs, 0);
    ck_assert_str_eq(t.name, "default");

    /* mono has no colour to drop: stripping changes nothing. */
    resolve_ok("mono", &t);
    before = t;
    theme_strip_color(&t);
    for (int e = 0; e < TH_ELEMENT_COUNT; e++) {
        ck_assert(style_eq(&t.style[e], &before.style[e]));
        ck_assert_int_eq(t.style[e].fg.kind, THEME_COLOR_DEFAULT);
        ck_assert_int_eq(t.style[e].bg.kind, THEME_COLOR_DEFAULT);
    }

    /* A theme that paints the whole screen: only backgrounds other than the
     * normal text's stood out. */
    const char *p = tmp_file("dark.yaml", "styles:\n"
                                          "  normal:   { fg: 252, bg: \"#1c1c1c\" }\n"
                                          "  dim:      { fg: 244, bg: \"#1c1c1c\" }\n"
                                          "  selected: { fg: black, bg: cyan }\n");
    char err[1024] = "";
    ck_assert_msg(theme_load_file(p, &t, err, sizeof err) == 0, "%s", err);
    theme_strip_color(&t);
    ck_assert_uint_eq(t.style[TH_NORMAL].attrs, 0);
    ck_assert_uint_eq(t.style[TH_DIM].attrs, 0);
    ck_assert_uint_eq(t.style[TH_SELECTED].attrs, THEME_REVERSE);
}
END_TEST

int main(void) {
    Suite *s = suite_create("theme");
    TCase *tc = tcase_create("theme");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, element_names_are_complete);
    tcase_add_test(tc, every_shipped_theme_loads_whole_and_keeps_text_visible);
    tcase_add_test(tc, default_yaml_is_the_builtin_theme);
    tcase_add_test(tc, a_partial_theme_keeps_the_rest_and_replaces_whole_styles);
    tcase_add_loop_test(tc, broken_file_names_line_column_and_problem, 0,
                        (int)(sizeof broken_files / sizeof *broken_files));
    tcase_add_test(tc, unreadable_paths_are_errors_at_1_1);
    tcase_add_test(tc, resolve_defaults_to_default);
    tcase_add_test(tc, resolve_cli_path_and_name);
    tcase_add_test(tc, resolve_user_theme_hides_the_shipped_one);
    tcase_add_test(tc, resolve_precedence_cli_env_config_default);
    tcase_add_test(tc, resolve_bad_config_names_config_line_and_column);
    tcase_add_test(tc, resolve_unknown_name_lists_the_real_names);
    tcase_add_test(tc, color_for_known_mappings);
    tcase_add_test(tc, color_for_cube_and_ramp_round_trip);
    tcase_add_test(tc, color_for_direct_default_and_none);
    tcase_add_test(tc, strip_color_reverses_what_stood_out_by_background);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
