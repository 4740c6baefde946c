/* Numbers and names for text output; see fmt.h. */
#define _GNU_SOURCE /* uselocale, newlocale */
#include "fmt.h"

#include "text_escape.h"

#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

static const char *na(char *buf, size_t cap) {
    snprintf(buf, cap, "%s", FMT_NA);
    return buf;
}

/* One decimal below 100 of a unit, none above: "9.4ms", "156.8us", "812ns". */
static const char *scaled(char *buf, size_t cap, double v, const char *unit) {
    if (v < 99.95)
        snprintf(buf, cap, "%.1f%s", v, unit);
    else
        snprintf(buf, cap, "%.0f%s", v, unit);
    return buf;
}

/* Below a nanosecond (the time per unit of a counter that counts fast):
 * picoseconds, femtoseconds, then powers of ten, so that no figure above 0
 * prints as 0. */
static const char *sub_ns(char *buf, size_t cap, double ns) {
    if (ns >= 0.995)
        snprintf(buf, cap, "%.1fns", ns);
    else if (ns * 1e3 >= 0.995)
        scaled(buf, cap, ns * 1e3, "ps");
    else if (ns * 1e6 >= 0.995)
        scaled(buf, cap, ns * 1e6, "fs");
    else
        snprintf(buf, cap, "%.1ens", ns);
    return buf;
}

const char *fmt_duration(char *buf, size_t cap, double ns) {
    if (isnan(ns) || isinf(ns))
        return na(buf, cap);
    if (ns < 0)
        ns = 0;
    if (ns > 0 && ns < 9.95)
        sub_ns(buf, cap, ns);
    else if (ns < 1e3)
        snprintf(buf, cap, "%.0fns", ns);
    else if (ns < 999.95e3)
        scaled(buf, cap, ns / 1e3, "us");
    else if (ns < 999.95e6)
        scaled(buf, cap, ns / 1e6, "ms");
    else if (ns < 59.95e9)
        scaled(buf, cap, ns / 1e9, "s");
    else if (ns < 1e9 * 86400.0 * 1e6) {
        /* Past a minute, whole units read better than decimals. */
        uint64_t s = (uint64_t)llround(ns / 1e9);
        if (s < 3600)
            snprintf(buf, cap, "%" PRIu64 "m %" PRIu64 "s", s / 60, s % 60);
        else if (s < 86400)
            snprintf(buf, cap, "%" PRIu64 "h %" PRIu64 "m", s / 3600, s % 3600 / 60);
        else
            snprintf(buf, cap, "%" PRIu64 "d %" PRIu64 "h", s / 86400, s % 86400 / 3600);
    } else /* a million days and more: only a damaged log says so */
        snprintf(buf, cap, "%.1ed", ns / 1e9 / 86400.0);
    return buf;
}

const char *fmt_plural(uint64_t n) {
    return n == 1 ? "" : "s";
}

const char *fmt_ucount(char *buf, size_t cap, uint64_t n) {
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%" PRIu64, n);
    char out[48];
    size_t o = 0;
    for (int i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
    snprintf(buf, cap, "%s", out);
    return buf;
}

const char *fmt_count(char *buf, size_t cap, int64_t n) {
    if (n >= 0)
        return fmt_ucount(buf, cap, (uint64_t)n);
    char tmp[48];
    fmt_ucount(tmp, sizeof tmp, (uint64_t)0 - (uint64_t)n);
    snprintf(buf, cap, "-%s", tmp);
    return buf;
}

const char *fmt_percent(char *buf, size_t cap, double frac, int decimals) {
    if (isnan(frac))
        return na(buf, cap);
    snprintf(buf, cap, "%.*f%%", decimals, frac * 100.0);
    return buf;
}

const char *fmt_change(char *buf, size_t cap, double frac) {
    if (isnan(frac))
        return na(buf, cap);
    if (isinf(frac)) {
        snprintf(buf, cap, "%s", frac > 0 ? "new" : "gone");
        return buf;
    }
    double pct = frac * 100.0;
    if (fabs(pct) < 0.05)
        snprintf(buf, cap, "0.0%%");
    else
        snprintf(buf, cap, "%+.1f%%", pct);
    return buf;
}

/* A magnitude of 1e6 or more with a decimal prefix: "1.2M", "9.1E"; past
 * the largest prefix, scientific notation ("9.1e+21"). */
static const char *prefixed(char *buf, size_t cap, double v, const char *suffix) {
    static const char prefixes[] = "MGTPE";
    double a = fabs(v) / 1e6;
    for (size_t i = 0; i < sizeof prefixes - 1; i++, a /= 1e3)
        if (a < 999.95) {
            snprintf(buf, cap, "%.1f%c%s", v < 0 ? -a : a, prefixes[i], suffix);
            return buf;
        }
    snprintf(buf, cap, "%.1e%s", v, suffix);
    return buf;
}

const char *fmt_rate(char *buf, size_t cap, double per_s) {
    if (isnan(per_s) || isinf(per_s))
        return na(buf, cap);
    if (fabs(per_s) >= 999.95e3)
        return prefixed(buf, cap, per_s, "/s");
    char whole[48];
    double r = round(per_s * 10.0) / 10.0;
    fmt_count(whole, sizeof whole, (int64_t)trunc(r));
    int tenth = (int)llround(fabs(r - trunc(r)) * 10.0) % 10;
    snprintf(buf, cap, "%s%s.%d/s", r < 0 && trunc(r) == 0 ? "-" : "", whole, tenth);
    return buf;
}

const char *fmt_bytes(char *buf, size_t cap, double bytes) {
    if (isnan(bytes))
        return na(buf, cap);
    static const char *const units[] = {"kB", "MB", "GB", "TB", "PB", "EB"};
    if (bytes < 1000) {
        snprintf(buf, cap, "%.0f B", bytes);
        return buf;
    }
    int u = 0;
    double v = bytes / 1000;
    while (v >= 999.95 && u < 5)
        v /= 1000, u++;
    snprintf(buf, cap, "%.1f %s", v, units[u]);
    return buf;
}

const char *fmt_spark(char *buf, size_t cap, const double *v, size_t n, double max, int utf8) {
    static const char *const blocks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    static const char ascii[] = ".:-=+*#@";
    if (!(max > 0))
        for (size_t i = 0; i < n; i++)
            if (!isnan(v[i]) && v[i] > max)
                max = v[i];
    size_t used = 0;
    for (size_t i = 0; i < n && used + 4 <= cap; i++) {
        const char *cell;
        char one[2] = {0, 0};
        if (isnan(v[i]))
            cell = utf8 ? "·" : " ";
        else if (v[i] <= 0 || !(max > 0))
            cell = " ";
        else {
            int level = (int)(v[i] * 7.0 / max + 0.5);
            level = level < 0 ? 0 : level > 7 ? 7 : level;
            one[0] = ascii[level];
            cell = utf8 ? blocks[level] : one;
        }
        size_t len = strlen(cell);
        memcpy(buf + used, cell, len);
        used += len;
    }
    if (cap)
        buf[used < cap ? used : cap - 1] = '\0';
    return buf;
}

const char *fmt_ratio(char *buf, size_t cap, double r) {
    if (isnan(r))
        return na(buf, cap);
    snprintf(buf, cap, "%.2f", r);
    return buf;
}

const char *fmt_wall(char *buf, size_t cap, uint64_t wall_ns) {
    if (!wall_ns) /* a source that keeps no wall clock (an imported file without a timestamp) */
        return na(buf, cap);
    time_t s = (time_t)(wall_ns / 1000000000u);
    struct tm tm;
    if (!gmtime_r(&s, &tm) || !strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &tm))
        return na(buf, cap);
    return buf;
}

const char *fmt_name(char *buf, size_t cap, run_str name) {
    scope_escape((const uint8_t *)name.s, name.len, buf, cap, 0);
    return buf;
}

const char *fmt_title(char *buf, size_t cap, run_str name) {
    fmt_name(buf, cap, name);
    for (char *p = buf, *escape_end = buf; *p; p++) {
        if (p >= escape_end && *p == '\\' && p[1]) /* \x1b, \u009b, \\: kept as they are */
            escape_end = p + (p[1] == 'u' ? 6 : p[1] == 'x' ? 4 : 2);
        if (p >= escape_end && *p >= 'a' && *p <= 'z')
            *p = (char)(*p - 'a' + 'A');
    }
    return buf;
}

/* wcwidth() follows LC_CTYPE; widths are asked of a UTF-8 locale of our own
 * so the answer does not depend on how the user's locale is set. */
static int char_width(uint32_t cp) {
    static locale_t utf8;
    static int tried;
    if (cp < 0x7F)
        return 1;
    if (!tried) {
        tried = 1;
        utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    }
    if (!utf8)
        return 1;
    locale_t old = uselocale(utf8);
    int w = wcwidth((wchar_t)cp);
    uselocale(old);
    return w < 0 ? 1 : w;
}

size_t fmt_width(const char *s) {
    size_t n = strlen(s), cols = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = scope_utf8_seq_len((const uint8_t *)s + i, n - i, &cp);
        if (len == 0) {
            cols++, i++;
            continue;
        }
        cols += (size_t)char_width(cp);
        i += len;
    }
    return cols;
}

void fmt_fit(char *s, size_t cap, size_t cols, int utf8) {
    if (fmt_width(s) <= cols)
        return;
    const char *ell = utf8 ? "\xe2\x80\xa6" : "...";
    size_t ell_cols = utf8 ? 1 : 3;
    if (cols < ell_cols) {
        s[0] = '\0';
        return;
    }
    size_t n = strlen(s), used = 0, i = 0;
    while (i < n) {
        uint32_t cp;
        size_t len = scope_utf8_seq_len((const uint8_t *)s + i, n - i, &cp);
        int w = len ? char_width(cp) : 1;
        if (!len)
            len = 1;
        if (used + (size_t)w > cols - ell_cols || i + len + strlen(ell) >= cap)
            break;
        used += (size_t)w;
        i += len;
    }
    strcpy(s + i, ell);
}

void fmt_fit_left(char *s, size_t cap, size_t cols, int utf8) {
    size_t width = fmt_width(s);
    if (width <= cols)
        return;
    const char *ell = utf8 ? "\xe2\x80\xa6" : "...";
    size_t ell_cols = utf8 ? 1 : 3, ell_len = strlen(ell);
    if (cols < ell_cols || cap <= ell_len) {
        s[0] = '\0';
        return;
    }
    /* Skip characters from the start until the rest fits beside the
     * ellipsis. */
    size_t n = strlen(s), i = 0;
    while (i < n && width > cols - ell_cols) {
        uint32_t cp;
        size_t len = scope_utf8_seq_len((const uint8_t *)s + i, n - i, &cp);
        width -= len ? (size_t)char_width(cp) : 1;
        i += len ? len : 1;
    }
    /* The rest is shorter than what was there, and the ellipsis is no
     * longer than what it replaces (3 bytes for one column, or 3 for 3), so
     * it fits in cap, as long as a whole character was skipped. */
    size_t rest = n - i;
    if (ell_len + rest + 1 > cap)
        rest = cap - ell_len - 1;
    memmove(s + ell_len, s + i, rest);
    memcpy(s, ell, ell_len);
    s[ell_len + rest] = '\0';
}

void fmt_put_left(FILE *f, const char *s, size_t cols) {
    size_t w = fmt_width(s);
    fputs(s, f);
    for (; w < cols; w++)
        fputc(' ', f);
}

void fmt_put_right(FILE *f, const char *s, size_t cols) {
    for (size_t w = fmt_width(s); w < cols; w++)
        fputc(' ', f);
    fputs(s, f);
}

/* ---- function names in a column ------------------------------------------------ */

static int is_ident(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The parameter list of a demangled name: the last parenthesis at depth 0
 * (outside <>, () and {}, so "{lambda(int)#1}" and "Foo<int (*)()>" hold
 * none), its opening at *open and its closing at *close.  An operator's own
 * characters ("operator()", "operator<<") are not brackets.  Returns 0 when
 * there is none. */
static int param_list(const char *s, size_t *open, size_t *close) {
    int depth = 0, found = 0;
    size_t n = strlen(s), start = 0;
    for (size_t i = 0; i < n; i++) {
        if (!strncmp(s + i, "operator", 8) && (i == 0 || !is_ident(s[i - 1])) &&
            !is_ident(s[i + 8])) {
            i += 8;
            while (i < n && strchr("<>=!+-*/%^&|~,", s[i]))
                i++;
            if (i + 1 < n && ((s[i] == '(' && s[i + 1] == ')') || (s[i] == '[' && s[i + 1] == ']')))
                i += 2;
            i--;
            continue;
        }
        char c = s[i];
        if (c == '<' || c == '{' || c == '(') {
            if (c == '(' && depth == 0)
                start = i;
            depth++;
        } else if ((c == '>' || c == '}' || c == ')') && depth > 0) {
            depth--;
            if (c == ')' && depth == 0) {
                *open = start;
                *close = i;
                found = 1;
            }
        }
    }
    return found;
}

static void fit_function(char *s, size_t cap, size_t cols, int utf8) {
    if (fmt_width(s) <= cols)
        return;
    const char *ell = utf8 ? "\xe2\x80\xa6" : "...";
    size_t ell_len = strlen(ell), ell_cols = utf8 ? 1 : 3;
    size_t open, close, n = strlen(s);
    /* First the parameters: "ns::f(…) const" still says which function.
     * Only when that saves columns, and not where it would make the text
     * longer than it was. */
    if (param_list(s, &open, &close) && close - open - 1 >= ell_len) {
        char saved = s[close];
        s[close] = '\0';
        size_t params_cols = fmt_width(s + open + 1);
        s[close] = saved;
        if (params_cols > ell_cols) {
            memmove(s + open + 1 + ell_len, s + close, n - close + 1);
            memcpy(s + open + 1, ell, ell_len);
            if (fmt_width(s) <= cols)
                return;
            n = strlen(s);
        }
    }
    if (cols < ell_cols + 2) {
        fmt_fit(s, cap, cols, utf8);
        return;
    }
    /* Then the middle: the end (its own name) in two thirds of the
     * columns, the start (its namespace and class) in the rest. */
    size_t tail_cols = cols - ell_cols - (cols - ell_cols) / 3;
    size_t tail = n, used = 0;
    while (tail > 0) {
        size_t p = tail - 1;
        while (p > 0 && ((uint8_t)s[p] & 0xC0) == 0x80)
            p--;
        uint32_t cp;
        size_t len = scope_utf8_seq_len((const uint8_t *)s + p, tail - p, &cp);
        size_t w = len == tail - p ? (size_t)char_width(cp) : tail - p;
        if (used + w > tail_cols)
            break;
        used += w;
        tail = p;
    }
    /* An end that starts inside a name starts at the next "::" instead,
     * when that keeps half of it ("…::operator()(…)", not
     * "…t)#1}::operator()(…)"); the start gets the columns freed. */
    if (tail > 0 && s[tail] == ':' && s[tail - 1] == ':' && (cols - ell_cols) / 3 > 0)
        tail--; /* a whole "::", a column from the start */
    const char *sep = strncmp(s + tail, "::", 2) ? strstr(s + tail, "::") : NULL;
    if (sep && fmt_width(sep) >= tail_cols / 2)
        tail = (size_t)(sep - s);
    size_t head_cols = cols - ell_cols - fmt_width(s + tail);
    size_t head = 0;
    used = 0;
    while (head < tail) {
        uint32_t cp;
        size_t len = scope_utf8_seq_len((const uint8_t *)s + head, n - head, &cp);
        size_t w = len ? (size_t)char_width(cp) : 1;
        if (used + w > head_cols)
            break;
        used += w;
        head += len ? len : 1;
    }
    /* The ellipsis is no longer than what it replaces: a cut character is
     * at least as many bytes as the columns it took. */
    if (head + ell_len + (n - tail) + 1 > cap) {
        fmt_fit(s, cap, cols, utf8);
        return;
    }
    memmove(s + head + ell_len, s + tail, n - tail + 1);
    memcpy(s + head, ell, ell_len);
}

const char *fmt_function(char *buf, size_t cap, run_str name, size_t cols, unsigned escape_flags,
                         int utf8) {
    /* Escaped whole, however long, so the parameters' closing parenthesis
     * is there to be found; a cut character never makes it longer by more
     * than the ellipsis's bytes. */
    size_t need = scope_escape((const uint8_t *)name.s, name.len, NULL, 0, escape_flags);
    char *all = malloc(need + 8);
    if (!all) {
        scope_escape((const uint8_t *)name.s, name.len, buf, cap, escape_flags);
        fmt_fit(buf, cap, cols, utf8);
        return buf;
    }
    scope_escape((const uint8_t *)name.s, name.len, all, need + 8, escape_flags);
    fit_function(all, need + 8, cols, utf8);
    snprintf(buf, cap, "%s", all);
    free(all);
    if (strlen(buf) + 1 == cap) /* cut by the buffer: cut at a character, with an ellipsis */
        fmt_fit(buf, cap, fmt_width(buf) - 1, utf8);
    return buf;
}
