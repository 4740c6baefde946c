/* h5_table: tables of plain C rows, attributes and matrices in HDF5 files
 * (h5_table.h), the one place scope's own HDF5 layout touches the library. */
#include "h5_table.h"

#include <hdf5.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct scope_h5_file {
    hid_t id;
    int failed; /* some write failed: closing reports it */
};

struct scope_h5_writer {
    scope_h5_file *f;
    hid_t dset, mtype;
    hsize_t rows;
    int failed;
};

/* Deflate level: 4 compresses runs of small integers nearly as well as 9
 * at a fraction of the time. */
#define DEFLATE_LEVEL 4
/* Bytes per chunk a table aims at. */
#define CHUNK_BYTES (64 * 1024)

static void fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* HDF5 prints its error stack to stderr unless told not to: the callers
 * word errors themselves, in one line. */
static void quiet(void) {
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static hid_t str_type(void) {
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0)) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

static hid_t native(scope_h5_type type) {
    switch (type) {
    case SCOPE_H5_U8:
        return H5T_NATIVE_UINT8;
    case SCOPE_H5_U32:
        return H5T_NATIVE_UINT32;
    case SCOPE_H5_I32:
        return H5T_NATIVE_INT32;
    case SCOPE_H5_U64:
        return H5T_NATIVE_UINT64;
    case SCOPE_H5_I64:
        return H5T_NATIVE_INT64;
    case SCOPE_H5_F32:
        return H5T_NATIVE_FLOAT;
    case SCOPE_H5_F64:
        return H5T_NATIVE_DOUBLE;
    case SCOPE_H5_STR:
        break;
    }
    return -1;
}

/* The compound type of a row in memory. */
static hid_t mem_type(const scope_h5_table *t) {
    hid_t c = H5Tcreate(H5T_COMPOUND, t->row_size);
    hid_t s = str_type();
    int ok = c >= 0 && s >= 0;
    for (size_t i = 0; ok && i < t->nfields; i++) {
        const scope_h5_field *fl = &t->fields[i];
        ok = H5Tinsert(c, fl->name, fl->offset, fl->type == SCOPE_H5_STR ? s : native(fl->type)) >=
             0;
    }
    if (s >= 0)
        H5Tclose(s);
    if (!ok && c >= 0) {
        H5Tclose(c);
        c = -1;
    }
    return c;
}

scope_h5_file *scope_h5_create(const char *path, char *err, size_t errlen) {
    quiet();
    scope_h5_file *f = calloc(1, sizeof *f);
    if (!f) {
        fail(err, errlen, "out of memory");
        return NULL;
    }
    f->id = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f->id < 0) {
        fail(err, errlen, "cannot create an HDF5 file there");
        free(f);
        return NULL;
    }
    return f;
}

scope_h5_file *scope_h5_open(const char *path, char *err, size_t errlen) {
    quiet();
    scope_h5_file *f = calloc(1, sizeof *f);
    if (!f) {
        fail(err, errlen, "out of memory");
        return NULL;
    }
    f->id = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f->id < 0) {
        fail(err, errlen, "cannot be opened as HDF5 (damaged or truncated)");
        free(f);
        return NULL;
    }
    return f;
}

int scope_h5_close(scope_h5_file *f, char *err, size_t errlen) {
    if (!f)
        return 0;
    int rc = f->failed ? -1 : 0;
    if (H5Fclose(f->id) < 0)
        rc = -1;
    if (rc < 0)
        fail(err, errlen, "the HDF5 file could not be completed (disk full?)");
    free(f);
    return rc;
}

int scope_h5_group(scope_h5_file *f, const char *path, char *err, size_t errlen) {
    hid_t g = H5Gcreate2(f->id, path, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) {
        f->failed = 1;
        fail(err, errlen, "cannot create the group %s", path);
        return -1;
    }
    H5Gclose(g);
    return 0;
}

int scope_h5_exists(scope_h5_file *f, const char *path) {
    /* H5Lexists wants each parent to exist: walk the path down. */
    char buf[512];
    size_t n = strlen(path);
    if (n >= sizeof buf || path[0] != '/')
        return 0;
    memcpy(buf, path, n + 1);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char saved = *p;
            *p = '\0';
            if (p > buf + 1 && H5Lexists(f->id, buf, H5P_DEFAULT) <= 0)
                return 0;
            if (!saved)
                return 1;
            *p = saved;
        }
    }
}

static int attr_put(scope_h5_file *f, const char *obj, const char *name, hid_t type,
                    const void *value, char *err, size_t errlen) {
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = space >= 0 ? H5Acreate_by_name(f->id, obj, name, type, space, H5P_DEFAULT,
                                             H5P_DEFAULT, H5P_DEFAULT)
                         : -1;
    int rc = a >= 0 && H5Awrite(a, type, value) >= 0 ? 0 : -1;
    if (a >= 0)
        H5Aclose(a);
    if (space >= 0)
        H5Sclose(space);
    if (rc < 0) {
        f->failed = 1;
        fail(err, errlen, "cannot write the attribute %s of %s", name, obj);
    }
    return rc;
}

int scope_h5_attr_put_str(scope_h5_file *f, const char *obj, const char *name, const char *value,
                          char *err, size_t errlen) {
    hid_t t = str_type();
    const char *v = value ? value : "";
    int rc = t >= 0 ? attr_put(f, obj, name, t, &v, err, errlen) : -1;
    if (t >= 0)
        H5Tclose(t);
    return rc;
}

int scope_h5_attr_put_i64(scope_h5_file *f, const char *obj, const char *name, int64_t value,
                          char *err, size_t errlen) {
    return attr_put(f, obj, name, H5T_STD_I64LE, &value, err, errlen);
}

/* The attribute, its type and its class, after checking it holds one value. */
static hid_t attr_open(scope_h5_file *f, const char *obj, const char *name, hid_t *type,
                       H5T_class_t *cls, char *err, size_t errlen) {
    if (H5Aexists_by_name(f->id, obj, name, H5P_DEFAULT) <= 0) {
        fail(err, errlen, "%s has no attribute %s", obj, name);
        return -1;
    }
    hid_t a = H5Aopen_by_name(f->id, obj, name, H5P_DEFAULT, H5P_DEFAULT);
    hid_t space = a >= 0 ? H5Aget_space(a) : -1;
    hssize_t npoints = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    if (space >= 0)
        H5Sclose(space);
    *type = a >= 0 ? H5Aget_type(a) : -1;
    *cls = *type >= 0 ? H5Tget_class(*type) : H5T_NO_CLASS;
    if (a < 0 || *type < 0 || npoints != 1) {
        fail(err, errlen, "the attribute %s of %s is not a single value", name, obj);
        if (*type >= 0)
            H5Tclose(*type);
        if (a >= 0)
            H5Aclose(a);
        return -1;
    }
    return a;
}

int scope_h5_attr_get_str(scope_h5_file *f, const char *obj, const char *name, char *buf,
                          size_t cap, char *err, size_t errlen) {
    hid_t type;
    H5T_class_t cls;
    hid_t a = attr_open(f, obj, name, &type, &cls, err, errlen);
    if (a < 0)
        return -1;
    int rc = -1;
    if (cls != H5T_STRING)
        fail(err, errlen, "the attribute %s of %s is not a string", name, obj);
    else if (H5Tis_variable_str(type) > 0) {
        hid_t mt = str_type();
        char *s = NULL;
        if (mt >= 0 && H5Aread(a, mt, &s) >= 0) {
            snprintf(buf, cap, "%s", s ? s : "");
            rc = 0;
        }
        if (s)
            H5free_memory(s);
        if (mt >= 0)
            H5Tclose(mt);
    } else {
        size_t size = H5Tget_size(type);
        char *s = size && size < (1u << 20) ? calloc(1, size + 1) : NULL;
        hid_t mt = H5Tcopy(type);
        if (s && mt >= 0 && H5Aread(a, mt, s) >= 0) {
            snprintf(buf, cap, "%s", s);
            rc = 0;
        }
        if (mt >= 0)
            H5Tclose(mt);
        free(s);
    }
    if (rc < 0 && cls == H5T_STRING)
        fail(err, errlen, "the attribute %s of %s cannot be read", name, obj);
    H5Tclose(type);
    H5Aclose(a);
    return rc;
}

int scope_h5_attr_get_i64(scope_h5_file *f, const char *obj, const char *name, int64_t *value,
                          char *err, size_t errlen) {
    hid_t type;
    H5T_class_t cls;
    hid_t a = attr_open(f, obj, name, &type, &cls, err, errlen);
    if (a < 0)
        return -1;
    int rc = -1;
    if (cls != H5T_INTEGER)
        fail(err, errlen, "the attribute %s of %s is not an integer", name, obj);
    else if (H5Aread(a, H5T_NATIVE_INT64, value) < 0)
        fail(err, errlen, "the attribute %s of %s cannot be read", name, obj);
    else
        rc = 0;
    H5Tclose(type);
    H5Aclose(a);
    return rc;
}

/* ---- writing tables -------------------------------------------------------- */

/* A dataset creation list: chunks of `chunk` rows (or of chunk x cols for a
 * matrix), shuffled and deflated. */
static hid_t chunked(int rank, const hsize_t *chunk) {
    hid_t p = H5Pcreate(H5P_DATASET_CREATE);
    if (p >= 0 && (H5Pset_chunk(p, rank, chunk) < 0 || H5Pset_shuffle(p) < 0 ||
                   H5Pset_deflate(p, DEFLATE_LEVEL) < 0)) {
        H5Pclose(p);
        return -1;
    }
    return p;
}

scope_h5_writer *scope_h5_table_begin(scope_h5_file *f, const char *path, const scope_h5_table *t,
                                      char *err, size_t errlen) {
    scope_h5_writer *w = calloc(1, sizeof *w);
    if (!w) {
        fail(err, errlen, "out of memory");
        f->failed = 1;
        return NULL;
    }
    w->f = f;
    w->dset = w->mtype = -1;
    w->mtype = mem_type(t);
    /* In the file the members are packed, without the row's padding. */
    hid_t ftype = w->mtype >= 0 ? H5Tcopy(w->mtype) : -1;
    if (ftype >= 0 && H5Tpack(ftype) < 0) {
        H5Tclose(ftype);
        ftype = -1;
    }
    size_t row = ftype >= 0 ? H5Tget_size(ftype) : 1;
    hsize_t chunk = CHUNK_BYTES / (row ? row : 1);
    chunk = chunk < 16 ? 16 : chunk;
    hsize_t zero = 0, unlimited = H5S_UNLIMITED;
    hid_t space = H5Screate_simple(1, &zero, &unlimited);
    hid_t dcpl = chunked(1, &chunk);
    if (ftype >= 0 && space >= 0 && dcpl >= 0)
        w->dset = H5Dcreate2(f->id, path, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    if (ftype >= 0)
        H5Tclose(ftype);
    if (w->dset < 0) {
        fail(err, errlen, "cannot create the table %s", path);
        f->failed = 1;
        if (w->mtype >= 0)
            H5Tclose(w->mtype);
        free(w);
        return NULL;
    }
    return w;
}

int scope_h5_table_append(scope_h5_writer *w, const void *rows, size_t n, char *err,
                          size_t errlen) {
    if (w->failed)
        return -1;
    if (!n)
        return 0;
    hsize_t start = w->rows, count = n, total = w->rows + n;
    hid_t fspace = -1, mspace = -1;
    int ok = H5Dset_extent(w->dset, &total) >= 0 && (fspace = H5Dget_space(w->dset)) >= 0 &&
             H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0 &&
             (mspace = H5Screate_simple(1, &count, NULL)) >= 0 &&
             H5Dwrite(w->dset, w->mtype, mspace, fspace, H5P_DEFAULT, rows) >= 0;
    if (mspace >= 0)
        H5Sclose(mspace);
    if (fspace >= 0)
        H5Sclose(fspace);
    if (!ok) {
        w->failed = w->f->failed = 1;
        fail(err, errlen, "cannot write a table's rows (disk full?)");
        return -1;
    }
    w->rows = total;
    return 0;
}

int scope_h5_table_end(scope_h5_writer *w, char *err, size_t errlen) {
    if (!w)
        return -1;
    int rc = w->failed ? -1 : 0;
    if (H5Dclose(w->dset) < 0 && !rc) {
        rc = -1;
        w->f->failed = 1;
        fail(err, errlen, "cannot write a table (disk full?)");
    }
    H5Tclose(w->mtype);
    free(w);
    return rc;
}

int scope_h5_table_write(scope_h5_file *f, const char *path, const scope_h5_table *t,
                         const void *rows, size_t n, char *err, size_t errlen) {
    scope_h5_writer *w = scope_h5_table_begin(f, path, t, err, errlen);
    if (!w)
        return -1;
    int rc = scope_h5_table_append(w, rows, n, err, errlen);
    return scope_h5_table_end(w, err, errlen) < 0 ? -1 : rc;
}

int scope_h5_matrix_u64_write(scope_h5_file *f, const char *path, const uint64_t *v, size_t rows,
                              size_t cols, char *err, size_t errlen) {
    hsize_t dims[2] = {rows, cols};
    hsize_t chunk[2] = {CHUNK_BYTES / 8 / (cols ? cols : 1), cols ? cols : 1};
    if (chunk[0] < 1)
        chunk[0] = 1;
    if (rows && chunk[0] > rows)
        chunk[0] = rows;
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dcpl = rows && cols ? chunked(2, chunk) : H5Pcreate(H5P_DATASET_CREATE);
    hid_t d = space >= 0 && dcpl >= 0
                  ? H5Dcreate2(f->id, path, H5T_STD_U64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT)
                  : -1;
    int rc = d >= 0 && (!rows || !cols ||
                        H5Dwrite(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0)
                 ? 0
                 : -1;
    if (d >= 0 && H5Dclose(d) < 0)
        rc = -1;
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    if (rc < 0) {
        f->failed = 1;
        fail(err, errlen, "cannot write the dataset %s", path);
    }
    return rc;
}

/* ---- reading tables -------------------------------------------------------- */

static const char *class_wanted(scope_h5_type type) {
    switch (type) {
    case SCOPE_H5_F32:
    case SCOPE_H5_F64:
        return "a number";
    case SCOPE_H5_STR:
        return "a variable-length string";
    default:
        return "an integer";
    }
}

/* 1 when the file's member type can be read as the field's type. */
static int member_fits(hid_t ftype, unsigned idx, scope_h5_type type) {
    H5T_class_t cls = H5Tget_member_class(ftype, idx);
    if (type == SCOPE_H5_STR) {
        if (cls != H5T_STRING)
            return 0;
        hid_t mt = H5Tget_member_type(ftype, idx);
        int var = mt >= 0 && H5Tis_variable_str(mt) > 0;
        if (mt >= 0)
            H5Tclose(mt);
        return var;
    }
    if (type == SCOPE_H5_F32 || type == SCOPE_H5_F64)
        return cls == H5T_FLOAT || cls == H5T_INTEGER;
    return cls == H5T_INTEGER;
}

int scope_h5_table_read(scope_h5_file *f, const char *path, const scope_h5_table *t,
                        size_t max_rows, void **rows, size_t *n, char *err, size_t errlen) {
    *rows = NULL;
    *n = 0;
    if (!scope_h5_exists(f, path)) {
        fail(err, errlen, "%s is missing", path);
        return -1;
    }
    hid_t d = H5Dopen2(f->id, path, H5P_DEFAULT);
    if (d < 0) {
        fail(err, errlen, "%s is not a dataset", path);
        return -1;
    }
    int rc = -1;
    hid_t ftype = H5Dget_type(d), space = H5Dget_space(d), mtype = -1;
    hsize_t dims[1] = {0};
    void *buf = NULL;
    if (ftype < 0 || space < 0 || H5Tget_class(ftype) != H5T_COMPOUND ||
        H5Sget_simple_extent_ndims(space) != 1 ||
        H5Sget_simple_extent_dims(space, dims, NULL) != 1) {
        fail(err, errlen, "%s is not a table (a one-dimensional compound dataset)", path);
        goto out;
    }
    for (size_t i = 0; i < t->nfields; i++) {
        int idx = H5Tget_member_index(ftype, t->fields[i].name);
        if (idx < 0) {
            fail(err, errlen, "%s has no field %s", path, t->fields[i].name);
            goto out;
        }
        if (!member_fits(ftype, (unsigned)idx, t->fields[i].type)) {
            fail(err, errlen, "%s: field %s is not %s", path, t->fields[i].name,
                 class_wanted(t->fields[i].type));
            goto out;
        }
    }
    if (dims[0] > max_rows) {
        fail(err, errlen, "%s claims %llu rows, more than the %zu this file can hold", path,
             (unsigned long long)dims[0], max_rows);
        goto out;
    }
    mtype = mem_type(t);
    buf = calloc(dims[0] ? dims[0] : 1, t->row_size);
    if (mtype < 0 || !buf) {
        fail(err, errlen, "%s: out of memory", path);
        goto out;
    }
    if (dims[0] && H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        /* Strings read before the failure are freed with the rest. */
        H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, buf);
        fail(err, errlen, "%s cannot be read (damaged or truncated file)", path);
        goto out;
    }
    *rows = buf;
    *n = dims[0];
    buf = NULL;
    rc = 0;
out:
    free(buf);
    if (mtype >= 0)
        H5Tclose(mtype);
    if (ftype >= 0)
        H5Tclose(ftype);
    if (space >= 0)
        H5Sclose(space);
    H5Dclose(d);
    return rc;
}

void scope_h5_table_free(const scope_h5_table *t, void *rows, size_t n) {
    if (!rows)
        return;
    int has_str = 0;
    for (size_t i = 0; i < t->nfields; i++)
        has_str |= t->fields[i].type == SCOPE_H5_STR;
    if (has_str && n) {
        hsize_t dims = n;
        hid_t mtype = mem_type(t), space = H5Screate_simple(1, &dims, NULL);
        if (mtype >= 0 && space >= 0)
            H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, rows);
        if (space >= 0)
            H5Sclose(space);
        if (mtype >= 0)
            H5Tclose(mtype);
    }
    free(rows);
}
