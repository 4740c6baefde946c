/*
 * Writing scope-profiler's HDF5 layouts (formats/h5/sp_file.h) with the
 * HDF5 C library, for the importer's tests, its fuzz corpus and its
 * benchmark: the layouts as that profiler writes them, and each part alone
 * so a test can write them wrong on purpose.  Every function aborts the
 * program on an HDF5 failure: a test file that could not be written is a
 * broken test, not a case.
 */
#ifndef SCOPE_SP_H5_WRITE_H
#define SCOPE_SP_H5_WRITE_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

/* A new file at path (truncated), and its closing. */
hid_t spw_create(const char *path);
void spw_close(hid_t file);

/* A group at loc/name (intermediate groups made too). */
hid_t spw_group(hid_t loc, const char *name);

/* A one-dimensional dataset loc/name of n elements of the memory type
 * mtype (H5T_NATIVE_INT64, H5T_NATIVE_DOUBLE, ...) stored as ftype. */
void spw_dataset(hid_t loc, const char *name, hid_t ftype, hid_t mtype, const void *data, size_t n);
void spw_int64s(hid_t loc, const char *name, const int64_t *v, size_t n);
/* The same, chunked in chunks of chunk elements (resizable, as h5py's
 * chunks=True makes them); v NULL leaves the data unwritten, so that no
 * chunk is stored. */
void spw_int64s_chunked(hid_t loc, const char *name, const int64_t *v, size_t n, size_t chunk);
void spw_uint64s(hid_t loc, const char *name, const uint64_t *v, size_t n);
void spw_uint32s(hid_t loc, const char *name, const uint32_t *v, size_t n);
/* n variable-length UTF-8 strings. */
void spw_strings(hid_t loc, const char *name, const char *const *v, size_t n);

/* Scalar attributes on obj. */
void spw_attr_int(hid_t obj, const char *name, int64_t v);
void spw_attr_double(hid_t obj, const char *name, double v);
void spw_attr_str(hid_t obj, const char *name, const char *v);
/* An attribute of n variable-length UTF-8 strings (schema 1's tags). */
void spw_attr_strs(hid_t obj, const char *name, const char *const *v, size_t n);

/* /metadata as scope-profiler writes it: hostname, timestamp,
 * working_directory, scope_profiler_version, python_version, mpi_size. */
void spw_metadata(hid_t file, const char *host, const char *timestamp, int64_t mpi_size);

/* Schema 1: /rankR/regions/NAME/{start_times,end_times}, with source_file
 * and source_lineno when file is not NULL. */
void spw_region1(hid_t file, int64_t rank, const char *name, const int64_t *start,
                 const int64_t *end, size_t n, const char *src, int64_t line);

/* Schemas 2 and 3: the root attributes, /region_table/names, the index rows
 * and the events, times given absolute (schema 3's deltas and durations are
 * computed here).  Row i is rank ranks[i], region region_ids[i], events
 * [offsets[i], offsets[i] + counts[i]). */
typedef struct spw_columnar {
    int schema; /* 2 or 3 */
    const char *const *names;
    size_t nnames;
    const uint32_t *ranks, *region_ids;
    const uint64_t *offsets, *counts;
    const char *const *source_files; /* NULL: left out */
    const int64_t *source_lines;     /* NULL: left out */
    size_t nrows;
    const int64_t *start, *end;
    size_t nevents;
} spw_columnar;
void spw_write_columnar(hid_t file, const spw_columnar *c);

#endif
