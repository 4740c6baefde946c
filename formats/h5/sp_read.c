/* sp_read: checked reads of scope-profiler files; see sp_read.h. */
#define _GNU_SOURCE /* strndup */
#include "sp_read.h"
#include "sp_tags.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sp_fail(char *msg, size_t len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
    return -1;
}

/* The length of a one-dimensional dataset; -1 with msg when it is not one,
 * or when it claims more elements than the file could hold. */
int sp_ds_len(uint64_t file_size, hid_t ds, const char *what, hsize_t *n, char *msg, size_t len) {
    hid_t sp = H5Dget_space(ds);
    int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    hsize_t dims[1] = {0};
    if (rank == 1)
        H5Sget_simple_extent_dims(sp, dims, NULL);
    if (sp >= 0)
        H5Sclose(sp);
    if (rank != 1)
        return sp_fail(msg, len, "%s is not a one-dimensional dataset", what);
    hid_t t = H5Dget_type(ds);
    size_t esize = t >= 0 ? H5Tget_size(t) : 0;
    if (t >= 0)
        H5Tclose(t);
    uint64_t room = file_size * SP_MAX_PACKING + SP_MAX_PACKING;
    if (esize && dims[0] > room / esize)
        return sp_fail(msg, len, "%s claims %" PRIu64 " elements, more than the file can hold",
                       what, (uint64_t)dims[0]);
    /* The library reads a chunked dataset a whole chunk at a time, into a
     * buffer of the size the file claims for it. */
    hid_t plist = H5Dget_create_plist(ds);
    hsize_t chunk[1] = {0};
    int chunked =
        plist >= 0 && H5Pget_layout(plist) == H5D_CHUNKED && H5Pget_chunk(plist, 1, chunk) == 1;
    if (plist >= 0)
        H5Pclose(plist);
    if (chunked && esize && chunk[0] > room / esize)
        return sp_fail(msg, len,
                       "%s claims chunks of %" PRIu64 " elements, more than the file can hold",
                       what, (uint64_t)chunk[0]);
    *n = dims[0];
    return 0;
}

int sp_is_class(hid_t obj, int dataset, H5T_class_t want) {
    hid_t t = dataset ? H5Dget_type(obj) : H5Aget_type(obj);
    if (t < 0)
        return 0;
    int ok = H5Tget_class(t) == want;
    H5Tclose(t);
    return ok;
}

/* Opens the one-dimensional integer dataset loc/name; -1 with msg. */
hid_t sp_open_ints(uint64_t file_size, hid_t loc, const char *name, hsize_t *n, char *msg,
                   size_t len) {
    if (H5Lexists(loc, name, H5P_DEFAULT) <= 0) {
        sp_fail(msg, len, "%s is missing", name);
        return -1;
    }
    hid_t ds = H5Dopen2(loc, name, H5P_DEFAULT);
    if (ds < 0) {
        sp_fail(msg, len, "%s is not a dataset", name);
        return -1;
    }
    if (!sp_is_class(ds, 1, H5T_INTEGER)) {
        H5Dclose(ds);
        sp_fail(msg, len, "%s is not a dataset of integers", name);
        return -1;
    }
    if (sp_ds_len(file_size, ds, name, n, msg, len) < 0) {
        H5Dclose(ds);
        return -1;
    }
    return ds;
}

/* Reads elements [off, off + n) of a one-dimensional dataset as int64
 * (H5T_NATIVE_INT64: HDF5 converts the file's integers). */
int sp_read_ints(hid_t ds, uint64_t off, uint64_t n, int64_t *out, const char *what, char *msg,
                 size_t len) {
    if (!n)
        return 0;
    hid_t fs = H5Dget_space(ds);
    hsize_t start[1] = {off}, count[1] = {n};
    hid_t ms = H5Screate_simple(1, count, NULL);
    int ok = fs >= 0 && ms >= 0 &&
             H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
             H5Dread(ds, H5T_NATIVE_INT64, ms, fs, H5P_DEFAULT, out) >= 0;
    if (ms >= 0)
        H5Sclose(ms);
    if (fs >= 0)
        H5Sclose(fs);
    return ok ? 0 : sp_fail(msg, len, "%s could not be read (the file is damaged)", what);
}

/* A copy of a string held by an HDF5 string type t at p (one element). */
static char *string_at(hid_t t, const void *p) {
    if (H5Tis_variable_str(t) > 0) {
        const char *s = *(char *const *)p;
        return strdup(s ? s : "");
    }
    return strndup(p, H5Tget_size(t));
}

/* Reads every string of the dataset or attribute obj into out[n]; strings
 * are read in the file's own form (variable or fixed length). */
int sp_read_strings(hid_t obj, int dataset, size_t n, char **out) {
    hid_t ft = dataset ? H5Dget_type(obj) : H5Aget_type(obj);
    if (ft < 0)
        return -1;
    int ok = H5Tget_class(ft) == H5T_STRING;
    hid_t mt = ok ? H5Tget_native_type(ft, H5T_DIR_ASCEND) : -1;
    size_t esize = mt >= 0 ? H5Tget_size(mt) : 0;
    unsigned char *buf = ok && esize ? calloc(n ? n : 1, esize) : NULL;
    ok = buf && (dataset ? H5Dread(obj, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf)
                         : H5Aread(obj, mt, buf)) >= 0;
    for (size_t i = 0; ok && i < n; i++)
        ok = (out[i] = string_at(mt, buf + i * esize)) != NULL;
    if (buf && mt >= 0 && H5Tis_variable_str(mt) > 0) {
        hid_t sp = dataset ? H5Dget_space(obj) : H5Aget_space(obj);
        if (sp >= 0) {
            H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, buf);
            H5Sclose(sp);
        }
    }
    free(buf);
    if (mt >= 0)
        H5Tclose(mt);
    H5Tclose(ft);
    return ok ? 0 : -1;
}

/* An attribute of obj: a string (NULL when absent or of another type). */
char *sp_attr_string(hid_t obj, const char *name) {
    if (H5Aexists(obj, name) <= 0)
        return NULL;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    char *s = NULL;
    hid_t sp = a >= 0 ? H5Aget_space(a) : -1;
    if (sp >= 0 && H5Sget_simple_extent_npoints(sp) == 1 && sp_read_strings(a, 0, 1, &s) < 0)
        s = NULL;
    if (sp >= 0)
        H5Sclose(sp);
    if (a >= 0)
        H5Aclose(a);
    return s;
}

/* Schema 1's attribute tags of obj, an array of strings, joined into *out
 * (NULL when absent or empty).  0, or -1 with msg. */
int sp_attr_tags(hid_t obj, char **out, char *msg, size_t len) {
    *out = NULL;
    if (H5Aexists(obj, "tags") <= 0)
        return 0;
    hid_t a = H5Aopen(obj, "tags", H5P_DEFAULT);
    hid_t sp = a >= 0 ? H5Aget_space(a) : -1;
    hssize_t n = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    /* An attribute lives in the object header, which holds at most 64 KiB. */
    char **v = n >= 0 && n <= 65536 ? calloc(n ? (size_t)n : 1, sizeof *v) : NULL;
    int rc =
        v && sp_is_class(a, 0, H5T_STRING) && sp_read_strings(a, 0, (size_t)n, v) == 0 ? 0 : -1;
    if (rc < 0)
        sp_fail(msg, len, "attribute tags is not an array of strings");
    else if (sp_tags_join(v, (size_t)n, out) < 0)
        rc = sp_fail(msg, len, "out of memory");
    for (hssize_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
    if (sp >= 0)
        H5Sclose(sp);
    if (a >= 0)
        H5Aclose(a);
    return rc;
}

/* One number attribute of obj read as mem_type (HDF5 converts): an
 * integer, or (floats) a float too.  0 with *v set, or -1. */
static int attr_number(hid_t obj, const char *name, hid_t mem_type, int floats, void *v) {
    if (H5Aexists(obj, name) <= 0)
        return -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    int ok = 0;
    hid_t sp = a >= 0 ? H5Aget_space(a) : -1;
    if (sp >= 0 && H5Sget_simple_extent_npoints(sp) == 1 &&
        (sp_is_class(a, 0, H5T_INTEGER) || (floats && sp_is_class(a, 0, H5T_FLOAT))))
        ok = H5Aread(a, mem_type, v) >= 0;
    if (sp >= 0)
        H5Sclose(sp);
    if (a >= 0)
        H5Aclose(a);
    return ok ? 0 : -1;
}

int sp_attr_int(hid_t obj, const char *name, int64_t *v) {
    return attr_number(obj, name, H5T_NATIVE_INT64, 0, v);
}

int sp_attr_double(hid_t obj, const char *name, double *v) {
    return attr_number(obj, name, H5T_NATIVE_DOUBLE, 1, v);
}
