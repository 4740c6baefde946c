/* sp_file: scope-profiler's HDF5 layouts, read by rank; see sp_file.h. */
#define _GNU_SOURCE /* strndup */
#include "sp_file.h"
#include "sp_lineprof.h"
#include "sp_read.h"
#include "sp_tags.h"

#include <hdf5.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One row of schema 2 and 3's /rank_region_index. */
typedef struct sp_row {
    uint32_t rank, region;
    uint64_t offset, count;
    int64_t line;
    char *file;
    char *tags; /* joined (sp_tags.h), NULL when none */
} sp_row;

struct sp_file {
    hid_t h;
    int schema;
    uint64_t file_size;
    sp_meta meta;
    int64_t *ranks; /* distinct, increasing */
    size_t nranks;
    /* schema 2 and 3 */
    sp_row *rows;
    size_t nrows;
    char **names; /* /region_table/names */
    size_t nnames;
    hid_t ev_a, ev_b; /* start_times/end_times, or start_deltas/durations */
    uint64_t nevents;
};

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

static void read_meta(sp_file *f) {
    sp_meta *m = &f->meta;
    m->mpi_size = m->omp_num_threads = -1;
    if (H5Lexists(f->h, "metadata", H5P_DEFAULT) <= 0)
        return;
    hid_t g = H5Oopen(f->h, "metadata", H5P_DEFAULT);
    if (g < 0)
        return;
    m->hostname = sp_attr_string(g, "hostname");
    m->timestamp = sp_attr_string(g, "timestamp");
    m->working_directory = sp_attr_string(g, "working_directory");
    m->version = sp_attr_string(g, "scope_profiler_version");
    m->platform = sp_attr_string(g, "platform");
    m->python_version = sp_attr_string(g, "python_version");
    m->user = sp_attr_string(g, "user");
    if (sp_attr_int(g, "mpi_size", &m->mpi_size) < 0)
        m->mpi_size = -1;
    if (sp_attr_int(g, "omp_num_threads", &m->omp_num_threads) < 0)
        m->omp_num_threads = -1;
    H5Oclose(g);
}

/* ---- ranks ---------------------------------------------------------------- */

static int by_int64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Sorts the ranks and drops repeats. */
static void settle_ranks(sp_file *f) {
    if (!f->nranks)
        return;
    qsort(f->ranks, f->nranks, sizeof *f->ranks, by_int64);
    size_t k = 1;
    for (size_t i = 1; i < f->nranks; i++)
        if (f->ranks[i] != f->ranks[k - 1])
            f->ranks[k++] = f->ranks[i];
    f->nranks = k;
}

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
    int64_t *grown = realloc(f->ranks, (f->nranks + 1) * sizeof *grown);
    if (!grown)
        return -1;
    f->ranks = grown;
    f->ranks[f->nranks++] = r;
    return 0;
}

static int open_schema1(sp_file *f, char *msg, size_t len) {
    hsize_t idx = 0;
    if (H5Literate(f->h, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, add_rank_group, f) < 0)
        return sp_fail(msg, len, "its groups could not be listed (out of memory, or damaged)");
    if (!f->nranks)
        return sp_fail(
            msg, len,
            "HDF5 of another layout: not a scope-profiler file (no scope_profiler_schema "
            "attribute and no /rankN groups)");
    settle_ranks(f);
    return 0;
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

static int open_columnar(sp_file *f, char *msg, size_t len) {
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
    settle_ranks(f);
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

int sp_open(const char *path, sp_file **out, char *msg, size_t len) {
    *out = NULL;
    msg[0] = '\0';
    /* The library's own error stack goes nowhere: every failure is said in
     * msg, once. */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    struct stat st;
    if (stat(path, &st) < 0)
        return sp_fail(msg, len, "cannot be read");
    sp_file *f = calloc(1, sizeof *f);
    if (!f)
        return sp_fail(msg, len, "out of memory");
    f->file_size = (uint64_t)st.st_size;
    f->ev_a = f->ev_b = -1;
    f->meta.mpi_size = f->meta.omp_num_threads = -1;
    f->h = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f->h < 0) {
        free(f);
        return sp_fail(msg, len, "not a readable HDF5 file (truncated or damaged)");
    }
    int64_t schema;
    int rc;
    if (H5Aexists(f->h, "scope_profiler_schema") > 0) {
        if (sp_attr_int(f->h, "scope_profiler_schema", &schema) < 0)
            rc = sp_fail(msg, len, "its scope_profiler_schema attribute is not an integer");
        else if (schema != 2 && schema != 3)
            rc = sp_fail(msg, len,
                         "scope-profiler schema %" PRId64 ", which this scope does not read "
                         "(it reads schemas 1, 2 and 3)",
                         schema);
        else {
            f->schema = (int)schema;
            rc = open_columnar(f, msg, len);
        }
    } else {
        f->schema = 1;
        rc = open_schema1(f, msg, len);
    }
    if (rc < 0) {
        sp_close(f);
        return -1;
    }
    read_meta(f);
    *out = f;
    return 0;
}

void sp_close(sp_file *f) {
    if (!f)
        return;
    for (size_t i = 0; i < f->nrows; i++) {
        free(f->rows[i].file);
        free(f->rows[i].tags);
    }
    free(f->rows);
    for (size_t i = 0; i < f->nnames; i++)
        free(f->names[i]);
    free(f->names);
    free(f->ranks);
    sp_meta_free(&f->meta);
    if (f->ev_a >= 0)
        H5Dclose(f->ev_a);
    if (f->ev_b >= 0)
        H5Dclose(f->ev_b);
    if (f->h >= 0)
        H5Fclose(f->h);
    free(f);
}

void sp_meta_free(sp_meta *m) {
    free(m->hostname);
    free(m->timestamp);
    free(m->working_directory);
    free(m->version);
    free(m->platform);
    free(m->python_version);
    free(m->user);
}

int sp_schema(const sp_file *f) {
    return f->schema;
}
const sp_meta *sp_meta_of(const sp_file *f) {
    return &f->meta;
}
size_t sp_nranks(const sp_file *f) {
    return f->nranks;
}
int64_t sp_rank_number(const sp_file *f, size_t i) {
    return f->ranks[i];
}

/* ---- reading one rank ----------------------------------------------------- */

void sp_rank_free(sp_rank *r) {
    for (size_t i = 0; i < r->nregions; i++) {
        free(r->regions[i].name);
        free(r->regions[i].source_file);
        free(r->regions[i].tags);
        free(r->regions[i].start);
        free(r->regions[i].end);
    }
    free(r->regions);
    for (size_t i = 0; i < r->nprofiles; i++)
        sp_line_profile_free(&r->profiles[i]);
    free(r->profiles);
    memset(r, 0, sizeof *r);
}

static sp_region *add_region(sp_rank *r, const char *name) {
    sp_region *grown = realloc(r->regions, (r->nregions + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    r->regions = grown;
    sp_region *g = &grown[r->nregions];
    memset(g, 0, sizeof *g);
    if (!(g->name = strdup(name)))
        return NULL;
    r->nregions++;
    return g;
}

static int alloc_events(sp_region *g, uint64_t n) {
    if (n > SIZE_MAX / sizeof(int64_t) - 1)
        return -1;
    g->start = malloc((n ? n : 1) * sizeof *g->start);
    g->end = malloc((n ? n : 1) * sizeof *g->end);
    return g->start && g->end ? 0 : -1;
}

/* Ends at or after starts: a negative duration is a damaged file. */
static int check_durations(const sp_rank *r, const sp_region *g, char *msg, size_t len) {
    for (size_t i = 0; i < g->n; i++)
        if (g->end[i] < g->start[i])
            return sp_fail(msg, len,
                           "rank %" PRId64
                           ", region %s: call %zu ends before it starts (a negative "
                           "duration: -%" PRIu64 " ns)",
                           r->rank, g->name, i, (uint64_t)g->start[i] - (uint64_t)g->end[i]);
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
    sp_region *reg = add_region(w->r, name);
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
    if (alloc_events(reg, ns) < 0) {
        sp_fail(w->msg, w->len, "out of memory for %" PRIu64 " events", (uint64_t)ns);
        goto out;
    }
    reg->n = ns;
    if (sp_read_ints(s, 0, ns, reg->start, "start_times", sub, sizeof sub) < 0 ||
        sp_read_ints(e, 0, ns, reg->end, "end_times", sub, sizeof sub) < 0) {
        sp_fail(w->msg, w->len, "rank %" PRId64 ", region %.200s: %s", w->r->rank, name, sub);
        goto out;
    }
    if (check_durations(w->r, reg, w->msg, w->len) < 0)
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

static int read_rank1(sp_file *f, sp_rank *r, char *msg, size_t len) {
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

static int read_row(sp_file *f, sp_rank *r, const sp_row *row, char *msg, size_t len) {
    sp_region *g = add_region(r, f->names[row->region]);
    if (!g || alloc_events(g, row->count) < 0)
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
    return check_durations(r, g, msg, len);
}

int sp_read_rank(sp_file *f, size_t i, sp_rank *r, char *msg, size_t len) {
    memset(r, 0, sizeof *r);
    msg[0] = '\0';
    r->rank = f->ranks[i];
    int rc = 0;
    if (f->schema == 1)
        rc = read_rank1(f, r, msg, len);
    else
        for (size_t k = 0; k < f->nrows && rc == 0; k++)
            if (f->rows[k].rank == r->rank)
                rc = read_row(f, r, &f->rows[k], msg, len);
    if (rc == 0)
        rc = sp_read_line_profiles(f->h, f->file_size, r, msg, len);
    if (rc < 0)
        sp_rank_free(r);
    return rc;
}
