/*
 * What the parts of h5_table.h share (h5_file.c, h5_table_write.c,
 * h5_table_read.c): the file handle, the way rows are staged for HDF5, and
 * error wording.  Only formats/h5/ includes this header (it names HDF5's
 * types).
 */
#ifndef SCOPE_H5_COMMON_H
#define SCOPE_H5_COMMON_H

#include "h5_table.h"

#include <hdf5.h>

struct scope_h5_file {
    hid_t id;
    int failed; /* some write failed: closing reports it */
};

/* Deflate level: 4 compresses runs of small integers nearly as well as 9
 * at a fraction of the time. */
#define DEFLATE_LEVEL 4
/* Bytes per chunk a table aims at. */
#define CHUNK_BYTES (64 * 1024)

/* Writes the message into err (when there is one). */
void h5_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A fixed-length string type of len bytes (at least 1), padded with NULs. */
hid_t h5_fixed_str(size_t len);

/* The native HDF5 type of a number field; -1 for a string. */
hid_t h5_native(scope_h5_type type);

/* The string fields of a table. */
size_t h5_count_strings(const scope_h5_table *t);

/* The staging row of a table: the C row, with the text of its k-th string
 * field at row_size + str_off[k], str_len[k] bytes.  Its compound type puts
 * every number where the C row has it and each string in its text's place,
 * so HDF5 reads and writes staging rows directly.  str_off and str_len
 * (h5_count_strings entries) may be NULL for a table without strings. */
hid_t h5_staging_type(const scope_h5_table *t, const size_t *str_off, const size_t *str_len,
                      size_t staged_size);

#endif
