/*
 * sp_read: the checked reads every part of the scope-profiler reader makes
 * (sp_file.c, sp_lineprof.c): datasets held against the file's size before
 * any memory is given to them, integers and strings read in the file's own
 * form, attributes that may be absent or of another type.  Every failure is
 * one plain sentence in msg, without the path.  Only formats/h5/ includes
 * this header (it names HDF5's types).
 */
#ifndef SCOPE_SP_READ_H
#define SCOPE_SP_READ_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

/* Deflate, the strongest compression an HDF5 file usually carries, packs at
 * most 1032 bytes into one: a dataset claiming more than that many times the
 * file's size cannot be stored in it, and is refused before any memory is
 * given to it. */
#define SP_MAX_PACKING 1032

/* Writes the message and returns -1. */
int sp_fail(char *msg, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The length of a one-dimensional dataset of a file of file_size bytes; -1
 * with msg when it is not one, or when it (or its chunks) claims more
 * elements than the file could hold. */
int sp_ds_len(uint64_t file_size, hid_t ds, const char *what, hsize_t *n, char *msg, size_t len);

/* Whether the dataset (dataset 1) or attribute (0) obj is of class want. */
int sp_is_class(hid_t obj, int dataset, H5T_class_t want);

/* Opens the one-dimensional integer dataset loc/name; -1 with msg. */
hid_t sp_open_ints(uint64_t file_size, hid_t loc, const char *name, hsize_t *n, char *msg,
                   size_t len);

/* Reads elements [off, off + n) of a one-dimensional dataset as int64
 * (HDF5 converts the file's integers).  0, or -1 with msg. */
int sp_read_ints(hid_t ds, uint64_t off, uint64_t n, int64_t *out, const char *what, char *msg,
                 size_t len);

/* Reads every string of the dataset (dataset 1) or attribute (0) obj into
 * out[n], malloc'd; strings are read in the file's own form (variable or
 * fixed length).  0 or -1. */
int sp_read_strings(hid_t obj, int dataset, size_t n, char **out);

/* A string attribute of obj, malloc'd; NULL when absent or of another type. */
char *sp_attr_string(hid_t obj, const char *name);

/* An integer attribute of obj; 0 with *v set, -1 when absent or no integer. */
int sp_attr_int(hid_t obj, const char *name, int64_t *v);

/* A number attribute of obj (a float, or an integer converted); 0 with *v
 * set, -1 when absent or not one number. */
int sp_attr_double(hid_t obj, const char *name, double *v);

/* Schema 1's attribute tags of obj, an array of strings, joined into *out
 * (sp_tags.h; NULL when absent or empty).  0, or -1 with msg. */
int sp_attr_tags(hid_t obj, char **out, char *msg, size_t len);

#endif
