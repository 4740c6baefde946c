/* sp_columnar: scope-profiler's schemas 2 and 3 (a columnar /events with
 * /rank_region_index and /region_table); see sp_file.h. */
#define _GNU_SOURCE /* strdup */
#include "sp_file_priv.h"
#include "sp_read.h"
#include "sp_tags.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A whole integer dataset loc/name of exactly want elements, or -1. */
static int64_t *ints_of(const sp_file *f, hid_t loc, const char *name, size_t want, char *msg,
                        size_t len) {
    hsize_t n;
    hid_t ds = sp_open_ints(f->file_size, loc, name, &n, msg, len);
    if (ds < 0)
        return NULL;
    int64_t *v = NULL;
    if (n != want)
        sp_fail(msg, len, "rank_region_index/%s has %" PRIu64 " rows, ranks has %zu", name,
                (uint64_t)n, want);
    else if (!(v = malloc((want ? want : 1) * sizeof *v)))
        sp_fail(msg, len, "out of memory");
    else if (sp_read_ints(ds, 0, want, v, name, msg, len) < 0) {
        free(v);
        v = NULL;
    }
    H5Dclose(ds);
    return v;
}

/* Schemas 2 and 3's /rank_region_index/tags, one JSON list per row, into
 * the rows' tags.  0 (also when absent), or -1 with msg. */
static int read_row_tags(sp_file *f, hid_t ix, char *msg, size_t len) {
    if (H5Lexists(ix, "tags", H5P_DEFAULT) <= 0)
        return 0;
    hid_t ds = H5Dopen2(ix, "tags", H5P_DEFAULT);
    if (ds < 0)
        return sp_fail(msg, len, "rank_region_index/tags is not a dataset");
    hsize_t n;
    char **v = NULL;
    int ok = sp_ds_len(f->file_size, ds, "rank_region_index/tags", &n, msg, len) == 0 &&
             n == f->nrows && sp_is_class(ds, 1, H5T_STRING) &&
             (v = calloc(n ? n : 1, sizeof *v)) && sp_read_strings(ds, 1, n, v) == 0;
    H5Dclose(ds);
    if (!ok && !msg[0])
        sp_fail(msg, len, "rank_region_index/tags is not %zu strings, one per row", f->nrows);
    for (size_t i = 0; ok && i < f->nrows; i++)
        if (sp_tags_of_json(v[i], &f->rows[i].tags) < 0) {
            ok = 0;
            sp_fail(msg, len, "rank_region_index/tags row %zu is not a JSON list of strings: %.60s",
                    i, v[i]);
        }
    for (size_t i = 0; v && i < f->nrows; i++)
        free(v[i]);
    free(v);
    return ok ? 0 : -1;
}

int sp_open_columnar(sp_file *f, char *msg, size_t len) {
    char sub[256];
    const char *missing = H5Lexists(f->h, "rank_region_index", H5P_DEFAULT) <= 0
                              ? "rank_region_index"
                          : H5Lexists(f->h, "region_table", H5P_DEFAULT) <= 0 ? "region_table"
                          : H5Lexists(f->h, "events", H5P_DEFAULT) <= 0       ? "events"
                                                                              : NULL;
    if (missing)
        return sp_fail(msg, len, "schema %d without its /%s group", f->schema, missing);
    hid_t ix = H5Gopen2(f->h, "rank_region_index", H5P_DEFAULT);
    hid_t rt = H5Gopen2(f->h, "region_table", H5P_DEFAULT);
    hid_t ev = H5Gopen2(f->h, "events", H5P_DEFAULT);
    int rc = -1;
    int64_t *ranks = NULL, *regions = NULL, *offsets = NULL, *counts = NULL, *lines = NULL;
    if (ix < 0 || rt < 0 || ev < 0) {
        sp_fail(msg, len, "/rank_region_index, /region_table and /events must be groups");
        goto out;
    }
    hsize_t nrows, nnames;
    hid_t ds = sp_open_ints(f->file_size, ix, "ranks", &nrows, sub, sizeof sub);
    if (ds < 0) {
        sp_fail(msg, len, "rank_region_index/%s", sub);
        goto out;
    }
    H5Dclose(ds);
    if (!(ranks = ints_of(f, ix, "ranks", nrows, msg, len)) ||
        !(regions = ints_of(f, ix, "region_ids", nrows, msg, len)) ||
        !(offsets = ints_of(f, ix, "event_offsets", nrows, msg, len)) ||
        !(counts = ints_of(f, ix, "event_counts", nrows, msg, len)))
        goto out;
    if (H5Lexists(ix, "source_lines", H5P_DEFAULT) > 0 &&
        !(lines = ints_of(f, ix, "source_lines", nrows, msg, len)))
        goto out;

    /* The region table. */
    hid_t names = H5Lexists(rt, "names", H5P_DEFAULT) > 0 ? H5Dopen2(rt, "names", H5P_DEFAULT) : -1;
    if (names < 0) {
        sp_fail(msg, len, "region_table/names is missing");
        goto out;
    }
    if (sp_ds_len(f->file_size, names, "region_table/names", &nnames, msg, len) < 0 ||
        !sp_is_class(names, 1, H5T_STRING) ||
        !(f->names = calloc(nnames ? nnames : 1, sizeof *f->names)) ||
        (f->nnames = nnames, sp_read_strings(names, 1, nnames, f->names) < 0)) {
        if (!msg[0])
            sp_fail(msg, len, "region_table/names is not a dataset of strings");
        H5Dclose(names);
        goto out;
    }
    H5Dclose(names);

    /* The events. */
    const char *a = f->schema == 2 ? "start_times" : "start_deltas";
    const char *b = f->schema == 2 ? "end_times" : "durations";
    hsize_t na, nb;
    if ((f->ev_a = sp_open_ints(f->file_size, ev, a, &na, sub, sizeof sub)) < 0 ||
        (f->ev_b = sp_open_ints(f->file_size, ev, b, &nb, sub, sizeof sub)) < 0) {
        sp_fail(msg, len, "events/%s", sub);
        goto out;
    }
    if (na != nb) {
        sp_fail(msg, len, "events/%s has %" PRIu64 " events but events/%s has %" PRIu64, a,
                (uint64_t)na, b, (uint64_t)nb);
        goto out;
    }
    f->nevents = na;

    /* The index, checked row by row against the tables it points into. */
    if (!(f->rows = calloc(nrows ? nrows : 1, sizeof *f->rows)) ||
        !(f->ranks = calloc(nrows ? nrows : 1, sizeof *f->ranks))) {
        sp_fail(msg, len, "out of memory");
        goto out;
    }
    f->nrows = nrows;
    char **files = NULL;
    hid_t fds = H5Lexists(ix, "source_files", H5P_DEFAULT) > 0
                    ? H5Dopen2(ix, "source_files", H5P_DEFAULT)
                    : -1;
    if (fds >= 0) {
        hsize_t nf;
        int ok =
            sp_ds_len(f->file_size, fds, "rank_region_index/source_files", &nf, msg, len) == 0 &&
            nf == nrows && sp_is_class(fds, 1, H5T_STRING) &&
            (files = calloc(nrows ? nrows : 1, sizeof *files)) &&
            sp_read_strings(fds, 1, nrows, files) == 0;
        H5Dclose(fds);
        if (!ok) {
            if (!msg[0])
                sp_fail(msg, len,
                        "rank_region_index/source_files is not %" PRIu64 " strings, one per row",
                        (uint64_t)nrows);
            if (files)
                for (size_t i = 0; i < nrows; i++)
                    free(files[i]);
            free(files);
            goto out;
        }
    }
    for (size_t i = 0; i < nrows; i++) {
        sp_row *r = &f->rows[i];
        r->file = files ? files[i] : NULL;
        r->line = lines && lines[i] > 0 ? lines[i] : 0;
        if (ranks[i] < 0 || ranks[i] > INT32_MAX || regions[i] < 0 ||
            (uint64_t)regions[i] >= nnames) {
            sp_fail(msg, len,
                    "rank_region_index row %zu names rank %" PRId64 " and region %" PRId64
                    ", which the file does not have",
                    i, ranks[i], regions[i]);
            free(files);
            goto out;
        }
        if (offsets[i] < 0 || counts[i] < 0 || (uint64_t)offsets[i] > f->nevents ||
            (uint64_t)counts[i] > f->nevents - (uint64_t)offsets[i]) {
            sp_fail(msg, len,
                    "rank_region_index row %zu holds events %" PRId64 " + %" PRId64
                    ", past the %" PRIu64 " in /events",
                    i, offsets[i], counts[i], f->nevents);
            free(files);
            goto out;
        }
        r->rank = (uint32_t)ranks[i];
        r->region = (uint32_t)regions[i];
        r->offset = (uint64_t)offsets[i];
        r->count = (uint64_t)counts[i];
        f->ranks[i] = ranks[i];
    }
    free(files);
    if (read_row_tags(f, ix, msg, len) < 0)
        goto out;
    f->nranks = nrows;
    sp_settle_ranks(f);
    rc = 0;
out:
    free(ranks);
    free(regions);
    free(offsets);
    free(counts);
    free(lines);
    if (ix >= 0)
        H5Gclose(ix);
    if (rt >= 0)
        H5Gclose(rt);
    if (ev >= 0)
        H5Gclose(ev);
    return rc;
}

int sp_read_row(sp_file *f, sp_rank *r, const sp_row *row, char *msg, size_t len) {
    sp_region *g = sp_add_region(r, f->names[row->region]);
    if (!g || sp_alloc_events(g, row->count) < 0)
        return sp_fail(msg, len, "out of memory for %" PRIu64 " events", row->count);
    g->n = row->count;
    g->source_line = row->line;
    if ((row->file && row->file[0] && !(g->source_file = strdup(row->file))) ||
        (row->tags && !(g->tags = strdup(row->tags))))
        return sp_fail(msg, len, "out of memory");
    const char *a = f->schema == 2 ? "events/start_times" : "events/start_deltas";
    const char *b = f->schema == 2 ? "events/end_times" : "events/durations";
    if (sp_read_ints(f->ev_a, row->offset, row->count, g->start, a, msg, len) < 0 ||
        sp_read_ints(f->ev_b, row->offset, row->count, g->end, b, msg, len) < 0)
        return -1;
    if (f->schema == 3) {
        int64_t t = 0;
        for (size_t i = 0; i < g->n; i++) {
            int64_t d = g->end[i];
            if (d < 0)
                return sp_fail(msg, len,
                               "rank %" PRId64 ", region %s: call %zu has a negative duration "
                               "(%" PRId64 " ns)",
                               r->rank, g->name, i, d);
            if (__builtin_add_overflow(t, g->start[i], &t) ||
                __builtin_add_overflow(t, d, &g->end[i]))
                return sp_fail(msg, len,
                               "rank %" PRId64 ", region %s: call %zu's times overflow 64 bits",
                               r->rank, g->name, i);
            g->start[i] = t;
        }
    }
    r->nevents += g->n;
    return sp_check_durations(r, g, msg, len);
}
