#include "checkpoint.h"

#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct checkpoint_header {
    char magic[8];
    uint32_t iteration;
    uint32_t model_bytes;
    uint32_t sample_bytes;
    uint32_t samples;
};

int checkpoint_make_dir(const char *dir) {
    char path[PATH_MAX];
    if (dir[0] == '\0') {
        errno = ENOENT;
        return -1;
    }
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    /* Each prefix ending before a '/', then the whole path. */
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = c;
        if (c == '\0')
            break;
    }
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

static int fsync_dir(const char *dir) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

int checkpoint_load_model(const char *dir, model *m) {
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, CHECKPOINT_FILE) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    struct checkpoint_header h;
    ssize_t n = io_read_all(fd, &h, sizeof h);
    int rc = -1;
    if (n == (ssize_t)sizeof h && !memcmp(h.magic, "SCPXCKP1", sizeof h.magic) &&
        h.model_bytes == sizeof *m)
        rc = io_read_all(fd, m, sizeof *m) == (ssize_t)sizeof *m ? 1 : -1;
    int saved = n < 0 ? errno : EINVAL;
    close(fd);
    if (rc < 0)
        errno = saved;
    return rc;
}

/* Written to a temporary file, synced, then renamed over the previous
 * checkpoint: a crash at any moment leaves the old checkpoint or the new one,
 * never half of one, and the directory holds one checkpoint however long the
 * run. */
int64_t checkpoint_save(const char *dir, int iteration, const model *m, const sample *replay,
                        size_t capacity) {
    char tmp[PATH_MAX], final[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s/%s.tmp", dir, CHECKPOINT_FILE) >= (int)sizeof tmp ||
        snprintf(final, sizeof final, "%s/%s", dir, CHECKPOINT_FILE) >= (int)sizeof final) {
        errno = ENAMETOOLONG;
        return -1;
    }
    struct checkpoint_header h = {.iteration = (uint32_t)iteration,
                                  .model_bytes = sizeof *m,
                                  .sample_bytes = sizeof *replay,
                                  .samples = (uint32_t)capacity};
    memcpy(h.magic, "SCPXCKP1", sizeof h.magic);

    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    if (io_write_all(fd, &h, sizeof h) != 0 || io_write_all(fd, m, sizeof *m) != 0 ||
        io_write_all(fd, replay, capacity * sizeof *replay) != 0 || fsync(fd) != 0) {
        int saved = errno;
        close(fd);
        unlink(tmp);
        errno = saved;
        return -1;
    }
    if (close(fd) != 0 || rename(tmp, final) != 0 || fsync_dir(dir) != 0)
        return -1;
    return (int64_t)(sizeof h + sizeof *m + capacity * sizeof *replay);
}
