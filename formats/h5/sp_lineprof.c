/* sp_lineprof: a rank's line_profile groups, read and checked; see sp_lineprof.h. */
#include "sp_lineprof.h"
#include "sp_read.h"

#include <inttypes.h>
#include <scope/vec.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sp_line_profile_free(sp_line_profile *p) {
    free(p->region);
    free(p->filename);
    free(p->function);
    free(p->line);
    free(p->hits);
    free(p->times);
    memset(p, 0, sizeof *p);
}

typedef struct profile_walk {
    uint64_t file_size;
    sp_rank *r;
    char *msg;
    size_t len;
} profile_walk;

/* A string attribute that must be there (need) or may be absent; -1 with
 * msg when it is missing or not a string. */
static int string_attr(hid_t g, const char *name, int need, char **out, char *msg, size_t len) {
    *out = NULL;
    if (H5Aexists(g, name) <= 0)
        return need ? sp_fail(msg, len, "no %s attribute", name) : 0;
    if (!(*out = sp_attr_string(g, name)))
        return sp_fail(msg, len, "attribute %s is not a string", name);
    return 0;
}

/* The group's attributes into p; 0, or -1 with msg. */
static int read_attrs(hid_t g, sp_line_profile *p, char *msg, size_t len) {
    if (string_attr(g, "filename", 1, &p->filename, msg, len) < 0 ||
        string_attr(g, "function", 1, &p->function, msg, len) < 0 ||
        string_attr(g, "region", 0, &p->region, msg, len) < 0)
        return -1;
    if (H5Aexists(g, "first_lineno") > 0 && (sp_attr_int(g, "first_lineno", &p->first_lineno) < 0 ||
                                             p->first_lineno < 0 || p->first_lineno > UINT32_MAX))
        return sp_fail(msg, len, "attribute first_lineno is not a line number");
    if (H5Aexists(g, "unit") <= 0)
        return sp_fail(msg, len, "no unit attribute (seconds per tick of times)");
    if (sp_attr_double(g, "unit", &p->unit) < 0)
        return sp_fail(msg, len, "attribute unit is not a number");
    if (!isfinite(p->unit) || p->unit <= 0)
        return sp_fail(msg, len, "unit is %g, not a positive number of seconds", p->unit);
    return 0;
}

/* The three datasets into p, checked; 0, or -1 with msg. */
static int read_columns(hid_t g, uint64_t file_size, sp_line_profile *p, char *msg, size_t len) {
    static const char *const names[3] = {"line_numbers", "hits", "times"};
    hid_t ds[3] = {-1, -1, -1};
    hsize_t n[3] = {0, 0, 0};
    int rc = -1;
    for (int k = 0; k < 3; k++)
        if ((ds[k] = sp_open_ints(file_size, g, names[k], &n[k], msg, len)) < 0)
            goto out;
    if (n[1] != n[0] || n[2] != n[0]) {
        sp_fail(msg, len, "%" PRIu64 " line numbers, %" PRIu64 " hits and %" PRIu64 " times",
                (uint64_t)n[0], (uint64_t)n[1], (uint64_t)n[2]);
        goto out;
    }
    if (n[0] > SP_MAX_PROFILE_LINES) {
        sp_fail(msg, len, "%" PRIu64 " lines in one function, more than %u", (uint64_t)n[0],
                SP_MAX_PROFILE_LINES);
        goto out;
    }
    size_t cnt = (size_t)n[0];
    int64_t **cols[3] = {&p->line, &p->hits, &p->times};
    for (int k = 0; k < 3; k++)
        if (!(*cols[k] = malloc((cnt ? cnt : 1) * sizeof(int64_t)))) {
            sp_fail(msg, len, "out of memory for %zu lines", cnt);
            goto out;
        }
    p->n = cnt;
    for (int k = 0; k < 3; k++)
        if (sp_read_ints(ds[k], 0, cnt, *cols[k], names[k], msg, len) < 0)
            goto out;
    for (size_t i = 0; i < cnt; i++) {
        if (p->line[i] < 1 || p->line[i] > UINT32_MAX) {
            sp_fail(msg, len, "row %zu has line number %" PRId64 " (line numbers start at 1)", i,
                    p->line[i]);
            goto out;
        }
        if (p->hits[i] < 0 || p->times[i] < 0) {
            sp_fail(msg, len, "line %" PRId64 " has a negative %s (%" PRId64 ")", p->line[i],
                    p->hits[i] < 0 ? "hit count" : "time",
                    p->hits[i] < 0 ? p->hits[i] : p->times[i]);
            goto out;
        }
    }
    rc = 0;
out:
    for (int k = 0; k < 3; k++)
        if (ds[k] >= 0)
            H5Dclose(ds[k]);
    return rc;
}

static herr_t read_profile(hid_t parent, const char *name, const H5L_info_t *info, void *data) {
    (void)info;
    profile_walk *w = data;
    sp_rank *r = w->r;
    char sub[300];
    sub[0] = '\0';
    if (r->nprofiles >= SP_MAX_PROFILES) {
        sp_fail(w->msg, w->len, "rank %" PRId64 ": more than %u line_profile groups", r->rank,
                SP_MAX_PROFILES);
        return -1;
    }
    hid_t g = H5Gopen2(parent, name, H5P_DEFAULT);
    if (g < 0) {
        sp_fail(w->msg, w->len, "rank %" PRId64 ", line_profile/%.200s is not a group", r->rank,
                name);
        return -1;
    }
    int rc = -1;
    if (SCOPE_VEC_RESERVE(r->profiles, r->cap_profiles, r->nprofiles + 1) < 0) {
        sp_fail(w->msg, w->len, "out of memory");
        goto out;
    }
    sp_line_profile *p = &r->profiles[r->nprofiles++];
    memset(p, 0, sizeof *p);
    if (read_attrs(g, p, sub, sizeof sub) < 0 ||
        read_columns(g, w->file_size, p, sub, sizeof sub) < 0) {
        sp_fail(w->msg, w->len, "rank %" PRId64 ", line_profile/%.200s: %s", r->rank, name, sub);
        goto out;
    }
    r->nprofile_lines += p->n;
    rc = 0;
out:
    H5Gclose(g);
    return rc;
}

int sp_read_line_profiles(hid_t file, uint64_t file_size, sp_rank *r, char *msg, size_t len) {
    char path[64];
    snprintf(path, sizeof path, "rank%" PRId64, r->rank);
    /* Checked a step at a time: H5Lexists fails on a path through a missing
     * or non-group link. */
    if (H5Lexists(file, path, H5P_DEFAULT) <= 0)
        return 0;
    snprintf(path, sizeof path, "rank%" PRId64 "/line_profile", r->rank);
    if (H5Lexists(file, path, H5P_DEFAULT) <= 0)
        return 0;
    hid_t g = H5Gopen2(file, path, H5P_DEFAULT);
    if (g < 0)
        return sp_fail(msg, len, "rank %" PRId64 ": line_profile is not a group", r->rank);
    profile_walk w = {file_size, r, msg, len};
    hsize_t idx = 0;
    msg[0] = '\0';
    herr_t e = H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, read_profile, &w);
    H5Gclose(g);
    if (e < 0 && !msg[0])
        sp_fail(msg, len, "rank %" PRId64 ": its line_profile groups could not be listed", r->rank);
    return e < 0 ? -1 : 0;
}
