/*
 * merge-parts RUN N OUT: RUN read in N parts as `reduce` cuts it
 * (run_dir_load_part), each part merged into a model of its own, and the N
 * partial models merged into one (run_builder_finish_parts); that model's
 * `report --json` written to OUT, for test_merge_parts.sh to compare with
 * the whole run's; the CPU time of the last merge on stderr.  Exit status
 * 0, 1 when a step fails (one line on stderr).
 */
#include "report_json.h"
#include "run_builder.h"
#include "run_dir_loader.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 4 || atoi(argv[2]) < 1) {
        fprintf(stderr, "usage: merge-parts RUN N OUT\n");
        return 1;
    }
    const char *run = argv[1];
    unsigned n = (unsigned)atoi(argv[2]);
    run_options ro = {0};
    char msg[512];
    run_model **parts = calloc(n, sizeof *parts);
    size_t nparts = 0;
    for (unsigned i = 0; parts && i < n; i++) {
        run_model_builder *b = run_builder_new(run, &ro);
        size_t nread = 0;
        if (!b || run_dir_load_part(b, run, &ro, i, n, &nread, msg, sizeof msg) != RUN_OK) {
            fprintf(stderr, "merge-parts: part %u: %s\n", i, b ? msg : "out of memory");
            return 1;
        }
        if (!nread) { /* more parts than logs: this one holds none */
            run_builder_abandon(b);
            continue;
        }
        if (run_builder_finish(b, &parts[nparts], msg, sizeof msg) != RUN_OK) {
            fprintf(stderr, "merge-parts: part %u: %s\n", i, msg);
            return 1;
        }
        nparts++;
    }
    run_model_builder *b = parts ? run_builder_new(run, &ro) : NULL;
    run_model *m = NULL;
    double start = cpu_s();
    if (!b || run_builder_finish_parts(b, (const run_model *const *)parts, nparts, &m, msg,
                                       sizeof msg) != RUN_OK) {
        fprintf(stderr, "merge-parts: %s\n", b ? msg : "out of memory");
        return 1;
    }
    /* What merging the parts costs, for docs/reduce.md (never a verdict). */
    fprintf(stderr, "merge-parts: %zu parts of %zu processes merged in %.3f s of CPU\n", nparts,
            m->nworkers, cpu_s() - start);
    FILE *f = fopen(argv[3], "w");
    int rc = !f || report_json_print(f, m) != 0;
    if (f && fclose(f) != 0)
        rc = 1;
    if (rc)
        fprintf(stderr, "merge-parts: cannot write %s\n", argv[3]);
    run_free(m);
    for (size_t i = 0; i < nparts; i++)
        run_free(parts[i]);
    free(parts);
    return rc;
}
