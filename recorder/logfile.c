/*
 * Creating and closing the log file (logfile.h).
 */
#include "logfile.h"

#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int rec_log_open(rec_log *log, const rec_config *cfg, const rec_identity *id, char *err,
                 size_t errlen) {
    char dir[4400];
    snprintf(dir, sizeof dir, "%s/workers/%s", cfg->run_dir, id->host);
    if (rec_mkdir_p(dir) < 0) {
        snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    snprintf(log->path, sizeof log->path, "%s/w_%s_%d_%s.%s", dir, id->run_id, (int)id->pid,
             id->uuid, SCOPE_LOG_FILE_EXT);
    int fd = open(log->path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", log->path, strerror(errno));
        return -1;
    }
    scope_log_writer_options opt = {0, 256 * 1024};
    rec_xfsz_guard g;
    rec_xfsz_block(&g); /* the header is written from the calling thread */
    int rc = scope_log_writer_open(&log->w, fd, &opt);
    rec_xfsz_release(&g);
    if (rc < 0) {
        snprintf(err, errlen, "cannot write %s: %s", log->path, strerror(-rc));
        close(fd);
        unlink(log->path);
        return -1;
    }
    log->fd = fd;
    return 0;
}

void rec_log_close(rec_log *log) {
    scope_log_writer_free(log->w);
    log->w = NULL;
    if (log->fd >= 0)
        close(log->fd);
    log->fd = -1;
}

void rec_log_remove(rec_log *log) {
    rec_log_close(log);
    unlink(log->path);
}
