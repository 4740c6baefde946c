/*
 * Host names as folder names (scope/host_dir.h), shared by the recorder,
 * which creates the folders, and the readers.
 */
#include <scope/host_dir.h>

#include <string.h>

/* Whether the byte at index i of a name must be written as %XX. */
static int must_encode(unsigned char c, size_t i) {
    return c == '%' || c == '/' || c <= 0x20 || c >= 0x7f || (c == '.' && i == 0);
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1; /* lowercase too: the encoder writes uppercase only */
}

int scope_host_dir_encode(const char *host, size_t len, char *out, size_t cap) {
    static const char hex[] = "0123456789ABCDEF";
    if (len == 0) {
        if (cap < 2)
            return -1;
        memcpy(out, "%", 2);
        return 1;
    }
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)host[i];
        size_t need = must_encode(c, i) ? 3 : 1;
        if (n + need >= cap)
            return -1;
        if (need == 1) {
            out[n++] = (char)c;
        } else {
            out[n++] = '%';
            out[n++] = hex[c >> 4];
            out[n++] = hex[c & 15];
        }
    }
    out[n] = '\0';
    return (int)n;
}

int scope_host_dir_decode(const char *folder, char *out, size_t cap) {
    if (!strcmp(folder, "%")) {
        if (cap < 1)
            return -1;
        out[0] = '\0';
        return 0;
    }
    size_t n = 0;
    for (size_t i = 0; folder[i]; i++) {
        unsigned char c = (unsigned char)folder[i];
        if (c == '%') {
            int hi = hex_value(folder[i + 1]), lo = hi < 0 ? -1 : hex_value(folder[i + 2]);
            if (lo < 0)
                return -1;
            c = (unsigned char)(hi << 4 | lo);
            /* Only the encoder's own spelling: one folder per host. */
            if (c == 0 || !must_encode(c, n))
                return -1;
            i += 2;
        } else if (must_encode(c, n)) {
            return -1;
        }
        if (n + 1 >= cap)
            return -1;
        out[n++] = (char)c;
    }
    if (n == 0)
        return -1; /* "" is no folder */
    out[n] = '\0';
    return (int)n;
}
