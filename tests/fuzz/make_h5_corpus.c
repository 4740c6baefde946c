/*
 * Seeds for fuzz_h5_scope: real exports, in scope's HDF5 layout, of small
 * runs whose logs are written through the real writer (the sample logs of
 * tests/support, every record kind in them), one of them with a log cut
 * inside its last frame; and, given a scope-profiler file with line
 * profiles, its export, whose /line_measured rows the others lack.  Each
 * run also as a SUMMARY (/summary, the partial model scope-reduce writes,
 * docs/reduce.md), which the loader reads by another path.
 *
 *   make_h5_corpus OUTDIR [SCOPE_PROFILER_H5]
 */
#define _GNU_SOURCE
#include "export_formats.h"
#include "log_samples.h"
#include "run_model.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The model m written by format f as OUT_DIR/NAME.h5.  0, or -1 with why
 * on stderr. */
static int write_h5(const run_model *m, const export_format *f, const char *src,
                    const char *out_dir, const char *name) {
    char msg[1024] = "", out[600];
    snprintf(out, sizeof out, "%s/%s.h5", out_dir, name);
    int fd = open(out, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int rc = fd >= 0 ? f->write(m, src, fd, msg, sizeof msg) : -1;
    if (fd < 0)
        snprintf(msg, sizeof msg, "%s", strerror(errno));
    else
        close(fd);
    if (rc < 0)
        fprintf(stderr, "make_h5_corpus: %s: %s\n", out, msg);
    return rc < 0 ? -1 : 0;
}

/* The run at src exported as OUT_DIR/NAME.h5, and as a SUMMARY,
 * OUT_DIR/NAME-summary.h5.  0, or -1 with why on stderr. */
static int export_seed(const char *src, const char *out_dir, const char *name) {
    run_model *m = NULL;
    char msg[1024] = "", summary[300];
    run_options opt = {.threads = 1};
    if (run_load(src, &opt, &m, msg, sizeof msg) != RUN_OK) {
        fprintf(stderr, "make_h5_corpus: %s\n", msg);
        return -1;
    }
    snprintf(summary, sizeof summary, "%s-summary", name);
    int rc = write_h5(m, &export_format_hdf5, src, out_dir, name);
    rc |= write_h5(m, &export_format_hdf5_summary, src, out_dir, summary);
    run_free(m);
    return rc < 0 ? -1 : 0;
}

static int write_seed(const char *out_dir, const char *name, unsigned nlogs,
                      const unsigned *nframes, int cut) {
    char run[] = "/tmp/scope-h5-corpus-XXXXXX";
    if (!mkdtemp(run))
        return -1;
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/workers", run);
    mkdir(dir, 0700);
    snprintf(dir, sizeof dir, "%s/workers/h", run);
    mkdir(dir, 0700);
    int rc = 0;
    for (unsigned l = 0; l < nlogs && rc == 0; l++) {
        uint64_t size = 0;
        snprintf(path, sizeof path, "%s/w_sample_%u.scope", dir, l);
        rc = log_sample_write_log(path, nframes[l], l + 1, NULL, &size) < 0 ? -1 : 0;
        if (rc == 0 && cut && l == nlogs - 1 && size > 40)
            rc = truncate(path, (off_t)(size - 40));
    }
    if (rc == 0)
        rc = export_seed(run, out_dir, name);
    for (unsigned l = 0; l < nlogs; l++) {
        snprintf(path, sizeof path, "%s/w_sample_%u.scope", dir, l);
        unlink(path);
    }
    rmdir(dir);
    snprintf(dir, sizeof dir, "%s/workers", run);
    rmdir(dir);
    rmdir(run);
    return rc;
}

int main(int argc, char **argv) {
    if (argc != 2 && argc != 3) {
        fputs("usage: make_h5_corpus OUTDIR [SCOPE_PROFILER_H5]\n", stderr);
        return 2;
    }
    if (mkdir(argv[1], 0700) < 0 && errno != EEXIST) {
        perror(argv[1]);
        return 1;
    }
    static const unsigned one[] = {3}, three[] = {2, 3, 5}, cut[] = {5, 4};
    int failed = write_seed(argv[1], "one", 1, one, 0) < 0;
    failed |= write_seed(argv[1], "three", 3, three, 0) < 0;
    failed |= write_seed(argv[1], "cut", 2, cut, 1) < 0;
    if (argc == 3)
        failed |= export_seed(argv[2], argv[1], "measured") < 0;
    return failed ? 1 : 0;
}
