/*
 * What the parts of the scope-profiler reader share (sp_file.c,
 * sp_schema1.c, sp_columnar.c): the open file, and the steps of reading a
 * rank that every schema takes.  Only formats/h5/ includes this header.
 */
#ifndef SCOPE_SP_FILE_PRIV_H
#define SCOPE_SP_FILE_PRIV_H

#include "sp_file.h"

#include <hdf5.h>

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
    size_t nranks, cap_ranks;
    /* schema 2 and 3 */
    sp_row *rows;
    size_t nrows;
    char **names; /* /region_table/names */
    size_t nnames;
    hid_t ev_a, ev_b; /* start_times/end_times, or start_deltas/durations */
    uint64_t nevents;
};

/* Sorts f->ranks and drops repeats. */
void sp_settle_ranks(sp_file *f);

/* A new region named name at the end of r's; NULL when out of memory. */
sp_region *sp_add_region(sp_rank *r, const char *name);

/* Room for n calls in g; -1 when out of memory. */
int sp_alloc_events(sp_region *g, uint64_t n);

/* Ends at or after starts: a negative duration is a damaged file.  0, or -1
 * with msg. */
int sp_check_durations(const sp_rank *r, const sp_region *g, char *msg, size_t len);

/* Schema 1 (sp_schema1.c): the /rankN groups found, and one rank's
 * /rankN/regions read.  0, or -1 with msg. */
int sp_open_schema1(sp_file *f, char *msg, size_t len);
int sp_read_rank1(sp_file *f, sp_rank *r, char *msg, size_t len);

/* Schemas 2 and 3 (sp_columnar.c): the index, region table and events
 * checked against each other; one index row's calls read into r.  0, or -1
 * with msg. */
int sp_open_columnar(sp_file *f, char *msg, size_t len);
int sp_read_row(sp_file *f, sp_rank *r, const sp_row *row, char *msg, size_t len);

#endif
