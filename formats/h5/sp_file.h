/*
 * sp_file: the HDF5 files of scope-profiler (a Python region profiler), read
 * one rank at a time.  Every layout that project has written:
 *
 *   schema 1  no version attribute; /metadata attributes;
 *             /rankN/regions/NAME/{start_times,end_times} (int64 ns), with
 *             attributes source_file, source_lineno and tags on NAME.
 *   schema 2  root attributes scope_profiler_schema = 2, storage_layout =
 *             "columnar"; /events/{start_times,end_times} for all ranks;
 *             /rank_region_index/{ranks,region_ids,event_offsets,event_counts,
 *             source_files,source_lines,tags,...}, one row per (rank, region),
 *             whose events are events[offset, offset + count);
 *             /region_table/names.
 *   schema 3  as schema 2, with /events/{start_deltas,durations}: within a
 *             row, each start is the previous one plus its delta (the first
 *             counts from 0) and each end its start plus its duration.
 *
 *   any schema /rankN/line_profile/I/ (written with use_line_profiler=True):
 *             what line_profiler measured of one function in that rank,
 *             attributes region, filename, function, first_lineno, unit
 *             (seconds per time tick) and equal-length integer datasets
 *             line_numbers, hits, times (ticks); sp_lineprof.h.
 *
 * Opening checks the structure (types, lengths, index bounds, sizes against
 * the file's own size) before any event is read; reading a rank checks the
 * events (no negative durations).  Every failure is one plain sentence in
 * msg, without the path, which the caller puts in front.  Memory while
 * reading follows the largest rank, never the whole file.
 */
#ifndef SCOPE_SP_FILE_H
#define SCOPE_SP_FILE_H

#include <stddef.h>
#include <stdint.h>

typedef struct sp_file sp_file;

/* The run's metadata (/metadata attributes); NULL or -1 when absent. */
typedef struct sp_meta {
    char *hostname, *timestamp, *working_directory, *version, *platform, *python_version, *user;
    int64_t mpi_size, omp_num_threads;
} sp_meta;

/* One region of one rank and its calls, in the order the file holds them. */
typedef struct sp_region {
    char *name;
    char *source_file;   /* NULL when the file does not say */
    int64_t source_line; /* 0 when the file does not say */
    char *tags;          /* one per line (sp_tags.h); NULL when none */
    size_t n;
    int64_t *start, *end; /* ns, on the profiler's clock; end >= start */
} sp_region;

/* One function as line_profiler measured it in one rank: per line, exact
 * hits and time. */
typedef struct sp_line_profile {
    char *region;         /* the region it profiled; NULL when the file does not say */
    char *filename;       /* the function's source file, as Python named it */
    char *function;       /* its name */
    int64_t first_lineno; /* its def line; 0 when the file does not say */
    double unit;          /* seconds per tick of times: finite, > 0 */
    size_t n;
    int64_t *line;  /* >= 1 and <= UINT32_MAX */
    int64_t *hits;  /* >= 0 */
    int64_t *times; /* ticks, >= 0 */
} sp_line_profile;

typedef struct sp_rank {
    int64_t rank;
    sp_region *regions;
    size_t nregions, cap_regions;
    size_t nevents; /* over all its regions */
    sp_line_profile *profiles;
    size_t nprofiles, cap_profiles;
    size_t nprofile_lines; /* over all its profiles */
} sp_rank;

/* Opens path and checks its layout.  0 with *out set, or -1 with msg. */
int sp_open(const char *path, sp_file **out, char *msg, size_t msglen);
void sp_close(sp_file *f);

int sp_schema(const sp_file *f); /* 1, 2 or 3 */
/* Frees the strings of m (not m itself). */
void sp_meta_free(sp_meta *m);
const sp_meta *sp_meta_of(const sp_file *f);

/* The ranks the file holds, in increasing rank order. */
size_t sp_nranks(const sp_file *f);
int64_t sp_rank_number(const sp_file *f, size_t i);

/* Reads the i-th rank (sp_rank_number order).  0, or -1 with msg. */
int sp_read_rank(sp_file *f, size_t i, sp_rank *out, char *msg, size_t msglen);
void sp_rank_free(sp_rank *r);

#endif
