/*
 * Seeds for fuzz_h5_scope: real exports, in scope's HDF5 layout, of small
 * runs whose logs are written through the real writer (the sample logs of
 * tests/support, every record kind in them), one of them with a log cut
 * inside its last frame.
 *
 *   make_h5_corpus OUTDIR
 */
#define _GNU_SOURCE
#include "export_formats.h"
#include "log_samples.h"
#include "run_model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_seed(const char *out_dir, const char *name, unsigned nlogs,
                      const unsigned *nframes, int cut) {
    char run[] = "/tmp/scope-h5-corpus-XXXXXX";
    if (!mkdtemp(run))
        return -1;
    char dir[512], path[600], out[600];
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
    run_model *m = NULL;
    char msg[1024] = "";
    run_options opt = {.threads = 1};
    if (rc == 0 && run_load(run, &opt, &m, msg, sizeof msg) != RUN_OK) {
        fprintf(stderr, "make_h5_corpus: %s\n", msg);
        rc = -1;
    }
    snprintf(out, sizeof out, "%s/%s.h5", out_dir, name);
    if (rc == 0 && export_format_hdf5.write(m, run, out, msg, sizeof msg) < 0) {
        fprintf(stderr, "make_h5_corpus: %s: %s\n", out, msg);
        rc = -1;
    }
    run_free(m);
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
    if (argc != 2) {
        fputs("usage: make_h5_corpus OUTDIR\n", stderr);
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
    return failed ? 1 : 0;
}
