/* sp_file: scope-profiler's HDF5 layouts, read by rank; see sp_file.h. */
#define _GNU_SOURCE /* strdup */
#include "h5_links.h"
#include "sp_file_priv.h"
#include "sp_lineprof.h"
#include "sp_read.h"

#include <hdf5.h>
#include <inttypes.h>
#include <scope/vec.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
void sp_settle_ranks(sp_file *f) {
    if (!f->nranks)
        return;
    qsort(f->ranks, f->nranks, sizeof *f->ranks, by_int64);
    size_t k = 1;
    for (size_t i = 1; i < f->nranks; i++)
        if (f->ranks[i] != f->ranks[k - 1])
            f->ranks[k++] = f->ranks[i];
    f->nranks = k;
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
    /* Before any object is opened by its path (h5_links.h says why). */
    if (h5_refuse_outside(f->h, msg, len) < 0) {
        sp_close(f);
        return -1;
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
            rc = sp_open_columnar(f, msg, len);
        }
    } else {
        f->schema = 1;
        rc = sp_open_schema1(f, msg, len);
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

sp_region *sp_add_region(sp_rank *r, const char *name) {
    if (SCOPE_VEC_RESERVE(r->regions, r->cap_regions, r->nregions + 1) < 0)
        return NULL;
    sp_region *g = &r->regions[r->nregions];
    memset(g, 0, sizeof *g);
    if (!(g->name = strdup(name)))
        return NULL;
    r->nregions++;
    return g;
}

int sp_alloc_events(sp_region *g, uint64_t n) {
    if (n > SIZE_MAX / sizeof(int64_t) - 1)
        return -1;
    g->start = malloc((n ? n : 1) * sizeof *g->start);
    g->end = malloc((n ? n : 1) * sizeof *g->end);
    return g->start && g->end ? 0 : -1;
}

/* Ends at or after starts: a negative duration is a damaged file. */
int sp_check_durations(const sp_rank *r, const sp_region *g, char *msg, size_t len) {
    for (size_t i = 0; i < g->n; i++)
        if (g->end[i] < g->start[i])
            return sp_fail(msg, len,
                           "rank %" PRId64
                           ", region %s: call %zu ends before it starts (a negative "
                           "duration: -%" PRIu64 " ns)",
                           r->rank, g->name, i, (uint64_t)g->start[i] - (uint64_t)g->end[i]);
    return 0;
}

int sp_read_rank(sp_file *f, size_t i, sp_rank *r, char *msg, size_t len) {
    memset(r, 0, sizeof *r);
    msg[0] = '\0';
    r->rank = f->ranks[i];
    int rc = 0;
    if (f->schema == 1)
        rc = sp_read_rank1(f, r, msg, len);
    else
        for (size_t k = 0; k < f->nrows && rc == 0; k++)
            if (f->rows[k].rank == r->rank)
                rc = sp_read_row(f, r, &f->rows[k], msg, len);
    if (rc == 0)
        rc = sp_read_line_profiles(f->h, f->file_size, r, msg, len);
    if (rc < 0)
        sp_rank_free(r);
    return rc;
}
