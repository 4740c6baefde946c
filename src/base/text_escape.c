/* Escaping of names from logs for display; see text_escape.h. */
#include "text_escape.h"

#include <string.h>

size_t scope_utf8_seq_len(const uint8_t *p, size_t n, uint32_t *codepoint) {
    uint32_t c = p[0];
    size_t len;
    uint32_t min;
    if (c < 0x80) {
        *codepoint = c;
        return 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
        len = 2, min = 0x80, c &= 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3, min = 0x800, c &= 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4, min = 0x10000, c &= 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        c = c << 6 | (p[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *codepoint = c;
    return len;
}

int scope_is_control(uint32_t cp) {
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F);
}

int scope_is_hidden_format(uint32_t cp) {
    return cp == 0x061C || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
           (cp >= 0x2060 && cp <= 0x2064) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0xFEFF;
}

typedef struct out_buf {
    char *p;
    size_t cap, len;
    size_t written; /* bytes in p: len until the first piece that did not fit */
} out_buf;

/* Appends n bytes as one piece: when they do not all fit, none is written
 * (the length still counts them), so a cut never splits a UTF-8 sequence or
 * an escape and the output stays valid, printable text. */
static void put(out_buf *o, const char *s, size_t n) {
    if (o->len + n < o->cap && o->len == o->written) {
        memcpy(o->p + o->len, s, n);
        o->written += n;
    }
    o->len += n;
}

size_t scope_escape(const uint8_t *p, size_t n, char *out, size_t cap, unsigned flags) {
    static const char hex[] = "0123456789abcdef";
    out_buf o = {out, cap, 0, 0};
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = scope_utf8_seq_len(p + i, n - i, &cp);
        if (len == 0 || cp < 0x20 || cp == 0x7F) {
            char e[4] = {'\\', 'x', hex[p[i] >> 4], hex[p[i] & 15]};
            put(&o, e, 4);
            i++;
        } else if ((cp >= 0x80 && cp <= 0x9F) || scope_is_hidden_format(cp)) {
            /* C1 controls are valid UTF-8 but some terminals obey them
             * (U+009B is a CSI), and format characters reorder or hide the
             * text around them (U+202E shows "exe.txt" for "txt.exe"): show
             * the code point.  All of them lie below U+10000. */
            char e[6] = {'\\',        'u', hex[cp >> 12], hex[(cp >> 8) & 15], hex[(cp >> 4) & 15],
                         hex[cp & 15]};
            put(&o, e, 6);
            i += len;
        } else if (cp >= 0x80 && (flags & SCOPE_ESCAPE_ASCII)) {
            char e[10];
            size_t k = 0;
            int digits = cp > 0xFFFF ? 8 : 4;
            e[k++] = '\\';
            e[k++] = cp > 0xFFFF ? 'U' : 'u';
            for (int d = digits - 1; d >= 0; d--)
                e[k++] = hex[(cp >> (4 * d)) & 15];
            put(&o, e, k);
            i += len;
        } else if (cp == '\\' || (cp == '"' && (flags & SCOPE_ESCAPE_QUOTE))) {
            char e[2] = {'\\', (char)cp};
            put(&o, e, 2);
            i++;
        } else {
            put(&o, (const char *)p + i, len);
            i += len;
        }
    }
    if (cap > 0)
        out[o.written] = '\0';
    return o.len;
}

void scope_fput_escaped(FILE *f, const uint8_t *p, size_t n, unsigned flags) {
    char small[256];
    size_t need = scope_escape(p, n, small, sizeof small, flags);
    if (need < sizeof small) {
        fwrite(small, 1, need, f);
        return;
    }
    /* Long names: escape in pieces that never split a UTF-8 sequence (an
     * escape is at most 4 characters per byte, so 48 bytes always fit). */
    size_t i = 0;
    while (i < n) {
        size_t chunk = n - i < 48 ? n - i : 48;
        while (i + chunk < n && chunk > 1 && (p[i + chunk] & 0xC0) == 0x80)
            chunk--;
        size_t len = scope_escape(p + i, chunk, small, sizeof small, flags);
        fwrite(small, 1, len, f);
        i += chunk;
    }
}
