/* h5_file: HDF5 files, groups and attributes for h5_table.h. */
#include "h5_common.h"
#include "h5_links.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* HDF5 prints its error stack to stderr unless told not to: the callers
 * word errors themselves, in one line.  Nor does it close what is left at
 * exit: libhdf5 1.10 crashes closing again a file whose close failed (a
 * full disk), and the process's exit frees everything anyway.  The first
 * call here comes before any other HDF5 call, as H5dont_atexit wants. */
static void quiet(void) {
    H5dont_atexit();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* A file created afresh (create) or opened read-only. */
static scope_h5_file *open_file(const char *path, int create, char *err, size_t errlen) {
    quiet();
    scope_h5_file *f = calloc(1, sizeof *f);
    if (!f) {
        h5_fail(err, errlen, "out of memory");
        return NULL;
    }
    f->id = create ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)
                   : H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f->id < 0) {
        h5_fail(err, errlen, "%s",
                create ? "cannot create an HDF5 file there"
                       : "cannot be opened as HDF5 (damaged or truncated)");
        free(f);
        return NULL;
    }
    /* A file read is walked before any object is opened by its path
     * (h5_links.h says why). */
    char why[1200];
    if (!create && h5_refuse_outside(f->id, why, sizeof why) < 0) {
        h5_fail(err, errlen, "%s", why);
        H5Fclose(f->id);
        free(f);
        return NULL;
    }
    return f;
}

/* HDF5's file drivers open a file by its name, and the caller's file must
 * not be looked up by name again (in a directory others can write, the
 * name may by then be a link to somewhere else).  Two ways keep to the
 * descriptor: the core driver, building the whole file in memory and
 * writing its image (H5Fget_file_image) through fd at the end, which holds
 * the file twice in memory where the export otherwise holds one batch of
 * rows; or the default driver on /proc/self/fd/N, which the kernel resolves
 * to the very file fd refers to, not through any directory, so rows still
 * go out a batch at a time.  The second, then: Linux, where scope runs,
 * always has /proc (the readers and the recorder read it too). */
scope_h5_file *scope_h5_create_fd(int fd, char *err, size_t errlen) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    scope_h5_file *f = open_file(path, 1, err, errlen);
    if (!f && access("/proc/self/fd", F_OK) != 0)
        h5_fail(err, errlen, "cannot create an HDF5 file through its descriptor without /proc");
    return f;
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
        h5_fail(err, errlen, "the HDF5 file could not be completed (disk full?)");
    free(f);
    return rc;
}

int scope_h5_group(scope_h5_file *f, const char *path, char *err, size_t errlen) {
    hid_t g = H5Gcreate2(f->id, path, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) {
        f->failed = 1;
        h5_fail(err, errlen, "cannot create the group %s", path);
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
        h5_fail(err, errlen, "cannot write the attribute %s of %s", name, obj);
    }
    return rc;
}

int scope_h5_attr_put_str(scope_h5_file *f, const char *obj, const char *name, const char *value,
                          char *err, size_t errlen) {
    const char *v = value ? value : "";
    hid_t t = h5_fixed_str(strlen(v));
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
        h5_fail(err, errlen, "%s has no attribute %s", obj, name);
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
        h5_fail(err, errlen, "the attribute %s of %s is not a single value", name, obj);
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
        h5_fail(err, errlen, "the attribute %s of %s is not a fixed-length string", name, obj);
    else {
        char *s = calloc(1, size + 1);
        hid_t mt = h5_fixed_str(size);
        if (s && mt >= 0 && H5Aread(a, mt, s) >= 0) {
            snprintf(buf, cap, "%s", s);
            rc = 0;
        } else
            h5_fail(err, errlen, "the attribute %s of %s cannot be read", name, obj);
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
        h5_fail(err, errlen, "the attribute %s of %s is not an integer", name, obj);
    else if (H5Aread(a, H5T_NATIVE_INT64, value) < 0)
        h5_fail(err, errlen, "the attribute %s of %s cannot be read", name, obj);
    else
        rc = 0;
    H5Tclose(type);
    H5Aclose(a);
    return rc;
}
