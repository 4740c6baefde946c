/* h5_common: what the parts of h5_table.h share; see h5_common.h. */
#include "h5_common.h"

#include <stdarg.h>
#include <stdio.h>

void h5_fail(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* A fixed-length string type of len bytes (at least 1), padded with NULs. */
hid_t h5_fixed_str(size_t len) {
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, len ? len : 1) < 0 || H5Tset_strpad(t, H5T_STR_NULLPAD) < 0 ||
                   H5Tset_cset(t, H5T_CSET_UTF8) < 0)) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

hid_t h5_native(scope_h5_type type) {
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

size_t h5_count_strings(const scope_h5_table *t) {
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
hid_t h5_staging_type(const scope_h5_table *t, const size_t *str_off, const size_t *str_len,
                      size_t staged_size) {
    hid_t c = H5Tcreate(H5T_COMPOUND, staged_size);
    int ok = c >= 0;
    for (size_t i = 0, k = 0; ok && i < t->nfields; i++) {
        const scope_h5_field *fl = &t->fields[i];
        if (fl->type == SCOPE_H5_STR) {
            hid_t st = h5_fixed_str(str_len[k]);
            ok = st >= 0 && H5Tinsert(c, fl->name, t->row_size + str_off[k], st) >= 0;
            if (st >= 0)
                H5Tclose(st);
            k++;
        } else
            ok = H5Tinsert(c, fl->name, fl->offset, h5_native(fl->type)) >= 0;
    }
    if (!ok && c >= 0) {
        H5Tclose(c);
        c = -1;
    }
    return c;
}
