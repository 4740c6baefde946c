/* scope-profiler layouts written for tests; see sp_h5_write.h. */
#include "sp_h5_write.h"

#include <stdio.h>
#include <stdlib.h>

#define OK(call)                                                                                   \
    do {                                                                                           \
        if ((call) < 0) {                                                                          \
            fprintf(stderr, "%s:%d: HDF5 call failed: %s\n", __FILE__, __LINE__, #call);           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

hid_t spw_create(const char *path) {
    /* Failures are caught by OK, not printed by the library on its own
     * (spw_group asks for groups that may not exist yet). */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    OK(f);
    return f;
}

void spw_close(hid_t file) {
    OK(H5Fclose(file));
}

hid_t spw_group(hid_t loc, const char *name) {
    if (H5Lexists(loc, name, H5P_DEFAULT) > 0) {
        hid_t g = H5Gopen2(loc, name, H5P_DEFAULT);
        OK(g);
        return g;
    }
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    OK(H5Pset_create_intermediate_group(lcpl, 1));
    hid_t g = H5Gcreate2(loc, name, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    OK(g);
    H5Pclose(lcpl);
    return g;
}

void spw_dataset(hid_t loc, const char *name, hid_t ftype, hid_t mtype, const void *data,
                 size_t n) {
    hsize_t dims[1] = {n};
    hid_t sp = H5Screate_simple(1, dims, NULL);
    OK(sp);
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    OK(H5Pset_create_intermediate_group(lcpl, 1));
    hid_t ds = H5Dcreate2(loc, name, ftype, sp, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    OK(ds);
    if (n)
        OK(H5Dwrite(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data));
    H5Dclose(ds);
    H5Pclose(lcpl);
    H5Sclose(sp);
}

void spw_int64s(hid_t loc, const char *name, const int64_t *v, size_t n) {
    spw_dataset(loc, name, H5T_STD_I64LE, H5T_NATIVE_INT64, v, n);
}
void spw_int64s_chunked(hid_t loc, const char *name, const int64_t *v, size_t n, size_t chunk) {
    hsize_t dims[1] = {n}, max[1] = {H5S_UNLIMITED}, cdims[1] = {chunk};
    hid_t sp = H5Screate_simple(1, dims, max);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    OK(H5Pset_chunk(dcpl, 1, cdims));
    hid_t ds = H5Dcreate2(loc, name, H5T_STD_I64LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    OK(ds);
    if (n && v)
        OK(H5Dwrite(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
    H5Dclose(ds);
    H5Pclose(dcpl);
    H5Sclose(sp);
}

void spw_uint64s(hid_t loc, const char *name, const uint64_t *v, size_t n) {
    spw_dataset(loc, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, v, n);
}
void spw_uint32s(hid_t loc, const char *name, const uint32_t *v, size_t n) {
    spw_dataset(loc, name, H5T_STD_U32LE, H5T_NATIVE_UINT32, v, n);
}

static hid_t utf8_string(void) {
    hid_t t = H5Tcopy(H5T_C_S1);
    OK(t);
    OK(H5Tset_size(t, H5T_VARIABLE));
    OK(H5Tset_cset(t, H5T_CSET_UTF8));
    return t;
}

void spw_strings(hid_t loc, const char *name, const char *const *v, size_t n) {
    hid_t t = utf8_string();
    spw_dataset(loc, name, t, t, v, n);
    H5Tclose(t);
}

void spw_attr_int(hid_t obj, const char *name, int64_t v) {
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    OK(a);
    OK(H5Awrite(a, H5T_NATIVE_INT64, &v));
    H5Aclose(a);
    H5Sclose(sp);
}

void spw_attr_double(hid_t obj, const char *name, double v) {
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    OK(a);
    OK(H5Awrite(a, H5T_NATIVE_DOUBLE, &v));
    H5Aclose(a);
    H5Sclose(sp);
}

void spw_attr_str(hid_t obj, const char *name, const char *v) {
    hid_t t = utf8_string();
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    OK(a);
    OK(H5Awrite(a, t, &v));
    H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
}

void spw_attr_strs(hid_t obj, const char *name, const char *const *v, size_t n) {
    hid_t t = utf8_string();
    hsize_t dim = n;
    hid_t sp = H5Screate_simple(1, &dim, NULL);
    hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    OK(a);
    OK(H5Awrite(a, t, v));
    H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
}

void spw_metadata(hid_t file, const char *host, const char *timestamp, int64_t mpi_size) {
    hid_t g = spw_group(file, "metadata");
    spw_attr_str(g, "hostname", host);
    spw_attr_str(g, "timestamp", timestamp);
    spw_attr_str(g, "working_directory", "/home/user/sim");
    spw_attr_str(g, "scope_profiler_version", "0.2.1");
    spw_attr_str(g, "python_version", "3.11.2");
    spw_attr_int(g, "mpi_size", mpi_size);
    H5Gclose(g);
}

void spw_region1(hid_t file, int64_t rank, const char *name, const int64_t *start,
                 const int64_t *end, size_t n, const char *src, int64_t line) {
    char path[512];
    snprintf(path, sizeof path, "rank%lld/regions/%s", (long long)rank, name);
    hid_t g = spw_group(file, path);
    spw_int64s(g, "start_times", start, n);
    spw_int64s(g, "end_times", end, n);
    if (src) {
        spw_attr_str(g, "source_file", src);
        spw_attr_int(g, "source_lineno", line);
    }
    H5Gclose(g);
}

void spw_write_columnar(hid_t file, const spw_columnar *c) {
    spw_attr_int(file, "scope_profiler_schema", c->schema);
    spw_attr_str(file, "storage_layout", "columnar");
    spw_strings(file, "region_table/names", c->names, c->nnames);
    spw_uint32s(file, "rank_region_index/ranks", c->ranks, c->nrows);
    spw_uint32s(file, "rank_region_index/region_ids", c->region_ids, c->nrows);
    spw_uint64s(file, "rank_region_index/event_offsets", c->offsets, c->nrows);
    spw_uint64s(file, "rank_region_index/event_counts", c->counts, c->nrows);
    if (c->source_files)
        spw_strings(file, "rank_region_index/source_files", c->source_files, c->nrows);
    if (c->source_lines)
        spw_int64s(file, "rank_region_index/source_lines", c->source_lines, c->nrows);
    if (c->schema == 2) {
        spw_int64s(file, "events/start_times", c->start, c->nevents);
        spw_int64s(file, "events/end_times", c->end, c->nevents);
        return;
    }
    int64_t *delta = malloc((c->nevents + 1) * sizeof *delta);
    int64_t *dur = malloc((c->nevents + 1) * sizeof *dur);
    if (!delta || !dur)
        abort();
    for (size_t r = 0; r < c->nrows; r++) {
        int64_t prev = 0;
        for (uint64_t i = c->offsets[r]; i < c->offsets[r] + c->counts[r]; i++) {
            delta[i] = c->start[i] - prev;
            dur[i] = c->end[i] - c->start[i];
            prev = c->start[i];
        }
    }
    spw_int64s(file, "events/start_deltas", delta, c->nevents);
    spw_int64s(file, "events/durations", dur, c->nevents);
    free(delta);
    free(dur);
}
