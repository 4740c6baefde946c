/* sp_schema1: scope-profiler's schema 1 (/rankN/regions/NAME groups); see
 * sp_file.h. */
#include "sp_file_priv.h"
#include "sp_read.h"

#include <inttypes.h>
#include <scope/vec.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "rank" followed by a decimal number without leading zeros. */
static int rank_of_name(const char *name, int64_t *rank) {
    if (strncmp(name, "rank", 4) || !name[4] || (name[4] == '0' && name[5]))
        return 0;
    int64_t r = 0;
    for (const char *p = name + 4; *p; p++) {
        if (*p < '0' || *p > '9' || r > (INT32_MAX - 9) / 10)
            return 0;
        r = r * 10 + (*p - '0');
    }
    *rank = r;
    return 1;
}

static herr_t add_rank_group(hid_t g, const char *name, const H5L_info_t *info, void *data) {
    (void)g;
    (void)info;
    sp_file *f = data;
    int64_t r;
    if (!rank_of_name(name, &r))
        return 0;
    if (SCOPE_VEC_RESERVE(f->ranks, f->cap_ranks, f->nranks + 1) < 0)
        return -1;
    f->ranks[f->nranks++] = r;
    return 0;
}

int sp_open_schema1(sp_file *f, char *msg, size_t len) {
    hsize_t idx = 0;
    if (H5Literate(f->h, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, add_rank_group, f) < 0)
        return sp_fail(msg, len, "its groups could not be listed (out of memory, or damaged)");
    if (!f->nranks)
        return sp_fail(
            msg, len,
            "HDF5 of another layout: not a scope-profiler file (no scope_profiler_schema "
            "attribute and no /rankN groups)");
    sp_settle_ranks(f);
    return 0;
}

typedef struct region_walk {
    sp_file *f;
    sp_rank *r;
    char *msg;
    size_t len;
} region_walk;

static herr_t read_region1(hid_t regions, const char *name, const H5L_info_t *info, void *data) {
    (void)info;
    region_walk *w = data;
    char sub[200];
    hid_t g = H5Gopen2(regions, name, H5P_DEFAULT);
    if (g < 0) {
        sp_fail(w->msg, w->len, "rank %" PRId64 ", region %.200s is not a group", w->r->rank, name);
        return -1;
    }
    sp_region *reg = sp_add_region(w->r, name);
    hsize_t ns = 0, ne = 0;
    hid_t s = -1, e = -1;
    int rc = -1;
    if (!reg) {
        sp_fail(w->msg, w->len, "out of memory");
        goto out;
    }
    if ((s = sp_open_ints(w->f->file_size, g, "start_times", &ns, sub, sizeof sub)) < 0 ||
        (e = sp_open_ints(w->f->file_size, g, "end_times", &ne, sub, sizeof sub)) < 0) {
        sp_fail(w->msg, w->len, "rank %" PRId64 ", region %.200s: %s", w->r->rank, name, sub);
        goto out;
    }
    if (ns != ne) {
        sp_fail(w->msg, w->len,
                "rank %" PRId64 ", region %.200s: %" PRIu64 " start times but %" PRIu64
                " end times",
                w->r->rank, name, (uint64_t)ns, (uint64_t)ne);
        goto out;
    }
    if (sp_alloc_events(reg, ns) < 0) {
        sp_fail(w->msg, w->len, "out of memory for %" PRIu64 " events", (uint64_t)ns);
        goto out;
    }
    reg->n = ns;
    if (sp_read_ints(s, 0, ns, reg->start, "start_times", sub, sizeof sub) < 0 ||
        sp_read_ints(e, 0, ns, reg->end, "end_times", sub, sizeof sub) < 0) {
        sp_fail(w->msg, w->len, "rank %" PRId64 ", region %.200s: %s", w->r->rank, name, sub);
        goto out;
    }
    if (sp_check_durations(w->r, reg, w->msg, w->len) < 0)
        goto out;
    reg->source_file = sp_attr_string(g, "source_file");
    int64_t line;
    reg->source_line = sp_attr_int(g, "source_lineno", &line) == 0 && line > 0 ? line : 0;
    if (sp_attr_tags(g, &reg->tags, sub, sizeof sub) < 0) {
        sp_fail(w->msg, w->len, "rank %" PRId64 ", region %.200s: %s", w->r->rank, name, sub);
        goto out;
    }
    w->r->nevents += reg->n;
    rc = 0;
out:
    if (s >= 0)
        H5Dclose(s);
    if (e >= 0)
        H5Dclose(e);
    H5Gclose(g);
    return rc;
}

int sp_read_rank1(sp_file *f, sp_rank *r, char *msg, size_t len) {
    char path[64];
    snprintf(path, sizeof path, "rank%" PRId64 "/regions", r->rank);
    /* A rank that recorded no region has no regions group (and one whose
     * rankN is not a group has none either: H5Lexists fails on the path). */
    if (H5Lexists(f->h, path, H5P_DEFAULT) <= 0)
        return 0;
    hid_t g = H5Gopen2(f->h, path, H5P_DEFAULT);
    if (g < 0)
        return sp_fail(msg, len, "rank %" PRId64 ": regions is not a group", r->rank);
    region_walk w = {f, r, msg, len};
    hsize_t idx = 0;
    herr_t e = H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, read_region1, &w);
    H5Gclose(g);
    if (e < 0 && !msg[0])
        sp_fail(msg, len, "rank %" PRId64 ": its regions could not be listed", r->rank);
    return e < 0 ? -1 : 0;
}
