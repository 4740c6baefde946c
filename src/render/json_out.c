/* cJSON helpers for the JSON renderers; see json_out.h. */
#include "json_out.h"

#include "text_escape.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Adds item under key (or appends it), remembering any failure; the item is
 * freed when it cannot be attached, so nothing leaks on the way out. */
static cJSON *attach(json_out *j, cJSON *parent, const char *key, cJSON *item) {
    cJSON_bool ok = 0;
    if (item && parent)
        ok = key ? cJSON_AddItemToObjectCS(parent, key, item) : cJSON_AddItemToArray(parent, item);
    if (!ok) {
        cJSON_Delete(item);
        j->failed = 1;
        return NULL;
    }
    return item;
}

cJSON *jo_object(json_out *j, cJSON *parent, const char *key) {
    return attach(j, parent, key, cJSON_CreateObject());
}

cJSON *jo_array(json_out *j, cJSON *parent, const char *key) {
    return attach(j, parent, key, cJSON_CreateArray());
}

void jo_null(json_out *j, cJSON *parent, const char *key) {
    attach(j, parent, key, cJSON_CreateNull());
}

void jo_bool(json_out *j, cJSON *parent, const char *key, int v) {
    attach(j, parent, key, cJSON_CreateBool(v != 0));
}

/* cJSON keeps numbers as doubles; raw text keeps 64-bit integers exact. */
void jo_u64(json_out *j, cJSON *parent, const char *key, uint64_t v) {
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    attach(j, parent, key, cJSON_CreateRaw(buf));
}

void jo_i64(json_out *j, cJSON *parent, const char *key, int64_t v) {
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    attach(j, parent, key, cJSON_CreateRaw(buf));
}

void jo_num(json_out *j, cJSON *parent, const char *key, double v) {
    if (!isfinite(v)) {
        jo_null(j, parent, key);
        return;
    }
    /* Below 2^53 an integral double is an exact integer: print it as one
     * ("1200", not "1200.0" or "1.2e+03"), and never as "-0". */
    if (v == trunc(v) && fabs(v) < 9007199254740992.0) {
        char buf[24];
        snprintf(buf, sizeof buf, "%.0f", v == 0 ? 0.0 : v);
        attach(j, parent, key, cJSON_CreateRaw(buf));
        return;
    }
    attach(j, parent, key, cJSON_CreateNumber(v));
}

void jo_index(json_out *j, cJSON *parent, const char *key, size_t i) {
    if (i == SIZE_MAX)
        jo_null(j, parent, key);
    else
        jo_u64(j, parent, key, (uint64_t)i);
}

/* The JSON string literal of n bytes of valid UTF-8 without NUL.  cJSON
 * would write DEL, C1 controls and format characters as raw bytes, so
 * strings are quoted here: every control character (C0, DEL, C1) and every
 * format character of scope_is_hidden_format as \uXXXX, the text otherwise
 * as it is.  A caller's bad byte becomes U+FFFD rather than invalid JSON. */
static char *json_literal(const char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    char *out = malloc(6 * n + 3), *o = out;
    if (!out)
        return NULL;
    const uint8_t *p = (const uint8_t *)s;
    *o++ = '"';
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = scope_utf8_seq_len(p + i, n - i, &cp);
        if (len == 0)
            cp = 0xFFFD, len = 1;
        if (cp == '"' || cp == '\\') {
            *o++ = '\\';
            *o++ = (char)cp;
        } else if (cp == '\n') {
            *o++ = '\\';
            *o++ = 'n';
        } else if (cp == '\t') {
            *o++ = '\\';
            *o++ = 't';
        } else if (scope_is_control(cp) || scope_is_hidden_format(cp) || cp == 0xFFFD) {
            *o++ = '\\';
            *o++ = 'u';
            for (int d = 3; d >= 0; d--)
                *o++ = hex[(cp >> (4 * d)) & 15];
        } else {
            memcpy(o, p + i, len);
            o += len;
        }
        i += len;
    }
    *o++ = '"';
    *o = '\0';
    return out;
}

static int plain_utf8(run_str name) {
    const uint8_t *p = (const uint8_t *)name.s;
    for (size_t i = 0; i < name.len;) {
        uint32_t cp;
        size_t n = scope_utf8_seq_len(p + i, name.len - i, &cp);
        if (n == 0 || cp == 0)
            return 0;
        i += n;
    }
    return 1;
}

char *jo_name_literal(run_str name) {
    if (!name.s)
        return json_literal("", 0);
    if (plain_utf8(name))
        return json_literal(name.s, name.len);
    /* A JSON string is Unicode text: a name with NUL or invalid UTF-8 goes
     * out in its escaped form. */
    size_t need = scope_escape((const uint8_t *)name.s, name.len, NULL, 0, 0);
    char *buf = malloc(need + 1);
    if (!buf)
        return NULL;
    scope_escape((const uint8_t *)name.s, name.len, buf, need + 1, 0);
    char *literal = json_literal(buf, need);
    free(buf);
    return literal;
}

void jo_name(json_out *j, cJSON *parent, const char *key, run_str name) {
    char *literal = jo_name_literal(name);
    if (!literal) {
        j->failed = 1;
        return;
    }
    attach(j, parent, key, cJSON_CreateRaw(literal));
    free(literal);
}

void jo_str(json_out *j, cJSON *parent, const char *key, const char *s) {
    if (!s)
        jo_null(j, parent, key);
    else
        jo_name(j, parent, key, (run_str){.s = s, .len = strlen(s)});
}

void jo_name_or_null(json_out *j, cJSON *parent, const char *key, run_str name) {
    if (name.len == 0)
        jo_null(j, parent, key);
    else
        jo_name(j, parent, key, name);
}

void jo_run_identity(json_out *j, cJSON *parent, const run_model *m) {
    jo_str(j, parent, "dir", m->dir);
    if (m->nattempts)
        jo_name(j, parent, "run_id", m->attempts[m->shown_attempt].run_id);
    else
        jo_null(j, parent, "run_id");
}

void jo_wall(json_out *j, cJSON *parent, const char *key, uint64_t wall_ns) {
    time_t s = (time_t)(wall_ns / 1000000000u);
    struct tm tm;
    char date[32], buf[48];
    if (wall_ns == 0 || !gmtime_r(&s, &tm) ||
        !strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm)) {
        jo_null(j, parent, key);
        return;
    }
    snprintf(buf, sizeof buf, "%s.%09" PRIu64 "Z", date, wall_ns % 1000000000u);
    jo_str(j, parent, key, buf);
}

cJSON *jo_document(json_out *j, const char *schema) {
    cJSON *root = cJSON_CreateObject();
    if (root)
        jo_str(j, root, "schema", schema);
    return root;
}

int jo_finish(json_out *j, cJSON *root, FILE *f) {
    char *text = root && !j->failed ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!text)
        return -1;
    int rc = fputs(text, f) < 0 || fputc('\n', f) == EOF ? -1 : 0;
    cJSON_free(text);
    return rc;
}
