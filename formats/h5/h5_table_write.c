/* h5_table_write: tables and matrices written in batches (h5_table.h).
 * The asserts hold the sizes computed before each copy. */
#include "h5_common.h"

#include <assert.h>
#include <scope/vec.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        h5_fail(err, errlen, "out of memory");
        f->failed = 1;
        if (w)
            free(w);
        return NULL;
    }
    memcpy(w->path, path, plen + 1);
    w->f = f;
    w->t = t;
    w->dset = w->mtype = -1;
    w->nstr = h5_count_strings(t);
    if (w->nstr)
        return w; /* created at the end, once its strings' lengths are known */
    w->mtype = h5_staging_type(t, NULL, NULL, t->row_size);
    if (w->mtype >= 0)
        w->dset = create_table(f, path, w->mtype, 0);
    if (w->dset < 0) {
        h5_fail(err, errlen, "cannot create the table %s", path);
        f->failed = 1;
        if (w->mtype >= 0)
            H5Tclose(w->mtype);
        free(w->path);
        free(w);
        return NULL;
    }
    return w;
}

/* Keeps n rows of a table with strings: the rows, and each string's bytes
 * (rows may point at memory that does not outlive the call). */
static int keep_rows(scope_h5_writer *w, const char *rows, size_t n) {
    const scope_h5_table *t = w->t;
    if (n > SIZE_MAX / t->row_size - w->nkept ||
        SCOPE_VEC_RESERVE(w->kept, w->cap_kept, (w->nkept + n) * t->row_size) < 0)
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
            if (SCOPE_VEC_RESERVE(w->text, w->cap_text, w->ntext + len + 1) < 0)
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
        h5_fail(err, errlen, "cannot write the rows of %s (%s)", w->path,
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
                assert(k < w->nstr && o < w->ntext); /* keep_rows put it in text */
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
    mtype = h5_staging_type(t, off, len, staged);
    if (!stage || mtype < 0 || (d = create_table(w->f, w->path, mtype, 0)) < 0)
        goto out;
    for (size_t first = 0; first < w->nkept; first += batch) {
        size_t n = w->nkept - first < batch ? w->nkept - first : batch;
        assert(n > 0 && n <= batch); /* stage holds batch rows */
        memset(stage, 0, n * staged);
        for (size_t r = 0; r < n; r++) {
            char *row = stage + r * staged;
            memcpy(row, w->kept + (first + r) * t->row_size, t->row_size);
            for (size_t i = 0, k = 0; i < t->nfields; i++)
                if (t->fields[i].type == SCOPE_H5_STR) {
                    uintptr_t o;
                    memcpy(&o, row + t->fields[i].offset, sizeof o);
                    /* len[k] is the longest of the field's strings */
                    assert(k < w->nstr && o < w->ntext && strlen(w->text + o) <= len[k]);
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
            h5_fail(err, errlen, "cannot write the table %s (disk full?)", w->path);
        }
    } else {
        if (H5Dclose(w->dset) < 0 && !rc) {
            rc = -1;
            h5_fail(err, errlen, "cannot write the table %s (disk full?)", w->path);
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
        h5_fail(err, errlen, "cannot write the dataset %s", path);
    }
    return rc;
}
