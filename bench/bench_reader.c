/*
 * The C side of bench/bench_reader.sh: what the reader API itself costs,
 * the baseline the Python package is held to.  Opens RUN through
 * libscope-reader.so.1 (include/scope/reader.h), builds its phases table,
 * and prints one line of figures:
 *
 *   open_ms N phases_ms N rows N maxrss_kb N
 *
 * usage: bench_reader RUN
 */
#include <scope/reader.h>

#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fputs("usage: bench_reader RUN\n", stderr);
        return 2;
    }
    char msg[1024];
    scope_run *run;
    double t0 = now_ms();
    int rc = scope_reader_open(argv[1], 0, 0, &run, msg, sizeof msg);
    if (rc != SCOPE_READER_OK) {
        fprintf(stderr, "bench_reader: %s\n", msg);
        return 1;
    }
    double t1 = now_ms();
    scope_table *t;
    rc = scope_run_table(run, SCOPE_TABLE_PHASES, &t, msg, sizeof msg);
    if (rc != SCOPE_READER_OK) {
        fprintf(stderr, "bench_reader: %s\n", msg);
        return 1;
    }
    double t2 = now_ms();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("open_ms %.1f phases_ms %.2f rows %zu maxrss_kb %ld\n", t1 - t0, t2 - t1,
           scope_table_rows(t), ru.ru_maxrss);
    scope_table_free(t);
    scope_reader_close(run);
    return 0;
}
