/* h5_table: tables of plain C rows, attributes and matrices in HDF5 files
 * (h5_table.h), the one place scope's own HDF5 layout touches the library. */
#include "h5_table.h"

#include <hdf5.h>
#include <zlib.h>
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
    const scope_h5_table *t;
    char *path;
    hid_t dset, mtype; /* a table without strings: created at once */
    hsize_t written;   /* rows appended */
    int failed;
    size_t nstr; /* its string fields; with any, the rows are kept and written at the end */
    char *kept;  /* rows kept, their strings replaced by offsets into text */
    size_t nkept, cap_kept;
    char *text;
    size_t ntext, cap_text;
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
 * word errors themselves, in one line.  Nor does it close what is left at
 * exit: libhdf5 1.10 crashes closing again a file whose close failed (a
 * full disk), and the process's exit frees everything anyway.  The first
 * call here comes before any other HDF5 call, as H5dont_atexit wants. */
static void quiet(void) {
    H5dont_atexit();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* A fixed-length string type of len bytes (at least 1), padded with NULs. */
static hid_t fixed_str(size_t len) {
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, len ? len : 1) < 0 || H5Tset_strpad(t, H5T_STR_NULLPAD) < 0 ||
                   H5Tset_cset(t, H5T_CSET_UTF8) < 0)) {
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

static size_t count_strings(const scope_h5_table *t) {
    size_t n = 0;
    for (size_t i = 0; i < t->nfields; i++)
        n += t->fields[i].type == SCOPE_H5_STR;
    return n;
}

/* The staging row of a table: the C row, with the text of its k-th string
 * field at row_size + str_off[k], str_len[k] bytes.  Its compound type puts
 * every number where the C row has it and each string in its text's place,
 * so HDF5 reads and writes staging rows directly.  str_off and str_len
 * (count_strings entries) may be NULL for a table without strings. */
static hid_t staging_type(const scope_h5_table *t, const size_t *str_off, const size_t *str_len,
                          size_t staged_size) {
    hid_t c = H5Tcreate(H5T_COMPOUND, staged_size);
    int ok = c >= 0;
    for (size_t i = 0, k = 0; ok && i < t->nfields; i++) {
        const scope_h5_field *fl = &t->fields[i];
        if (fl->type == SCOPE_H5_STR) {
            hid_t st = fixed_str(str_len[k]);
            ok = st >= 0 && H5Tinsert(c, fl->name, t->row_size + str_off[k], st) >= 0;
            if (st >= 0)
                H5Tclose(st);
            k++;
        } else
            ok = H5Tinsert(c, fl->name, fl->offset, native(fl->type)) >= 0;
    }
    if (!ok && c >= 0) {
        H5Tclose(c);
        c = -1;
    }
    return c;
}

/* A file created afresh (create) or opened read-only. */
static scope_h5_file *open_file(const char *path, int create, char *err, size_t errlen) {
    quiet();
    scope_h5_file *f = calloc(1, sizeof *f);
    if (!f) {
        fail(err, errlen, "out of memory");
        return NULL;
    }
    f->id = create ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)
                   : H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f->id < 0) {
        fail(err, errlen, "%s",
             create ? "cannot create an HDF5 file there"
                    : "cannot be opened as HDF5 (damaged or truncated)");
        free(f);
        return NULL;
    }
    return f;
}

scope_h5_file *scope_h5_create(const char *path, char *err, size_t errlen) {
    return open_file(path, 1, err, errlen);
}

scope_h5_file *scope_h5_open(const char *path, char *err, size_t errlen) {
    return open_file(path, 0, err, errlen);
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
    const char *v = value ? value : "";
    hid_t t = fixed_str(strlen(v));
    int rc = t >= 0 ? attr_put(f, obj, name, t, *v ? v : "", err, errlen) : -1;
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
    size_t size = cls == H5T_STRING && H5Tis_variable_str(type) == 0 ? H5Tget_size(type) : 0;
    if (!size || size > (1u << 20))
        fail(err, errlen, "the attribute %s of %s is not a fixed-length string", name, obj);
    else {
        char *s = calloc(1, size + 1);
        hid_t mt = fixed_str(size);
        if (s && mt >= 0 && H5Aread(a, mt, s) >= 0) {
            snprintf(buf, cap, "%s", s);
            rc = 0;
        } else
            fail(err, errlen, "the attribute %s of %s cannot be read", name, obj);
        if (mt >= 0)
            H5Tclose(mt);
        free(s);
    }
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

/* Creates the dataset of a table: file type ftype (packed), rows rows. */
static hid_t create_table(scope_h5_file *f, const char *path, hid_t mtype, hsize_t rows) {
    hid_t ftype = H5Tcopy(mtype);
    if (ftype >= 0 && H5Tpack(ftype) < 0) {
        H5Tclose(ftype);
        ftype = -1;
    }
    size_t row = ftype >= 0 ? H5Tget_size(ftype) : 1;
    hsize_t chunk = CHUNK_BYTES / (row ? row : 1);
    chunk = chunk < 16 ? 16 : chunk;
    hsize_t unlimited = H5S_UNLIMITED;
    hid_t space = H5Screate_simple(1, &rows, &unlimited);
    hid_t dcpl = chunked(1, &chunk);
    hid_t d = -1;
    if (ftype >= 0 && space >= 0 && dcpl >= 0)
        d = H5Dcreate2(f->id, path, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    if (ftype >= 0)
        H5Tclose(ftype);
    return d;
}

/* Writes n rows of type mtype at row `start` of the dataset. */
static int write_rows(hid_t d, hid_t mtype, hsize_t start, size_t n, const void *rows) {
    hsize_t count = n, total = start + n;
    hid_t fspace = -1, mspace = -1;
    int ok = H5Dset_extent(d, &total) >= 0 && (fspace = H5Dget_space(d)) >= 0 &&
             H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0 &&
             (mspace = H5Screate_simple(1, &count, NULL)) >= 0 &&
             H5Dwrite(d, mtype, mspace, fspace, H5P_DEFAULT, rows) >= 0;
    if (mspace >= 0)
        H5Sclose(mspace);
    if (fspace >= 0)
        H5Sclose(fspace);
    return ok ? 0 : -1;
}

scope_h5_writer *scope_h5_table_begin(scope_h5_file *f, const char *path, const scope_h5_table *t,
                                      char *err, size_t errlen) {
    scope_h5_writer *w = calloc(1, sizeof *w);
    size_t plen = strlen(path);
    if (w)
        w->path = malloc(plen + 1);
    if (!w || !w->path) {
        fail(err, errlen, "out of memory");
        f->failed = 1;
        if (w)
            free(w);
        return NULL;
    }
    memcpy(w->path, path, plen + 1);
    w->f = f;
    w->t = t;
    w->dset = w->mtype = -1;
    w->nstr = count_strings(t);
    if (w->nstr)
        return w; /* created at the end, once its strings' lengths are known */
    w->mtype = staging_type(t, NULL, NULL, t->row_size);
    if (w->mtype >= 0)
        w->dset = create_table(f, path, w->mtype, 0);
    if (w->dset < 0) {
        fail(err, errlen, "cannot create the table %s", path);
        f->failed = 1;
        if (w->mtype >= 0)
            H5Tclose(w->mtype);
        free(w->path);
        free(w);
        return NULL;
    }
    return w;
}

/* *p holds at least need bytes, doubling; -1 when out of memory. */
static int grow(void **p, size_t *cap, size_t need) {
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 4096;
    while (c < need)
        c = c > SIZE_MAX / 2 ? need : c * 2;
    void *q = realloc(*p, c);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* Keeps n rows of a table with strings: the rows, and each string's bytes
 * (rows may point at memory that does not outlive the call). */
static int keep_rows(scope_h5_writer *w, const char *rows, size_t n) {
    const scope_h5_table *t = w->t;
    if (n > SIZE_MAX / t->row_size - w->nkept ||
        grow((void **)&w->kept, &w->cap_kept, (w->nkept + n) * t->row_size) < 0)
        return -1;
    for (size_t r = 0; r < n; r++) {
        char *row = w->kept + (w->nkept + r) * t->row_size;
        memcpy(row, rows + r * t->row_size, t->row_size);
        for (size_t i = 0; i < t->nfields; i++) {
            if (t->fields[i].type != SCOPE_H5_STR)
                continue;
            const char *s;
            memcpy(&s, row + t->fields[i].offset, sizeof s);
            size_t len = s ? strlen(s) : 0;
            if (grow((void **)&w->text, &w->cap_text, w->ntext + len + 1) < 0)
                return -1;
            memcpy(w->text + w->ntext, s ? s : "", len + 1);
            /* The row keeps the string's offset in text until the end. */
            uintptr_t off = w->ntext;
            memcpy(row + t->fields[i].offset, &off, sizeof off);
            w->ntext += len + 1;
        }
    }
    w->nkept += n;
    return 0;
}

int scope_h5_table_append(scope_h5_writer *w, const void *rows, size_t n, char *err,
                          size_t errlen) {
    if (w->failed)
        return -1;
    if (!n)
        return 0;
    int rc = w->nstr ? keep_rows(w, rows, n) : write_rows(w->dset, w->mtype, w->written, n, rows);
    if (rc < 0) {
        w->failed = w->f->failed = 1;
        fail(err, errlen, "cannot write the rows of %s (%s)", w->path,
             w->nstr ? "out of memory" : "disk full?");
        return -1;
    }
    w->written += n;
    return 0;
}

/* Writes the rows a table with strings kept: its strings as long as the
 * longest of each field, the rows staged a batch at a time. */
static int write_kept(scope_h5_writer *w) {
    const scope_h5_table *t = w->t;
    size_t *off = calloc(w->nstr, sizeof *off), *len = calloc(w->nstr, sizeof *len);
    char *stage = NULL;
    hid_t mtype = -1, d = -1;
    int rc = -1;
    if (!off || !len)
        goto out;
    for (size_t r = 0; r < w->nkept; r++)
        for (size_t i = 0, k = 0; i < t->nfields; i++)
            if (t->fields[i].type == SCOPE_H5_STR) {
                uintptr_t o;
                memcpy(&o, w->kept + r * t->row_size + t->fields[i].offset, sizeof o);
                size_t l = strlen(w->text + o);
                len[k] = l > len[k] ? l : len[k];
                k++;
            }
    size_t staged = t->row_size;
    for (size_t k = 0; k < w->nstr; k++) {
        len[k] = len[k] ? len[k] : 1;
        off[k] = staged - t->row_size;
        staged += len[k];
    }
    staged = (staged + 7) & ~(size_t)7;
    size_t batch = CHUNK_BYTES / staged + 1;
    stage = malloc(batch * staged);
    mtype = staging_type(t, off, len, staged);
    if (!stage || mtype < 0 || (d = create_table(w->f, w->path, mtype, 0)) < 0)
        goto out;
    for (size_t first = 0; first < w->nkept; first += batch) {
        size_t n = w->nkept - first < batch ? w->nkept - first : batch;
        memset(stage, 0, n * staged);
        for (size_t r = 0; r < n; r++) {
            char *row = stage + r * staged;
            memcpy(row, w->kept + (first + r) * t->row_size, t->row_size);
            for (size_t i = 0, k = 0; i < t->nfields; i++)
                if (t->fields[i].type == SCOPE_H5_STR) {
                    uintptr_t o;
                    memcpy(&o, row + t->fields[i].offset, sizeof o);
                    memcpy(row + t->row_size + off[k], w->text + o, strlen(w->text + o));
                    k++;
                }
        }
        if (write_rows(d, mtype, first, n, stage) < 0)
            goto out;
    }
    rc = 0;
out:
    if (d >= 0 && H5Dclose(d) < 0)
        rc = -1;
    if (mtype >= 0)
        H5Tclose(mtype);
    free(stage);
    free(off);
    free(len);
    return rc;
}

int scope_h5_table_end(scope_h5_writer *w, char *err, size_t errlen) {
    if (!w)
        return -1;
    int rc = w->failed ? -1 : 0;
    if (w->nstr) {
        if (!rc && write_kept(w) < 0) {
            rc = -1;
            fail(err, errlen, "cannot write the table %s (disk full?)", w->path);
        }
    } else {
        if (H5Dclose(w->dset) < 0 && !rc) {
            rc = -1;
            fail(err, errlen, "cannot write the table %s (disk full?)", w->path);
        }
        H5Tclose(w->mtype);
    }
    if (rc < 0)
        w->f->failed = 1;
    free(w->kept);
    free(w->text);
    free(w->path);
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
        return "a fixed-length string";
    default:
        return "an integer";
    }
}

/* 1 when the file's member type can be read as the field's type; *len is
 * a fixed-length string's length. */
static int member_fits(hid_t ftype, unsigned idx, scope_h5_type type, size_t *len) {
    H5T_class_t cls = H5Tget_member_class(ftype, idx);
    if (type == SCOPE_H5_STR) {
        if (cls != H5T_STRING)
            return 0;
        hid_t mt = H5Tget_member_type(ftype, idx);
        int fixed = mt >= 0 && H5Tis_variable_str(mt) == 0;
        *len = fixed ? H5Tget_size(mt) : 0;
        if (mt >= 0)
            H5Tclose(mt);
        return fixed && *len > 0;
    }
    if (type == SCOPE_H5_F32 || type == SCOPE_H5_F64)
        return cls == H5T_FLOAT || cls == H5T_INTEGER;
    return cls == H5T_INTEGER;
}

/* 1 for an IEEE single or double of either byte order. */
static int ieee_float(hid_t t) {
    return H5Tequal(t, H5T_IEEE_F32LE) > 0 || H5Tequal(t, H5T_IEEE_F64LE) > 0 ||
           H5Tequal(t, H5T_IEEE_F32BE) > 0 || H5Tequal(t, H5T_IEEE_F64BE) > 0;
}

/* The file's compound type is one scope writes: every member a plain
 * integer, float or fixed-length string, each within the row and none
 * overlapping another.  libhdf5 1.10 trusts a damaged type's sizes and
 * offsets as it converts (a fuzzed file made it read freed memory), so a
 * type is checked whole before any row is read.  Returns NULL, or why not. */
static const char *type_unsound(hid_t ftype) {
    int nmembers = H5Tget_nmembers(ftype);
    size_t size = H5Tget_size(ftype);
    if (nmembers <= 0 || nmembers > 4096 || size == 0)
        return "an empty or oversized row type";
    size_t *start = calloc((size_t)nmembers, sizeof *start);
    size_t *end = calloc((size_t)nmembers, sizeof *end);
    const char *why = start && end ? NULL : "out of memory";
    for (int i = 0; !why && i < nmembers; i++) {
        hid_t mt = H5Tget_member_type(ftype, (unsigned)i);
        H5T_class_t cls = mt >= 0 ? H5Tget_class(mt) : H5T_NO_CLASS;
        size_t msize = mt >= 0 ? H5Tget_size(mt) : 0;
        size_t off = H5Tget_member_offset(ftype, (unsigned)i);
        if (cls == H5T_INTEGER)
            why = msize == 1 || msize == 2 || msize == 4 || msize == 8 ? NULL
                                                                       : "an integer of odd size";
        else if (cls == H5T_FLOAT)
            why = ieee_float(mt) ? NULL : "a float of a form other than IEEE's";
        else if (cls != H5T_STRING)
            why = "a field of a kind scope does not write";
        if (!why && (msize == 0 || off > size || msize > size - off))
            why = "a field outside its row";
        if (mt >= 0)
            H5Tclose(mt);
        if (!why) {
            start[i] = off;
            end[i] = off + msize;
            for (int k = 0; k < i && !why; k++)
                if (start[i] < end[k] && start[k] < end[i])
                    why = "overlapping fields";
        }
    }
    free(start);
    free(end);
    return why;
}

/* HDF5's shuffle filter undone: byte j of element i was stored at
 * j * n + i. */
static void unshuffle(const unsigned char *in, unsigned char *out, size_t n, size_t size) {
    for (size_t j = 0; j < size; j++)
        for (size_t i = 0; i < n; i++)
            out[i * size + j] = in[j * n + i];
}

/* The rows of a table as staged rows (mtype, `staged` bytes each), read a
 * chunk at a time.  The chunks' bytes are read raw (H5Dread_chunk) and
 * inflated and unshuffled here, each to exactly the size its chunk must
 * have: libhdf5 1.10's own pipeline trusts a damaged file's chunk size
 * (a fuzzed file made it read past a chunk's buffer).  Only tables as
 * h5_table writes them are read: chunked, shuffled, then deflated.
 * Returns NULL, or what is wrong. */
static const char *read_chunks(hid_t d, hid_t ftype, hid_t mtype, size_t nrows, char *stage,
                               size_t staged) {
    hid_t dcpl = H5Dget_create_plist(d);
    hsize_t chunk = 0;
    const char *why = NULL;
    if (dcpl < 0 || H5Pget_layout(dcpl) != H5D_CHUNKED || H5Pget_chunk(dcpl, 1, &chunk) != 1 ||
        chunk == 0 || chunk > (1u << 24))
        why = "not stored in chunks as scope stores tables";
    else if (H5Pget_nfilters(dcpl) != 2 ||
             H5Pget_filter2(dcpl, 0, NULL, NULL, NULL, 0, NULL, NULL) != H5Z_FILTER_SHUFFLE ||
             H5Pget_filter2(dcpl, 1, NULL, NULL, NULL, 0, NULL, NULL) != H5Z_FILTER_DEFLATE)
        why = "not shuffled and deflated as scope stores tables";
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (why)
        return why;
    size_t fsize = H5Tget_size(ftype);
    size_t raw = (size_t)chunk * fsize, wide = fsize > staged ? fsize : staged;
    if (!fsize || raw / fsize != chunk || raw > ((size_t)64 << 20))
        return "chunks larger than scope writes";
    size_t comp_cap = raw + raw / 8 + 1024; /* deflate's worst case, and then some */
    unsigned char *comp = malloc(comp_cap), *plain = malloc(raw), *rows = malloc(raw);
    unsigned char *conv = malloc((size_t)chunk * wide), *bkg = calloc(chunk, staged);
    if (!comp || !plain || !rows || !conv || !bkg)
        why = "out of memory";
    for (size_t first = 0; !why && first < nrows; first += chunk) {
        hsize_t off = first, nbytes = 0;
        uint32_t mask = 0;
        uLongf out = (uLongf)raw;
        size_t n = nrows - first < chunk ? nrows - first : (size_t)chunk;
        if (H5Dget_chunk_storage_size(d, &off, &nbytes) < 0 || nbytes == 0)
            why = "a chunk is missing (damaged or truncated file)";
        else if (nbytes > comp_cap)
            why = "a chunk larger than its rows could take";
        else if (H5Dread_chunk(d, H5P_DEFAULT, &off, &mask, comp) < 0)
            why = "a chunk cannot be read (damaged or truncated file)";
        else if (mask != 0)
            why = "a chunk stored without its filters";
        else if (uncompress(plain, &out, comp, (uLong)nbytes) != Z_OK || out != raw)
            why = "a chunk does not inflate to its size (damaged file)";
        if (why)
            break;
        unshuffle(plain, rows, (size_t)chunk, fsize);
        memcpy(conv, rows, n * fsize);
        memset(bkg, 0, n * staged);
        if (H5Tconvert(ftype, mtype, n, conv, bkg, H5P_DEFAULT) < 0) {
            why = "rows that cannot be converted (damaged file)";
            break;
        }
        memcpy(stage + first * staged, conv, n * staged);
    }
    free(comp);
    free(plain);
    free(rows);
    free(conv);
    free(bkg);
    return why;
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
    size_t nstr = count_strings(t);
    size_t *off = calloc(nstr + 1, sizeof *off), *len = calloc(nstr + 1, sizeof *len);
    hid_t ftype = H5Dget_type(d), space = H5Dget_space(d), mtype = -1;
    hsize_t dims[1] = {0};
    char *stage = NULL, *out = NULL;
    if (!off || !len) {
        fail(err, errlen, "%s: out of memory", path);
        goto done;
    }
    if (ftype < 0 || space < 0 || H5Tget_class(ftype) != H5T_COMPOUND ||
        H5Sget_simple_extent_ndims(space) != 1 ||
        H5Sget_simple_extent_dims(space, dims, NULL) != 1) {
        fail(err, errlen, "%s is not a table (a one-dimensional compound dataset)", path);
        goto done;
    }
    const char *unsound = type_unsound(ftype);
    if (unsound) {
        fail(err, errlen, "%s: its row type is damaged (%s)", path, unsound);
        goto done;
    }
    /* Bytes a row takes staged, then as returned (with its strings). */
    size_t staged = t->row_size, text = 0;
    for (size_t i = 0, k = 0; i < t->nfields; i++) {
        int idx = H5Tget_member_index(ftype, t->fields[i].name);
        size_t l = 0;
        if (idx < 0) {
            fail(err, errlen, "%s has no field %s", path, t->fields[i].name);
            goto done;
        }
        if (!member_fits(ftype, (unsigned)idx, t->fields[i].type, &l)) {
            fail(err, errlen, "%s: field %s is not %s", path, t->fields[i].name,
                 class_wanted(t->fields[i].type));
            goto done;
        }
        if (t->fields[i].type == SCOPE_H5_STR) {
            if (l > max_rows) {
                fail(err, errlen, "%s: field %s claims strings of %zu bytes", path,
                     t->fields[i].name, l);
                goto done;
            }
            off[k] = staged - t->row_size;
            len[k++] = l;
            staged += l;
            text += l + 1;
        }
    }
    staged = (staged + 7) & ~(size_t)7;
    size_t max_bytes = max_rows > SIZE_MAX / t->row_size ? SIZE_MAX : max_rows * t->row_size;
    if (dims[0] > max_rows || (dims[0] && (staged + text) > max_bytes / dims[0])) {
        fail(err, errlen, "%s claims %llu rows, more than the %zu this file can hold", path,
             (unsigned long long)dims[0], max_rows);
        goto done;
    }
    size_t nrows = (size_t)dims[0];
    mtype = staging_type(t, off, len, staged);
    stage = calloc(nrows ? nrows : 1, staged);
    out = calloc(1, nrows * (t->row_size + text) + 1);
    if (mtype < 0 || !stage || !out) {
        fail(err, errlen, "%s: out of memory", path);
        goto done;
    }
    const char *unread = nrows ? read_chunks(d, ftype, mtype, nrows, stage, staged) : NULL;
    if (unread) {
        fail(err, errlen, "%s cannot be read: %s", path, unread);
        goto done;
    }
    /* Rows first, then their strings, each NUL-terminated. */
    char *strings = out + nrows * t->row_size;
    for (size_t r = 0; r < nrows; r++) {
        char *row = out + r * t->row_size;
        memcpy(row, stage + r * staged, t->row_size);
        for (size_t i = 0, k = 0; i < t->nfields; i++)
            if (t->fields[i].type == SCOPE_H5_STR) {
                memcpy(strings, stage + r * staged + t->row_size + off[k], len[k]);
                strings[len[k]] = '\0';
                memcpy(row + t->fields[i].offset, &strings, sizeof strings);
                strings += len[k] + 1;
                k++;
            }
    }
    *rows = out;
    *n = nrows;
    out = NULL;
    rc = 0;
done:
    free(out);
    free(stage);
    free(off);
    free(len);
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
    (void)t;
    (void)n;
    free(rows);
}
