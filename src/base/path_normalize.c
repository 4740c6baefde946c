/* Lexical path normalisation; see path_normalize.h. */
#include "path_normalize.h"

#include <string.h>

size_t path_normalize(const char *path, size_t n, char *out) {
    int absolute = n && path[0] == '/';
    size_t len = absolute ? 1 : 0; /* out[0, len) is the result so far */
    size_t floor = len;            /* ".." components at the start stay below this */
    if (absolute)
        out[0] = '/';
    for (size_t i = 0; i < n;) {
        size_t start = i;
        while (i < n && path[i] != '/')
            i++;
        size_t clen = i - start;
        const char *comp = path + start;
        while (i < n && path[i] == '/')
            i++;
        if (clen == 0 || (clen == 1 && comp[0] == '.'))
            continue;
        if (clen == 2 && comp[0] == '.' && comp[1] == '.') {
            if (len > floor) { /* drop the last component */
                while (len > floor && out[len - 1] != '/')
                    len--;
                if (len > floor)
                    len--; /* its slash */
                continue;
            }
            if (absolute)
                continue; /* "/.." is "/" */
            /* A relative path's leading "..": kept, and never taken out. */
            if (len)
                out[len++] = '/';
            memcpy(out + len, "..", 2);
            len += 2;
            floor = len;
            continue;
        }
        if (len && out[len - 1] != '/')
            out[len++] = '/';
        memcpy(out + len, comp, clen);
        len += clen;
    }
    if (!len)
        out[len++] = '.';
    out[len] = '\0';
    return len;
}
