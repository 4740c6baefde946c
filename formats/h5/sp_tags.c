#include "sp_tags.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int sp_tags_join(char *const *v, size_t n, char **out) {
    *out = NULL;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += v[i] && v[i][0] ? strlen(v[i]) + 1 : 0;
    if (!total)
        return 0;
    char *s = malloc(total), *p = s;
    if (!s)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (!v[i] || !v[i][0])
            continue;
        if (p != s)
            *p++ = '\n';
        size_t l = strlen(v[i]);
        memcpy(p, v[i], l);
        p += l;
    }
    *p = '\0';
    *out = s;
    return 0;
}

int sp_tags_of_json(const char *text, char **out) {
    *out = NULL;
    errno = 0;
    if (!text || !text[strspn(text, " \t\r\n")])
        return 0;
    cJSON *list = cJSON_Parse(text);
    int n = cJSON_IsArray(list) ? cJSON_GetArraySize(list) : -1;
    char **v = n > 0 ? calloc((size_t)n, sizeof *v) : NULL;
    int rc = n < 0 || (n > 0 && !v) ? -1 : 0;
    for (int i = 0; rc == 0 && i < n; i++) {
        cJSON *e = cJSON_GetArrayItem(list, i);
        rc = cJSON_IsString(e) ? 0 : -1;
        if (rc == 0)
            v[i] = e->valuestring;
    }
    if (rc == 0 && sp_tags_join(v, n > 0 ? (size_t)n : 0, out) < 0) {
        errno = ENOMEM;
        rc = -1;
    }
    free(v);
    cJSON_Delete(list);
    return rc;
}
