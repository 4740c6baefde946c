/*
 * Files the recorder creates from the calling thread: the directories of the
 * run, and writes that must not raise SIGXFSZ in the host program.
 *
 * A run directory may be shared with people the user does not trust, so
 * below RUN nothing is reached by a path: each directory is opened relative
 * to its parent's descriptor with O_NOFOLLOW and O_DIRECTORY, and a symbolic
 * link planted where a directory or file of the run belongs is an error,
 * never a way out of RUN.
 */
#ifndef SCOPE_REC_FILES_H
#define SCOPE_REC_FILES_H

#include <signal.h>
#include <stddef.h>

/* How the directories the recorder creates get their permissions: mode less
 * the umask, or, when exact (the user asked for it with SCOPE_DIR_MODE),
 * mode as it is, setgid and sticky bits included. */
typedef struct rec_dir_mode {
    unsigned mode;
    int exact;
} rec_dir_mode;

/* Creates the run directory at the absolute path and its missing parents,
 * following the symbolic links the path has (the user's path, the user's
 * choice), then replaces path with the directory's real path.  0, or -1
 * with a message in err. */
int rec_run_dir_resolve(char *path, size_t cap, const rec_dir_mode *mode, char *err, size_t errlen);

/* Opens the resolved run directory (recreating it when it was removed) and
 * returns its descriptor, or -1 with a message in err. */
int rec_run_dir_open(const char *run_dir, const rec_dir_mode *mode, char *err, size_t errlen);

/* Opens the directory name inside the directory parent, creating it when it
 * is missing, and returns its descriptor.  A symbolic link or anything else
 * there that is not a directory is not followed: -1, with a message in err
 * naming it as shown (a path for people to read). */
int rec_subdir_open(int parent, const char *name, const char *shown, const rec_dir_mode *mode,
                    char *err, size_t errlen);

/* Words an errno from opening or creating `shown`, saying plainly when a
 * symbolic link was in the way. */
void rec_file_error(char *err, size_t errlen, const char *verb, const char *shown, int errnum);

/* Writes from the calling thread (the launch file, the log header) must not
 * raise SIGXFSZ under a file-size limit: that would kill the program.  The
 * guard blocks it, and on release swallows the one such a write raised, and
 * only that one. */
typedef struct rec_xfsz_guard {
    sigset_t set, old;
    int was_pending;
} rec_xfsz_guard;

void rec_xfsz_block(rec_xfsz_guard *g);
void rec_xfsz_release(rec_xfsz_guard *g);

#endif
