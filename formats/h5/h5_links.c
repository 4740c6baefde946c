/* h5_links: HDF5 files that reach outside themselves; see h5_links.h. */
#include "h5_links.h"

#include <stdio.h>
#include <string.h>

/* A link's value past this is not shown (its text comes from the file). */
#define MAX_SHOWN_TARGET 1024

typedef struct walk {
    char *msg;
    size_t len;
} walk;

/* What an external link at name points to, "FILE:/PATH", into buf. */
static void external_target(hid_t group, const char *name, size_t val_size, char *buf, size_t cap) {
    char val[MAX_SHOWN_TARGET];
    const char *file = NULL, *obj = NULL;
    unsigned flags;
    buf[0] = '\0';
    if (val_size <= sizeof val && H5Lget_val(group, name, val, val_size, H5P_DEFAULT) >= 0 &&
        H5Lunpack_elink_val(val, val_size, &flags, &file, &obj) >= 0 && file && obj)
        snprintf(buf, cap, ", to %s:%s", file, obj);
}

/* Whether the dataset at name keeps its data in other files. */
static const char *data_elsewhere(hid_t group, const char *name) {
    hid_t obj = H5Oopen(group, name, H5P_DEFAULT);
    if (obj < 0)
        return NULL; /* unreadable: the reading itself says so */
    const char *why = NULL;
    if (H5Iget_type(obj) == H5I_DATASET) {
        hid_t dcpl = H5Dget_create_plist(obj);
        if (dcpl >= 0) {
            if (H5Pget_external_count(dcpl) > 0)
                why = "keeps its data in other files (external storage)";
            else if (H5Pget_layout(dcpl) == H5D_VIRTUAL)
                why = "is a virtual dataset, made of datasets of other files";
            H5Pclose(dcpl);
        }
    }
    H5Oclose(obj);
    return why;
}

static herr_t check_link(hid_t group, const char *name, const H5L_info_t *info, void *data) {
    walk *w = data;
    switch (info->type) {
    case H5L_TYPE_SOFT:
        return 0; /* inside the file; what it points to is visited as itself */
    case H5L_TYPE_HARD: {
        const char *why = data_elsewhere(group, name);
        if (!why)
            return 0;
        snprintf(w->msg, w->len, "/%s %s; scope reads nothing outside the file it is given", name,
                 why);
        return 1;
    }
    case H5L_TYPE_EXTERNAL: {
        char target[MAX_SHOWN_TARGET + 8];
        external_target(group, name, info->u.val_size, target, sizeof target);
        snprintf(w->msg, w->len,
                 "/%s is an external link%s; scope follows no link out of the file it is given",
                 name, target);
        return 1;
    }
    default:
        snprintf(w->msg, w->len,
                 "/%s is a link of a user-defined kind; scope follows only hard and soft links",
                 name);
        return 1;
    }
}

int h5_refuse_outside(hid_t file, char *msg, size_t len) {
    walk w = {msg, len};
    herr_t rc = H5Lvisit(file, H5_INDEX_NAME, H5_ITER_NATIVE, check_link, &w);
    if (rc > 0)
        return -1;
    if (rc < 0) {
        snprintf(msg, len, "its links could not be listed (damaged)");
        return -1;
    }
    return 0;
}
