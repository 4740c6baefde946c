/*
 * Colour themes: reading them (libyaml), choosing one, and mapping colours to
 * what a terminal can show.  No ncurses here; ui/style.c does the drawing.
 *
 * A theme file (themes/NAME.yaml, ~/.config/scope/themes/NAME.yaml):
 *
 *     # scope-tui theme
 *     name: default
 *     styles:
 *       header:     { fg: white, bg: blue, attrs: [bold] }
 *       selected:   { fg: black, bg: "#5fafd7" }
 *       dim:        { fg: 244 }
 *
 * Top-level keys: `name` (text, at most 63 bytes; else the file's base name)
 * and `styles`, a mapping from element names (theme_element_name) to styles.
 * A style is a mapping with any of:
 *   fg, bg  a colour name: default, black, red, green, yellow, blue, magenta,
 *           cyan, white, bright-black .. bright-white (palette 8..15); an
 *           xterm palette index 0..255; or "#rrggbb" (quoted: an unquoted #
 *           starts a YAML comment)
 *   attrs   a list of bold, dim, underline, reverse, italic, or []
 * A style given replaces the built-in one whole: a key it leaves out means
 * the terminal's default colour, or no attributes.  An element the file
 * leaves out keeps the built-in default theme's style.
 *
 * Anything else is an error, never skipped: a theme that silently lost a line
 * would look broken with no hint why.  Errors are "PATH:LINE:COLUMN: message"
 * with libyaml's mark of the offending node, so editors can jump to it.
 */
#include "theme.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <scope/vec.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

static const char *const element_names[TH_ELEMENT_COUNT] = {
    [TH_NORMAL] = "normal",
    [TH_HEADER] = "header",
    [TH_TAB] = "tab",
    [TH_TAB_ACTIVE] = "tab_active",
    [TH_COLUMNS] = "columns",
    [TH_SELECTED] = "selected",
    [TH_ROLE] = "role",
    [TH_COUNTER] = "counter",
    [TH_DIM] = "dim",
    [TH_BAR] = "bar",
    [TH_BAR_EMPTY] = "bar_empty",
    [TH_MATCH] = "match",
    [TH_FILTER] = "filter",
    [TH_WARN] = "warn",
    [TH_ERROR] = "error",
    [TH_STATUS] = "status",
    [TH_STATUS_KEY] = "status_key",
    [TH_SLOWER] = "slower",
    [TH_FASTER] = "faster",
};

const char *theme_element_name(enum theme_element e) {
    if ((unsigned)e >= TH_ELEMENT_COUNT)
        return NULL;
    return element_names[e];
}

/* clang-format off */
#define C_DEF    {THEME_COLOR_DEFAULT, 0}
#define C_IDX(n) {THEME_COLOR_INDEX, (n)}
#define C_RGB(v) {THEME_COLOR_RGB, (v)}
/* clang-format on */

/* The built-in theme: what "default" is when no default.yaml can be found,
 * and what elements a file leaves out fall back to.  themes/default.yaml
 * says the same, and test_theme checks that they agree. */
static const theme_style builtin_default[TH_ELEMENT_COUNT] = {
    [TH_NORMAL] = {C_DEF, C_DEF, 0},
    [TH_HEADER] = {C_IDX(15), C_IDX(4), THEME_BOLD},
    [TH_TAB] = {C_IDX(248), C_DEF, 0},
    [TH_TAB_ACTIVE] = {C_IDX(0), C_IDX(6), THEME_BOLD},
    [TH_COLUMNS] = {C_DEF, C_DEF, THEME_BOLD},
    [TH_SELECTED] = {C_IDX(0), C_RGB(0x5fafd7), 0},
    [TH_ROLE] = {C_RGB(0x87afff), C_DEF, THEME_BOLD},
    [TH_COUNTER] = {C_RGB(0x87afaf), C_DEF, 0},
    [TH_DIM] = {C_IDX(244), C_DEF, 0},
    [TH_BAR] = {C_RGB(0x5fd75f), C_DEF, 0},
    [TH_BAR_EMPTY] = {C_IDX(8), C_DEF, 0},
    [TH_MATCH] = {C_IDX(0), C_IDX(3), THEME_BOLD},
    [TH_FILTER] = {C_IDX(11), C_DEF, THEME_BOLD},
    [TH_WARN] = {C_RGB(0xffaf00), C_DEF, 0},
    [TH_ERROR] = {C_IDX(9), C_DEF, THEME_BOLD},
    [TH_STATUS] = {C_IDX(252), C_IDX(238), 0},
    [TH_STATUS_KEY] = {C_IDX(15), C_IDX(238), THEME_BOLD},
    [TH_SLOWER] = {C_RGB(0xff5f5f), C_DEF, THEME_BOLD},
    [TH_FASTER] = {C_RGB(0x5fafff), C_DEF, THEME_BOLD},
};

static const char *const color_names[16] = {
    "black",        "red",           "green",       "yellow",         "blue",
    "magenta",      "cyan",          "white",       "bright-black",   "bright-red",
    "bright-green", "bright-yellow", "bright-blue", "bright-magenta", "bright-cyan",
    "bright-white",
};

static const struct {
    const char *name;
    unsigned bit;
} attr_names[] = {
    {"bold", THEME_BOLD},       {"dim", THEME_DIM},       {"underline", THEME_UNDERLINE},
    {"reverse", THEME_REVERSE}, {"italic", THEME_ITALIC},
};

/* ---- errors ---------------------------------------------------------- */

struct ctx {
    const char *path;
    char *err;
    size_t errlen;
};

__attribute__((format(printf, 4, 5))) static int fail_at(struct ctx *c, size_t line, size_t col,
                                                         const char *fmt, ...) {
    if (!c->err || c->errlen == 0)
        return -1;
    int n = snprintf(c->err, c->errlen, "%s:%zu:%zu: ", c->path, line, col);
    if (n >= 0 && (size_t)n < c->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

#define fail(c, mark, ...) fail_at((c), (mark).line + 1, (mark).column + 1, __VA_ARGS__)

/* A scalar as it may appear in a one-line message: control characters
 * escaped (double-quoted YAML can hold any), long values cut. */
static const char *shown(const yaml_node_t *n, char *buf, size_t len) {
    const unsigned char *s = n->data.scalar.value;
    size_t k = 0, max = len - 8; /* room for an escape and "..." */
    for (size_t i = 0; i < n->data.scalar.length; i++) {
        if (k >= max) {
            while (k > 0 && (buf[k - 1] & 0xc0) == 0x80) /* whole UTF-8 characters only */
                k--;
            if (k > 0 && (unsigned char)buf[k - 1] >= 0xc0)
                k--;
            memcpy(buf + k, "...", 4);
            return buf;
        }
        if (s[i] < 0x20 || s[i] == 0x7f)
            k += (size_t)snprintf(buf + k, len - k, "\\x%02x", s[i]);
        else
            buf[k++] = (char)s[i];
    }
    buf[k] = '\0';
    return buf;
}

/* What a node is, for "expected X, found Y". */
static const char *what_is(const yaml_node_t *n, char *buf, size_t len) {
    switch (n->type) {
    case YAML_MAPPING_NODE:
        return "a mapping";
    case YAML_SEQUENCE_NODE:
        return "a list";
    case YAML_SCALAR_NODE:
        if (n->data.scalar.length == 0)
            return "nothing";
        char v[56];
        snprintf(buf, len, "'%s'", shown(n, v, sizeof v));
        return buf;
    default:
        return "nothing";
    }
}

static bool scalar_is(const yaml_node_t *n, const char *s) {
    size_t len = strlen(s);
    return n->type == YAML_SCALAR_NODE && n->data.scalar.length == len &&
           memcmp(n->data.scalar.value, s, len) == 0;
}

/* ---- reading a YAML file ------------------------------------------------ */

#define MAX_FILE (1u << 20) /* far beyond any theme; keeps a wrong path cheap */

/* Reads path whole.  1: read; 0: it does not exist and missing_ok; -1: error. */
static int read_whole(struct ctx *c, bool missing_ok, unsigned char **buf, size_t *len) {
    /* O_NONBLOCK: a FIFO given by mistake must not hang the program. */
    int fd = open(c->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (missing_ok && (errno == ENOENT || errno == ENOTDIR))
            return 0;
        return fail_at(c, 1, 1, "cannot open: %s", strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return fail_at(c, 1, 1, "cannot read: %s", strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return fail_at(c, 1, 1, "is a directory, not a YAML file");
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return fail_at(c, 1, 1, "not a regular file");
    }
    unsigned char *b = malloc(MAX_FILE + 1);
    if (!b) {
        close(fd);
        return fail_at(c, 1, 1, "out of memory");
    }
    size_t n = 0;
    while (n <= MAX_FILE) {
        ssize_t r = read(fd, b + n, MAX_FILE + 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            free(b);
            return fail_at(c, 1, 1, "cannot read: %s", strerror(e));
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (n > MAX_FILE) {
        free(b);
        return fail_at(c, 1, 1, "too large (over %u bytes) for a theme or settings file", MAX_FILE);
    }
    *buf = b;
    *len = n;
    return 1;
}

/* A syntax error as "PATH:LINE:COLUMN: YAML syntax error: ...". */
static int yaml_error(struct ctx *c, const yaml_parser_t *p, const unsigned char *buf, size_t len) {
    if (p->error == YAML_MEMORY_ERROR)
        return fail_at(c, 1, 1, "out of memory");
    if (p->error == YAML_READER_ERROR) {
        /* The reader reports a byte offset, not a mark: count lines and
         * characters (not UTF-8 continuation bytes) up to it. */
        size_t line = 1, col = 1;
        for (size_t i = 0; i < p->problem_offset && i < len; i++) {
            if (buf[i] == '\n')
                line++, col = 1;
            else if ((buf[i] & 0xc0) != 0x80)
                col++;
        }
        return fail_at(c, line, col, "not valid text: %s (0x%x)", p->problem,
                       (unsigned)p->problem_value);
    }
    const char *problem = p->problem ? p->problem : "unreadable YAML";
    if (p->context)
        return fail(c, p->problem_mark, "YAML syntax error: %s (%s at line %zu, column %zu)",
                    problem, p->context, p->context_mark.line + 1, p->context_mark.column + 1);
    return fail(c, p->problem_mark, "YAML syntax error: %s", problem);
}

/* Loads the one document of c->path.  1: loaded (the root may be NULL for an
 * empty file; the caller deletes doc); 0: missing and missing_ok; -1: error. */
static int load_yaml(struct ctx *c, bool missing_ok, yaml_document_t *doc) {
    unsigned char *buf = NULL;
    size_t len = 0;
    int rc = read_whole(c, missing_ok, &buf, &len);
    if (rc <= 0)
        return rc;
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) {
        free(buf);
        return fail_at(c, 1, 1, "out of memory");
    }
    yaml_parser_set_input_string(&p, buf, len);
    rc = -1;
    if (!yaml_parser_load(&p, doc)) {
        yaml_error(c, &p, buf, len);
        goto out;
    }
    if (yaml_document_get_root_node(doc)) {
        /* One file, one document: a second one would otherwise be ignored. */
        yaml_document_t next;
        if (!yaml_parser_load(&p, &next)) {
            yaml_error(c, &p, buf, len);
            yaml_document_delete(doc);
            goto out;
        }
        yaml_node_t *root = yaml_document_get_root_node(&next);
        if (root) {
            fail(c, root->start_mark, "a second YAML document: the file must hold only one");
            yaml_document_delete(&next);
            yaml_document_delete(doc);
            goto out;
        }
        yaml_document_delete(&next);
    }
    rc = 1;
out:
    yaml_parser_delete(&p);
    free(buf);
    return rc;
}

/* ---- theme files ------------------------------------------------------- */

static int parse_color(struct ctx *c, const char *key, const yaml_node_t *n, theme_color *out) {
    char w[72];
    if (n->type != YAML_SCALAR_NODE)
        return fail(c, n->start_mark,
                    "%s must be a colour (a name such as red, 0-255, or \"#rrggbb\"), "
                    "found %s",
                    key, what_is(n, w, sizeof w));
    const char *s = (const char *)n->data.scalar.value;
    size_t len = n->data.scalar.length;
    char v[56];
    if (len == 0)
        return fail(c, n->start_mark,
                    "%s has no colour (\"#rrggbb\" needs quotes: an unquoted # starts a comment)",
                    key);
    if (strlen(s) != len) /* a NUL inside: no colour has one */
        return fail(c, n->start_mark, "unknown colour '%s'", shown(n, v, sizeof v));
    if (s[0] == '#') {
        bool ok = len == 7;
        for (size_t i = 1; ok && i < len; i++)
            ok = isxdigit((unsigned char)s[i]);
        if (!ok)
            return fail(c, n->start_mark,
                        "bad colour '%s' (\"#rrggbb\" takes six hex digits, as in \"#5fafd7\")",
                        shown(n, v, sizeof v));
        *out = (theme_color){THEME_COLOR_RGB, (uint32_t)strtoul(s + 1, NULL, 16)};
        return 0;
    }
    bool digits = true;
    for (size_t i = 0; digits && i < len; i++)
        digits = isdigit((unsigned char)s[i]);
    if (digits) {
        unsigned long i = len <= 4 ? strtoul(s, NULL, 10) : 256;
        if (i > 255)
            return fail(c, n->start_mark, "colour index %s is out of range (0-255)",
                        shown(n, v, sizeof v));
        *out = (theme_color){THEME_COLOR_INDEX, (uint32_t)i};
        return 0;
    }
    if (strcasecmp(s, "default") == 0) {
        *out = (theme_color){THEME_COLOR_DEFAULT, 0};
        return 0;
    }
    for (unsigned i = 0; i < 16; i++)
        if (strcasecmp(s, color_names[i]) == 0) {
            *out = (theme_color){THEME_COLOR_INDEX, i};
            return 0;
        }
    return fail(c, n->start_mark,
                "unknown colour '%s' (a name such as red or bright-blue, 0-255, or \"#rrggbb\")",
                shown(n, v, sizeof v));
}

static int parse_attrs(struct ctx *c, yaml_document_t *d, const yaml_node_t *n, unsigned *out) {
    char w[72], v[56];
    if (n->type != YAML_SEQUENCE_NODE)
        return fail(c, n->start_mark, "attrs must be a list such as [bold, underline], found %s",
                    what_is(n, w, sizeof w));
    *out = 0;
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
         it++) {
        const yaml_node_t *a = yaml_document_get_node(d, *it);
        if (a->type != YAML_SCALAR_NODE)
            return fail(c, a->start_mark, "an attribute must be a name such as bold, found %s",
                        what_is(a, w, sizeof w));
        unsigned bit = 0;
        for (size_t k = 0; k < sizeof attr_names / sizeof *attr_names; k++)
            if (scalar_is(a, attr_names[k].name))
                bit = attr_names[k].bit;
        if (!bit)
            return fail(c, a->start_mark,
                        "unknown attribute '%s' (known: bold, dim, underline, reverse, italic)",
                        shown(a, v, sizeof v));
        *out |= bit;
    }
    return 0;
}

static int parse_style(struct ctx *c, yaml_document_t *d, const char *element, const yaml_node_t *n,
                       theme_style *out) {
    char w[72], v[56];
    if (n->type != YAML_MAPPING_NODE)
        return fail(c, n->start_mark,
                    "the style of %s must be a mapping such as { fg: white, bg: blue }, found %s",
                    element, what_is(n, w, sizeof w));
    *out = (theme_style){{THEME_COLOR_DEFAULT, 0}, {THEME_COLOR_DEFAULT, 0}, 0};
    const yaml_node_t *seen[3] = {NULL, NULL, NULL}; /* fg, bg, attrs */
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        const yaml_node_t *k = yaml_document_get_node(d, p->key);
        const yaml_node_t *val = yaml_document_get_node(d, p->value);
        int which = scalar_is(k, "fg")      ? 0
                    : scalar_is(k, "bg")    ? 1
                    : scalar_is(k, "attrs") ? 2
                                            : -1;
        if (which < 0) {
            if (k->type != YAML_SCALAR_NODE)
                return fail(c, k->start_mark, "expected fg, bg or attrs, found %s",
                            what_is(k, w, sizeof w));
            return fail(c, k->start_mark, "unknown style key '%s' in %s (known: fg, bg, attrs)",
                        shown(k, v, sizeof v), element);
        }
        if (seen[which])
            return fail(c, k->start_mark, "%s is given twice in %s (first at line %zu)",
                        (const char *)k->data.scalar.value, element,
                        seen[which]->start_mark.line + 1);
        seen[which] = k;
        int rc = which == 0   ? parse_color(c, "fg", val, &out->fg)
                 : which == 1 ? parse_color(c, "bg", val, &out->bg)
                              : parse_attrs(c, d, val, &out->attrs);
        if (rc)
            return rc;
    }
    return 0;
}

static int parse_styles(struct ctx *c, yaml_document_t *d, const yaml_node_t *n, theme *t) {
    char w[72], v[56];
    if (n->type != YAML_MAPPING_NODE)
        return fail(c, n->start_mark,
                    "styles must be a mapping of element names to styles, found %s",
                    what_is(n, w, sizeof w));
    const yaml_node_t *seen[TH_ELEMENT_COUNT] = {NULL};
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        const yaml_node_t *k = yaml_document_get_node(d, p->key);
        if (k->type != YAML_SCALAR_NODE)
            return fail(c, k->start_mark, "expected an element name such as header, found %s",
                        what_is(k, w, sizeof w));
        int e = -1;
        for (int i = 0; i < TH_ELEMENT_COUNT; i++)
            if (scalar_is(k, element_names[i]))
                e = i;
        if (e < 0) {
            char known[512];
            size_t at = 0;
            for (int i = 0; i < TH_ELEMENT_COUNT; i++)
                at += (size_t)snprintf(known + at, sizeof known - at, "%s%s", i ? ", " : "",
                                       element_names[i]);
            return fail(c, k->start_mark, "unknown element '%s' (known: %s)", shown(k, v, sizeof v),
                        known);
        }
        if (seen[e])
            return fail(c, k->start_mark, "%s is given twice (first at line %zu)", element_names[e],
                        seen[e]->start_mark.line + 1);
        seen[e] = k;
        if (parse_style(c, d, element_names[e], yaml_document_get_node(d, p->value), &t->style[e]))
            return -1;
    }
    return 0;
}

static int parse_theme(struct ctx *c, yaml_document_t *d, theme *t) {
    char w[72], v[56];
    const yaml_node_t *root = yaml_document_get_root_node(d);
    if (!root)
        return fail_at(c, 1, 1, "the file is empty (a theme has name: and styles:)");
    if (root->type != YAML_MAPPING_NODE)
        return fail(c, root->start_mark, "a theme is a mapping with name: and styles:, found %s",
                    what_is(root, w, sizeof w));
    const yaml_node_t *seen_name = NULL, *seen_styles = NULL;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *k = yaml_document_get_node(d, p->key);
        const yaml_node_t *val = yaml_document_get_node(d, p->value);
        const yaml_node_t **seen = scalar_is(k, "name")     ? &seen_name
                                   : scalar_is(k, "styles") ? &seen_styles
                                                            : NULL;
        if (!seen) {
            if (k->type != YAML_SCALAR_NODE)
                return fail(c, k->start_mark, "expected name or styles, found %s",
                            what_is(k, w, sizeof w));
            return fail(c, k->start_mark, "unknown key '%s' (known: name, styles)",
                        shown(k, v, sizeof v));
        }
        if (*seen)
            return fail(c, k->start_mark, "%s is given twice (first at line %zu)",
                        (const char *)k->data.scalar.value, (*seen)->start_mark.line + 1);
        *seen = k;
        if (seen == &seen_styles) {
            if (parse_styles(c, d, val, t))
                return -1;
            continue;
        }
        bool ok = val->type == YAML_SCALAR_NODE && val->data.scalar.length > 0 &&
                  val->data.scalar.length < sizeof t->name;
        for (size_t i = 0; ok && i < val->data.scalar.length; i++)
            ok = val->data.scalar.value[i] >= 0x20 && val->data.scalar.value[i] != 0x7f;
        if (!ok)
            return fail(c, val->start_mark,
                        "name must be a line of text of 1 to %zu bytes, found %s",
                        sizeof t->name - 1, what_is(val, w, sizeof w));
        memcpy(t->name, val->data.scalar.value, val->data.scalar.length);
        t->name[val->data.scalar.length] = '\0';
    }
    return 0;
}

/* "themes/light.yaml" -> "light": the name of a file without `name:`. */
static void base_name(const char *path, char *out, size_t len) {
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 5 && strcmp(b + n - 5, ".yaml") == 0)
        n -= 5;
    if (n >= len)
        n = len - 1;
    while (n > 0 && n < strlen(b) && ((unsigned char)b[n] & 0xc0) == 0x80)
        n--; /* whole UTF-8 characters only */
    memcpy(out, b, n);
    out[n] = '\0';
}

int theme_load_file(const char *path, theme *out, char *err, size_t errlen) {
    struct ctx c = {path, err, errlen};
    if (strlen(path) >= sizeof out->path)
        return fail_at(&c, 1, 1, "path too long");
    theme *t = malloc(sizeof *t);
    if (!t)
        return fail_at(&c, 1, 1, "out of memory");
    memset(t, 0, sizeof *t);
    memcpy(t->style, builtin_default, sizeof t->style);
    strcpy(t->path, path);
    yaml_document_t doc;
    int rc = load_yaml(&c, false, &doc);
    if (rc == 1) {
        rc = parse_theme(&c, &doc, t);
        yaml_document_delete(&doc);
    }
    if (rc == 0) {
        if (!t->name[0])
            base_name(path, t->name, sizeof t->name);
        *out = *t; /* only a whole theme: on error the caller's stays as it was */
    }
    free(t);
    return rc ? -1 : 0;
}

/* ---- choosing a theme ---------------------------------------------------- */

/* $XDG_CONFIG_HOME, else ~/.config; false when neither can be known.  A
 * relative XDG_CONFIG_HOME is ignored, as the XDG spec asks. */
static bool config_home(char *out, size_t len) {
    const char *x = getenv("XDG_CONFIG_HOME");
    if (x && x[0] == '/')
        return (size_t)snprintf(out, len, "%s", x) < len;
    const char *h = getenv("HOME");
    if (h && h[0])
        return (size_t)snprintf(out, len, "%s/.config", h) < len;
    return false;
}

struct setting {
    char value[4096];
    yaml_mark_t mark;
};

/* Reads `theme:` from config.yaml.  1: found; 0: no file or no theme key. */
static int read_config(struct ctx *c, struct setting *s) {
    yaml_document_t doc;
    int rc = load_yaml(c, true, &doc);
    if (rc <= 0)
        return rc;
    char w[72], v[56];
    const yaml_node_t *root = yaml_document_get_root_node(&doc), *seen = NULL;
    rc = 0;
    if (root && root->type != YAML_MAPPING_NODE)
        rc = fail(c, root->start_mark, "expected settings such as theme: light, found %s",
                  what_is(root, w, sizeof w));
    for (yaml_node_pair_t *p = root ? root->data.mapping.pairs.start : NULL;
         rc == 0 && root && p < root->data.mapping.pairs.top; p++) {
        const yaml_node_t *k = yaml_document_get_node(&doc, p->key);
        const yaml_node_t *val = yaml_document_get_node(&doc, p->value);
        if (!scalar_is(k, "theme")) {
            rc = k->type == YAML_SCALAR_NODE
                     ? fail(c, k->start_mark, "unknown setting '%s' (known: theme)",
                            shown(k, v, sizeof v))
                     : fail(c, k->start_mark, "expected a setting such as theme, found %s",
                            what_is(k, w, sizeof w));
        } else if (seen) {
            rc = fail(c, k->start_mark, "theme is given twice (first at line %zu)",
                      seen->start_mark.line + 1);
        } else if (val->type != YAML_SCALAR_NODE || val->data.scalar.length == 0 ||
                   val->data.scalar.length >= sizeof s->value ||
                   strlen((const char *)val->data.scalar.value) != val->data.scalar.length) {
            rc = fail(c, val->start_mark,
                      "theme must be a theme name or a path to a .yaml file, found %s",
                      what_is(val, w, sizeof w));
        } else {
            seen = k;
            memcpy(s->value, val->data.scalar.value, val->data.scalar.length + 1);
            s->mark = val->start_mark;
        }
    }
    yaml_document_delete(&doc);
    if (rc)
        return -1;
    return seen ? 1 : 0;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "default, high-contrast, light, mono": the names NAME.yaml gives in the
 * folders searched, sorted and unique; "default" always (it is built in). */
static void list_names(const char *const *dirs, size_t ndirs, char *out, size_t len) {
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i <= ndirs; i++) {
        DIR *dir = i < ndirs && dirs[i] ? opendir(dirs[i]) : NULL;
        if (i < ndirs && !dir)
            continue;
        for (;;) {
            const char *file = "default.yaml";
            if (dir) {
                struct dirent *e = readdir(dir);
                if (!e)
                    break;
                file = e->d_name;
            }
            size_t fl = strlen(file);
            char full[4096];
            struct stat st;
            bool take = fl > 5 && file[0] != '.' && strcmp(file + fl - 5, ".yaml") == 0 &&
                        !strchr(file, ',');
            if (take && dir)
                take = (size_t)snprintf(full, sizeof full, "%s/%s", dirs[i], file) < sizeof full &&
                       stat(full, &st) == 0 && S_ISREG(st.st_mode);
            if (take)
                take = SCOPE_VEC_RESERVE(names, cap, n + 1) == 0;
            if (take && (names[n] = strndup(file, fl - 5)) != NULL)
                n++;
            if (!dir)
                break;
        }
        if (dir)
            closedir(dir);
    }
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    size_t at = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && at < len; i++)
        if (i == 0 || strcmp(names[i], names[i - 1]) != 0)
            at += (size_t)snprintf(out + at, len - at, "%s%s", at ? ", " : "", names[i]);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static bool is_path(const char *v) {
    size_t n = strlen(v);
    return strchr(v, '/') || (n >= 5 && strcmp(v + n - 5, ".yaml") == 0);
}

/* A value from the command line or the environment as it may appear in a
 * one-line message. */
static const char *printable(const char *v, char *buf, size_t len) {
    size_t k = 0;
    for (; *v && k + 8 < len; v++) {
        if ((unsigned char)*v < 0x20 || *v == 0x7f)
            k += (size_t)snprintf(buf + k, len - k, "\\x%02x", (unsigned char)*v);
        else
            buf[k++] = *v;
    }
    snprintf(buf + k, len - k, "%s", *v ? "..." : "");
    return buf;
}

/* Where a value came from, as the start of its error messages. */
static int value_error(char *err, size_t errlen, const char *origin, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int value_error(char *err, size_t errlen, const char *origin, const char *fmt, ...) {
    if (!err || errlen == 0)
        return -1;
    int n = snprintf(err, errlen, "%s", origin);
    if (n >= 0 && (size_t)n < errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int theme_resolve(const char *cli, theme *out, char *err, size_t errlen) {
    char home[4096], cfg[4096 + 32], user_dir[4096 + 32];
    bool have_home = config_home(home, sizeof home);
    if (have_home) {
        snprintf(cfg, sizeof cfg, "%s/scope/config.yaml", home);
        snprintf(user_dir, sizeof user_dir, "%s/scope/themes", home);
    }

    /* origin prefixes errors about the value itself (not about a file it
     * names, whose own path:line:col says enough). */
    char origin[4096 + 64] = "";
    struct setting *s = NULL;
    const char *value = cli;
    if (!value) {
        const char *env = getenv("SCOPE_THEME");
        if (env && env[0]) {
            value = env;
            snprintf(origin, sizeof origin, "$SCOPE_THEME: ");
        }
    }
    if (!value && have_home) {
        s = malloc(sizeof *s);
        if (!s)
            return value_error(err, errlen, "", "out of memory");
        struct ctx c = {cfg, err, errlen};
        int rc = read_config(&c, s);
        if (rc < 0) {
            free(s);
            return -1;
        }
        if (rc > 0) {
            value = s->value;
            snprintf(origin, sizeof origin, "%s:%zu:%zu: ", cfg, s->mark.line + 1,
                     s->mark.column + 1);
        }
    }
    if (!value)
        value = "default";

    int rc = -1;
    char path[8192 + 64];
    if (!value[0]) {
        rc = value_error(err, errlen, origin,
                         "empty theme name (give a name such as light, or a path to a .yaml file)");
    } else if (is_path(value)) {
        /* ~/ as a shell would have it, for $SCOPE_THEME="~/x.yaml" and the
         * config file; a relative path in the config file is relative to
         * the folder of the config file, not to wherever the program runs. */
        const char *h = getenv("HOME");
        if (value[0] == '~' && value[1] == '/' && h && h[0])
            snprintf(path, sizeof path, "%s%s", h, value + 1);
        else if (s && value == s->value && value[0] != '/')
            snprintf(path, sizeof path, "%s/scope/%s", home, value);
        else
            snprintf(path, sizeof path, "%s", value);
        rc = theme_load_file(path, out, err, errlen);
    } else {
        const char *dirs[3] = {have_home ? user_dir : NULL, NULL, NULL};
        size_t nd = 1;
#ifdef SCOPE_THEMES_INSTALL_DIR
        dirs[nd++] = SCOPE_THEMES_INSTALL_DIR;
#endif
#ifdef SCOPE_THEMES_SOURCE_DIR
        dirs[nd++] = SCOPE_THEMES_SOURCE_DIR;
#endif
        bool found = false;
        for (size_t i = 0; i < nd && !found; i++) {
            struct stat st;
            if (!dirs[i] ||
                (size_t)snprintf(path, sizeof path, "%s/%s.yaml", dirs[i], value) >= sizeof path)
                continue;
            /* Anything there, even a broken one, is the theme asked for: its
             * error says more than "unknown theme" would. */
            found = stat(path, &st) == 0 || (errno != ENOENT && errno != ENOTDIR);
        }
        if (found) {
            rc = theme_load_file(path, out, err, errlen);
        } else if (strcmp(value, "default") == 0) {
            /* The default theme is compiled in, so a moved or partial
             * installation still starts. */
            memset(out, 0, sizeof *out);
            snprintf(out->name, sizeof out->name, "default");
            memcpy(out->style, builtin_default, sizeof out->style);
            rc = 0;
        } else {
            char names[2048], shown_value[256];
            list_names(dirs, nd, names, sizeof names);
            rc = value_error(err, errlen, origin,
                             "unknown theme '%s' (themes: %s; or give a path to a .yaml file)",
                             printable(value, shown_value, sizeof shown_value), names);
        }
    }
    free(s);
    return rc;
}

/* ---- colours ------------------------------------------------------------ */

/* xterm's own values for 0..15; terminals let users change these, which is
 * why names stay palette indexes until a terminal must be given RGB. */
static const uint32_t xterm16[16] = {
    0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd, 0x00cdcd, 0xe5e5e5,
    0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00, 0x5c5cff, 0xff00ff, 0x00ffff, 0xffffff,
};

static uint32_t xterm_rgb(unsigned i) {
    static const uint8_t level[6] = {0, 95, 135, 175, 215, 255};
    if (i < 16)
        return xterm16[i];
    if (i < 232) {
        i -= 16;
        return (uint32_t)level[i / 36] << 16 | (uint32_t)level[i / 6 % 6] << 8 | level[i % 6];
    }
    uint32_t v = 8 + 10 * (i - 232);
    return v << 16 | v << 8 | v;
}

/* Squared distance weighted by the "redmean" approximation of perceived
 * difference: plain RGB distance rates greens and blues as equally visible,
 * and sends pale blues to grey. */
static unsigned long color_distance(uint32_t a, uint32_t b) {
    long ra = a >> 16 & 0xff, ga = a >> 8 & 0xff, ba = a & 0xff;
    long rb = b >> 16 & 0xff, gb = b >> 8 & 0xff, bb = b & 0xff;
    long rmean = (ra + rb) / 2, dr = ra - rb, dg = ga - gb, db = ba - bb;
    return (unsigned long)((((512 + rmean) * dr * dr) >> 8) + 4 * dg * dg +
                           (((767 - rmean) * db * db) >> 8));
}

static int nearest(uint32_t rgb, unsigned from, unsigned to) {
    unsigned best = from;
    unsigned long bd = (unsigned long)-1;
    for (unsigned i = from; i <= to; i++) {
        unsigned long d = color_distance(rgb, xterm_rgb(i));
        if (d < bd)
            bd = d, best = i;
    }
    return (int)best;
}

/* Sixteen or eight colours are too coarse for plain nearest-by-distance:
 * xterm's greys (e5e5e5, 7f7f7f) are nearer to most pale or mid colours than
 * any hue is, so a pale blue selection would turn white and a green bar
 * grey.  So a colour is first called a grey (little chroma) or a hue.  A
 * grey goes by brightness: on 8 colours to white unless it is really dark,
 * on 16 to the nearest of black, bright-black, white and bright-white.  A
 * hue goes to the nearest of the six (by angle), and on 16 colours to the
 * nearer of that hue's normal and bright version. */
static int nearest_basic(uint32_t rgb, bool sixteen) {
    int r = rgb >> 16 & 0xff, g = rgb >> 8 & 0xff, b = rgb & 0xff;
    int max = r > g ? (r > b ? r : b) : (g > b ? g : b);
    int min = r < g ? (r < b ? r : b) : (g < b ? g : b);
    int chroma = max - min;
    if (chroma < 0x20 || chroma * 3 < max) {
        if (sixteen) {
            static const unsigned greys[4] = {0, 8, 7, 15};
            unsigned best = 0;
            for (unsigned i = 1; i < 4; i++)
                if (color_distance(rgb, xterm16[greys[i]]) < color_distance(rgb, xterm16[best]))
                    best = greys[i];
            return (int)best;
        }
        int luma = (2126 * r + 7152 * g + 722 * b) / 10000;
        return luma >= 0x60 ? 7 : 0;
    }
    int hue; /* degrees, 0..359 */
    if (max == r)
        hue = (360 + 60 * (g - b) / chroma) % 360;
    else if (max == g)
        hue = 120 + 60 * (b - r) / chroma;
    else
        hue = 240 + 60 * (r - g) / chroma;
    static const int by_sector[6] = {1, 3, 2, 6, 4, 5}; /* red yellow green cyan blue magenta */
    int base = by_sector[(hue + 30) / 60 % 6];
    if (!sixteen)
        return base;
    return color_distance(rgb, xterm16[base + 8]) < color_distance(rgb, xterm16[base]) ? base + 8
                                                                                       : base;
}

int theme_color_for(theme_color c, int ncolors) {
    if (c.kind == THEME_COLOR_DEFAULT || ncolors < 8)
        return -1;
    if (c.kind == THEME_COLOR_INDEX && c.value > 255)
        return -1; /* not a colour the loader makes */
    bool indexed = c.kind == THEME_COLOR_INDEX;
    uint32_t rgb = indexed ? xterm_rgb(c.value) : c.value & 0xffffff;
    if (ncolors >= 0x1000000) {
        /* xterm-direct's setaf sends numbers below 8 as palette colours
         * (\e[3Nm); 0x000008 looks the same as those near-blacks. */
        return rgb < 8 ? 8 : (int)rgb;
    }
    if (ncolors >= 256)
        /* 0..15 are left out: terminals let users redefine them, and
         * the cube and grey ramp are what xterm's numbers promise. */
        return indexed ? (int)c.value : nearest(rgb, 16, 255);
    if (ncolors >= 16)
        return indexed && c.value < 16 ? (int)c.value : nearest_basic(rgb, true);
    return indexed && c.value < 8 ? (int)c.value : nearest_basic(rgb, false);
}

void theme_strip_color(theme *t) {
    theme_color normal_bg = t->style[TH_NORMAL].bg;
    for (int e = 0; e < TH_ELEMENT_COUNT; e++) {
        theme_style *s = &t->style[e];
        /* An element on a background of its own (selection, header, status
         * line, active tab, matches) loses that, so it is reversed instead.
         * Not one whose background is the normal text's: when a theme paints
         * the whole screen, reversing all of it would stand nothing out. */
        bool own_bg = s->bg.kind != THEME_COLOR_DEFAULT &&
                      (s->bg.kind != normal_bg.kind || s->bg.value != normal_bg.value);
        if (e != TH_NORMAL && own_bg)
            s->attrs |= THEME_REVERSE;
        s->fg = s->bg = (theme_color){THEME_COLOR_DEFAULT, 0};
    }
}
