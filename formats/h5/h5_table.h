/*
 * Tables of plain C rows in HDF5 files, so that code outside formats/h5/
 * writes and reads HDF5 without HDF5's headers.
 *
 * A table is a one-dimensional dataset of an HDF5 compound type whose
 * members are named fields of a C struct (h5py reads it as a numpy
 * structured array: table['count']).  Tables are chunked, shuffled and
 * deflate-compressed (deflate is in every libhdf5 build).  A table of
 * numbers grows as rows are appended, so its writer holds one batch of rows
 * at most.
 *
 * Strings are fixed-length, as long as the table's longest (h5py reads them
 * as bytes), never variable-length: those live in HDF5's global heap, whose
 * reader in libhdf5 1.10 copies whatever length a damaged file states (a
 * fuzzed file crashed it within 40 inputs).  So a table with strings keeps
 * its rows until it ends, to know that length; such tables hold names and
 * texts, whose number does not grow with the length of a run.  A string
 * holding a NUL byte ends there.
 *
 * Reading matches fields by name, never by position, and converts between
 * integer and float widths as HDF5 does; a field that is missing or of
 * another class (an integer where a string is expected) is an error worded
 * plainly.  No function here prints anything: errors go to err.
 */
#ifndef SCOPE_H5_TABLE_H
#define SCOPE_H5_TABLE_H

#include <stddef.h>
#include <stdint.h>

typedef enum scope_h5_type {
    SCOPE_H5_U8,
    SCOPE_H5_U32,
    SCOPE_H5_I32,
    SCOPE_H5_U64,
    SCOPE_H5_I64,
    SCOPE_H5_F32,
    SCOPE_H5_F64,
    SCOPE_H5_STR, /* a `char *` in the row: a NUL-terminated string; NULL writes "" */
} scope_h5_type;

typedef struct scope_h5_field {
    const char *name;
    size_t offset; /* offsetof the field in the row */
    scope_h5_type type;
    /* A reader takes a file without it (one written before the field was
     * added) as it takes the field at 0. */
    int optional;
} scope_h5_field;

typedef struct scope_h5_table {
    size_t row_size; /* sizeof the row */
    size_t nfields;
    const scope_h5_field *fields;
} scope_h5_table;

typedef struct scope_h5_file scope_h5_file;

/* A new file written through fd, an empty regular file open for reading
 * and writing (which stays the caller's to close); NULL with err set on
 * failure. */
scope_h5_file *scope_h5_create_fd(int fd, char *err, size_t errlen);
/* An existing file, read-only; NULL with err set when it cannot be opened
 * as HDF5. */
scope_h5_file *scope_h5_open(const char *path, char *err, size_t errlen);
/* Flushes and closes; -1 with err set when the file could not be completed
 * (a write failed, the disk is full).  NULL does nothing. */
int scope_h5_close(scope_h5_file *f, char *err, size_t errlen);

/* A group at path ("/roles"); its parent must exist. */
int scope_h5_group(scope_h5_file *f, const char *path, char *err, size_t errlen);
/* 1 when an object (group or dataset) exists at path, its parents included. */
int scope_h5_exists(scope_h5_file *f, const char *path);

/* Attributes of the object at obj ("/" for the file). */
int scope_h5_attr_put_str(scope_h5_file *f, const char *obj, const char *name, const char *value,
                          char *err, size_t errlen);
int scope_h5_attr_put_i64(scope_h5_file *f, const char *obj, const char *name, int64_t value,
                          char *err, size_t errlen);
/* -1 with err set when the attribute is missing, not a fixed-length
 * string (an integer, or variable-length: see above), or not one value;
 * a string longer than cap - 1 is cut. */
int scope_h5_attr_get_str(scope_h5_file *f, const char *obj, const char *name, char *buf,
                          size_t cap, char *err, size_t errlen);
int scope_h5_attr_get_i64(scope_h5_file *f, const char *obj, const char *name, int64_t *value,
                          char *err, size_t errlen);

/* Writing a table in batches. */
typedef struct scope_h5_writer scope_h5_writer;
scope_h5_writer *scope_h5_table_begin(scope_h5_file *f, const char *path, const scope_h5_table *t,
                                      char *err, size_t errlen);
int scope_h5_table_append(scope_h5_writer *w, const void *rows, size_t n, char *err, size_t errlen);
/* Closes the dataset; -1 when it (or an earlier append) failed.  NULL: -1. */
int scope_h5_table_end(scope_h5_writer *w, char *err, size_t errlen);
/* All rows at once: begin, append, end. */
int scope_h5_table_write(scope_h5_file *f, const char *path, const scope_h5_table *t,
                         const void *rows, size_t n, char *err, size_t errlen);

/* Reads the whole table at path into *rows (n rows of row_size bytes,
 * string fields pointing into the same allocation; free with
 * scope_h5_table_free).  Fields of the file not in t are ignored.  Refuses
 * a table of more than max_rows rows, or more than max_rows * row_size
 * bytes with its strings (a damaged file may claim any size).  Returns 0,
 * or -1 with err naming path and what is wrong. */
int scope_h5_table_read(scope_h5_file *f, const char *path, const scope_h5_table *t,
                        size_t max_rows, void **rows, size_t *n, char *err, size_t errlen);
void scope_h5_table_free(const scope_h5_table *t, void *rows, size_t n);

/* A two-dimensional dataset of unsigned 64-bit integers, rows x cols,
 * chunked and compressed as tables are. */
int scope_h5_matrix_u64_write(scope_h5_file *f, const char *path, const uint64_t *v, size_t rows,
                              size_t cols, char *err, size_t errlen);

#endif
