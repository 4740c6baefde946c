/*
 * Creating and closing the log file (logfile.h).  Every step below RUN is
 * relative to a directory descriptor and follows no symbolic link
 * (files.h): a link planted in a shared run directory cannot send the log
 * anywhere else.
 */
#include "logfile.h"

#include "files.h"
#include "thread_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* RUN/workers/<folder>, created as needed: its descriptor, or -1 with a
 * message in err. */
static int open_host_dir(const rec_log *log, char *err, size_t errlen) {
    const rec_config *cfg = log->cfg;
    rec_dir_mode mode = {cfg->dir_mode, cfg->dir_mode_exact};
    char shown[4400];
    int run = rec_run_dir_open(cfg->run_dir, &mode, err, errlen);
    if (run < 0)
        return -1;
    snprintf(shown, sizeof shown, "%s/workers", cfg->run_dir);
    int workers = rec_subdir_open(run, "workers", shown, &mode, err, errlen);
    close(run);
    if (workers < 0)
        return -1;
    snprintf(shown, sizeof shown, "%s/workers/%s", cfg->run_dir, log->folder);
    int host = rec_subdir_open(workers, log->folder, shown, &mode, err, errlen);
    close(workers);
    return host;
}

int rec_log_open(rec_log *log, const rec_config *cfg, const rec_identity *id, char *err,
                 size_t errlen) {
    log->cfg = cfg;
    if (scope_host_dir_encode(id->host, strlen(id->host), log->folder, sizeof log->folder) < 0) {
        snprintf(err, errlen, "host name too long for a folder name");
        return -1;
    }
    snprintf(log->name, sizeof log->name, "w_%s_%d_%s.%s", id->run_id, (int)id->pid, id->uuid,
             SCOPE_LOG_FILE_EXT);
    snprintf(log->path, sizeof log->path, "%s/workers/%s/%s", cfg->run_dir, log->folder, log->name);
    int dir = open_host_dir(log, err, errlen);
    if (dir < 0)
        return -1;
    int fd = openat(dir, log->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC,
                    0644);
    if (fd < 0) {
        rec_file_error(err, errlen, "create", log->path, errno);
        close(dir);
        return -1;
    }
    scope_log_writer_options opt = {0, 256 * 1024};
    rec_xfsz_guard g;
    rec_xfsz_block(&g); /* the header is written from the calling thread */
    int rc = scope_log_writer_open(&log->w, fd, &opt);
    rec_xfsz_release(&g);
    if (rc >= 0) /* the recorder's own write, not the program's */
        rec_thread_io_own_write(scope_log_writer_bytes(log->w));
    if (rc < 0) {
        snprintf(err, errlen, "cannot write %s: %s", log->path, strerror(-rc));
        close(fd);
        unlinkat(dir, log->name, 0);
        close(dir);
        return -1;
    }
    close(dir);
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
    char err[8];
    int dir = open_host_dir(log, err, sizeof err);
    if (dir >= 0) {
        unlinkat(dir, log->name, 0);
        close(dir);
    }
}
