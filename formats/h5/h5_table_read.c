/* h5_table_read: tables read back, their chunks inflated here and every
 * row type checked before the library converts a row (h5_table.h).  The
 * asserts hold the sizes computed before each copy; what a file says is
 * checked and refused with a message, never asserted. */
#include "h5_common.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>

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
 * j * n + i.  Done in blocks of elements whose rows stay in L1 while each
 * of their bytes is placed: byte by byte over a whole chunk, every store
 * went to another cache line of a 64 KB buffer, a tenth of the time that
 * opening a 100,000-process SUMMARY took. */
static void unshuffle(const unsigned char *in, unsigned char *out, size_t n, size_t size) {
    enum { BLOCK = 256 };
    for (size_t first = 0; first < n; first += BLOCK) {
        size_t end = n - first < BLOCK ? n : first + BLOCK;
        for (size_t j = 0; j < size; j++) {
            const unsigned char *src = in + j * n;
            for (size_t i = first; i < end; i++)
                out[i * size + j] = src[i];
        }
    }
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
    unsigned char *comp = malloc(comp_cap), *plain = malloc(raw);
    unsigned char *conv = malloc((size_t)chunk * wide), *bkg = calloc(chunk, staged);
    struct libdeflate_decompressor *inflater = libdeflate_alloc_decompressor();
    if (!comp || !plain || !conv || !bkg || !inflater)
        why = "out of memory";
    for (size_t first = 0; !why && first < nrows; first += chunk) {
        hsize_t off = first, nbytes = 0;
        uint32_t mask = 0;
        size_t out = 0;
        size_t n = nrows - first < chunk ? nrows - first : (size_t)chunk;
        if (H5Dget_chunk_storage_size(d, &off, &nbytes) < 0 || nbytes == 0)
            why = "a chunk is missing (damaged or truncated file)";
        else if (nbytes > comp_cap)
            why = "a chunk larger than its rows could take";
        else if (H5Dread_chunk(d, H5P_DEFAULT, &off, &mask, comp) < 0)
            why = "a chunk cannot be read (damaged or truncated file)";
        else if (mask != 0)
            why = "a chunk stored without its filters";
        else if (libdeflate_zlib_decompress(inflater, comp, (size_t)nbytes, plain, raw, &out) !=
                     LIBDEFLATE_SUCCESS ||
                 out != raw)
            why = "a chunk does not inflate to its size (damaged file)";
        if (why)
            break;
        /* The chunk's rows are within the table, and its buffers hold them. */
        assert(n > 0 && n <= chunk && first + n <= nrows && n * staged <= (size_t)chunk * wide);
        /* Straight into conv (chunk * wide >= chunk * fsize bytes): a copy
         * of every row less. */
        unshuffle(plain, conv, (size_t)chunk, fsize);
        memset(bkg, 0, n * staged);
        if (H5Tconvert(ftype, mtype, n, conv, bkg, H5P_DEFAULT) < 0) {
            why = "rows that cannot be converted (damaged file)";
            break;
        }
        memcpy(stage + first * staged, conv, n * staged);
    }
    free(comp);
    free(plain);
    free(conv);
    free(bkg);
    if (inflater)
        libdeflate_free_decompressor(inflater);
    return why;
}

int scope_h5_table_read(scope_h5_file *f, const char *path, const scope_h5_table *t,
                        size_t max_rows, void **rows, size_t *n, char *err, size_t errlen) {
    *rows = NULL;
    *n = 0;
    if (!scope_h5_exists(f, path)) {
        h5_fail(err, errlen, "%s is missing", path);
        return -1;
    }
    hid_t d = H5Dopen2(f->id, path, H5P_DEFAULT);
    if (d < 0) {
        h5_fail(err, errlen, "%s is not a dataset", path);
        return -1;
    }
    int rc = -1;
    size_t nstr = h5_count_strings(t);
    size_t *off = calloc(nstr + 1, sizeof *off), *len = calloc(nstr + 1, sizeof *len);
    hid_t ftype = H5Dget_type(d), space = H5Dget_space(d), mtype = -1;
    hsize_t dims[1] = {0};
    char *stage = NULL, *out = NULL;
    if (!off || !len) {
        h5_fail(err, errlen, "%s: out of memory", path);
        goto done;
    }
    if (ftype < 0 || space < 0 || H5Tget_class(ftype) != H5T_COMPOUND ||
        H5Sget_simple_extent_ndims(space) != 1 ||
        H5Sget_simple_extent_dims(space, dims, NULL) != 1) {
        h5_fail(err, errlen, "%s is not a table (a one-dimensional compound dataset)", path);
        goto done;
    }
    const char *unsound = type_unsound(ftype);
    if (unsound) {
        h5_fail(err, errlen, "%s: its row type is damaged (%s)", path, unsound);
        goto done;
    }
    /* Bytes a row takes staged, then as returned (with its strings). */
    size_t staged = t->row_size, text = 0;
    for (size_t i = 0, k = 0; i < t->nfields; i++) {
        int idx = H5Tget_member_index(ftype, t->fields[i].name);
        size_t l = 0;
        if (idx < 0 && t->fields[i].optional)
            continue; /* the conversion leaves it 0: the zeroed background */
        if (idx < 0) {
            h5_fail(err, errlen, "%s has no field %s", path, t->fields[i].name);
            goto done;
        }
        if (!member_fits(ftype, (unsigned)idx, t->fields[i].type, &l)) {
            h5_fail(err, errlen, "%s: field %s is not %s", path, t->fields[i].name,
                    class_wanted(t->fields[i].type));
            goto done;
        }
        if (t->fields[i].type == SCOPE_H5_STR) {
            assert(k < nstr); /* off and len have a slot per string field */
            if (l > max_rows) {
                h5_fail(err, errlen, "%s: field %s claims strings of %zu bytes", path,
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
        h5_fail(err, errlen, "%s claims %llu rows, more than the %zu this file can hold", path,
                (unsigned long long)dims[0], max_rows);
        goto done;
    }
    size_t nrows = (size_t)dims[0];
    mtype = h5_staging_type(t, off, len, staged);
    stage = calloc(nrows ? nrows : 1, staged);
    out = calloc(1, nrows * (t->row_size + text) + 1);
    if (mtype < 0 || !stage || !out) {
        h5_fail(err, errlen, "%s: out of memory", path);
        goto done;
    }
    const char *unread = nrows ? read_chunks(d, ftype, mtype, nrows, stage, staged) : NULL;
    if (unread) {
        h5_fail(err, errlen, "%s cannot be read: %s", path, unread);
        goto done;
    }
    /* Rows first, then their strings, each NUL-terminated. */
    char *strings = out + nrows * t->row_size;
    const char *out_end = out + nrows * (t->row_size + text);
    (void)out_end; /* read by the asserts only */
    for (size_t r = 0; r < nrows; r++) {
        char *row = out + r * t->row_size;
        memcpy(row, stage + r * staged, t->row_size);
        for (size_t i = 0, k = 0; i < t->nfields; i++)
            if (t->fields[i].type == SCOPE_H5_STR) {
                /* The string lies in its staged row, and out has room for
                 * it: text counted every string field's length plus one. */
                assert(k < nstr && t->row_size + off[k] + len[k] <= staged);
                assert((size_t)(out_end - strings) >= len[k] + 1);
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
