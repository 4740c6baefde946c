/*
 * Creating and closing the log file (logfile.h).  Every step below RUN is
 * relative to a directory descriptor and follows no symbolic link
 * (files.h): a link planted in a shared run directory cannot send the log
 * anywhere else.
 */
#include "logfile.h"

#include "files.h"
#include "own_fd.h"
#include "thread_io.h"
#include "warn.h"

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

/* What became of a lost log, said once per log each (logfile.h). */
enum { SAID_REOPENED = 1u, SAID_WAITING = 2u, SAID_GONE = 4u };
static unsigned said;

int rec_log_open(rec_log *log, const rec_config *cfg, const rec_identity *id, char *err,
                 size_t errlen) {
    log->cfg = cfg;
    log->gone = 0;
    said = 0; /* a new log: a forked child's, say */
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
    if (fd < 0 || rec_fd_take(&log->fd, fd) < 0) {
        rec_file_error(err, errlen, "create", log->path, errno);
        if (fd >= 0)
            unlinkat(dir, log->name, 0);
        close(dir);
        return -1;
    }
    scope_log_writer_options opt = {0, 256 * 1024};
    rec_xfsz_guard g;
    rec_xfsz_block(&g); /* the header is written from the calling thread */
    int rc = scope_log_writer_open(&log->w, log->fd.fd, &opt);
    rec_xfsz_release(&g);
    if (rc >= 0) /* the recorder's own write, not the program's */
        rec_thread_io_own_write(scope_log_writer_bytes(log->w));
    if (rc < 0) {
        snprintf(err, errlen, "cannot write %s: %s", log->path, strerror(-rc));
        rec_fd_close(&log->fd);
        unlinkat(dir, log->name, 0);
        close(dir);
        return -1;
    }
    close(dir);
    return 0;
}

/* ---- a descriptor the program took -------------------------------------------- */

static void say(const rec_log *log, unsigned outcome, const char *what) {
    if (said & outcome)
        return;
    said |= outcome;
    rec_warn("%s: the program took the recorder's descriptor of this log (it closed it, or put a "
             "file of its own in its place); %s",
             log->path, what);
}

/* The log's file opened again by its path, each directory below RUN
 * relative to its parent and no link followed, creating nothing: a
 * descriptor, or a negative errno. */
static int find_again(const rec_log *log) {
    const int dir_flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    int run = open(log->cfg->run_dir, dir_flags);
    if (run < 0)
        return -errno;
    int workers = openat(run, "workers", dir_flags), e = errno;
    close(run);
    if (workers < 0)
        return -e;
    int host = openat(workers, log->folder, dir_flags);
    e = errno;
    close(workers);
    if (host < 0)
        return -e;
    /* O_NONBLOCK: a FIFO planted in its place cannot hold the writer. */
    int fd = openat(host, log->name,
                    O_WRONLY | O_APPEND | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    e = errno;
    close(host);
    return fd < 0 ? -e : fd;
}

/* Errors that may pass: the file may be found again at a later write. */
static int passing(int err) {
    return err == EMFILE || err == ENFILE || err == ENOMEM || err == EINTR || err == EAGAIN;
}

int rec_log_usable(rec_log *log) {
    if (log->gone || !log->w)
        return -EBADF;
    int held = log->fd.fd >= 0; /* else lost at an earlier write, and said */
    if (rec_fd_check(&log->fd))
        return 0;
    /* Never again through the number it had. */
    scope_log_writer_set_fd(log->w, -1);
    int fd = find_again(log), rc = fd;
    if (fd >= 0)
        rc =
            rec_fd_retake(&log->fd, fd) < 0 ? -ESTALE : scope_log_writer_set_fd(log->w, log->fd.fd);
    if (rc == 0) {
        if (held)
            say(log, SAID_REOPENED, "it was opened again, and recording goes on");
        return 0;
    }
    if (log->fd.fd >= 0) {
        close(log->fd.fd);
        log->fd.fd = -1;
    }
    char what[200];
    const char *why = rc == -ESTALE ? "another file is in its place" : strerror(-rc);
    if (passing(-rc)) {
        snprintf(what, sizeof what,
                 "it cannot be opened again now (%s): its frames wait in memory until it can", why);
        if (held)
            say(log, SAID_WAITING, what);
        return rc;
    }
    log->gone = 1;
    snprintf(what, sizeof what, "it cannot be opened again (%s): nothing more is written to it",
             why);
    say(log, SAID_GONE, what);
    return rc;
}

void rec_log_close(rec_log *log) {
    scope_log_writer_free(log->w);
    log->w = NULL;
    rec_fd_close(&log->fd);
    log->gone = 0;
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
