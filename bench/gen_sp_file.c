/*
 * gen_sp_file: a scope-profiler HDF5 file of N calls, for bench_sp_import.sh.
 *
 *   gen_sp_file OUT.h5 [--events N] [--ranks R] [--schema 1|2|3]
 *
 * Each rank runs steps of ten calls: a `step` holding eight `compute` and
 * one `exchange`, durations varying with a fixed pseudo-random sequence, so
 * the importer nests and sorts as it would on a real run.  N (default 10
 * million) is split evenly over R ranks (default 4).  Written through the
 * HDF5 library as scope-profiler lays it out (tests/support/sp_h5_write.h).
 */
#include "sp_h5_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { COMPUTE, EXCHANGE, STEP, NREGIONS };
static const char *const names[NREGIONS] = {"compute", "exchange", "step"};

/* One rank's calls, grouped by region as the file keeps them. */
typedef struct calls {
    int64_t *start[NREGIONS], *end[NREGIONS];
    size_t n[NREGIONS];
} calls;

static void add(calls *c, int r, int64_t s, int64_t e) {
    c->start[r][c->n[r]] = s;
    c->end[r][c->n[r]++] = e;
}

static void make_rank(calls *c, size_t steps, uint64_t seed) {
    for (int r = 0; r < NREGIONS; r++) {
        size_t cap = (r == COMPUTE ? 8 : 1) * steps + 1;
        c->start[r] = malloc(cap * sizeof(int64_t));
        c->end[r] = malloc(cap * sizeof(int64_t));
        c->n[r] = 0;
        if (!c->start[r] || !c->end[r]) {
            fprintf(stderr, "gen_sp_file: out of memory\n");
            exit(1);
        }
    }
    int64_t t = 1000000;
    for (size_t s = 0; s < steps; s++) {
        int64_t begin = t++;
        for (int k = 0; k < 8; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            int64_t d = 1000 + (int64_t)(seed >> 52); /* 1 to 5 us */
            add(c, COMPUTE, t, t + d);
            t += d + 10;
        }
        int64_t d = 500 + (int64_t)(seed >> 56);
        add(c, EXCHANGE, t, t + d);
        t += d + 10;
        add(c, STEP, begin, t++);
    }
}

static void free_rank(calls *c) {
    for (int r = 0; r < NREGIONS; r++) {
        free(c->start[r]);
        free(c->end[r]);
    }
}

int main(int argc, char **argv) {
    const char *out = NULL;
    size_t events = 10000000, ranks = 4;
    int schema = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--events") && i + 1 < argc)
            events = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--ranks") && i + 1 < argc)
            ranks = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--schema") && i + 1 < argc)
            schema = atoi(argv[++i]);
        else if (argv[i][0] != '-' && !out)
            out = argv[i];
        else
            out = NULL, i = argc;
    }
    if (!out || !ranks || schema < 1 || schema > 3) {
        fprintf(stderr, "usage: gen_sp_file OUT.h5 [--events N] [--ranks R] [--schema 1|2|3]\n");
        return 2;
    }
    size_t steps = events / ranks / 10;
    hid_t f = spw_create(out);
    spw_metadata(f, "bench", "2026-12-01T12:00:00.000000", (int64_t)ranks);
    if (schema == 1) {
        for (size_t k = 0; k < ranks; k++) {
            calls c;
            make_rank(&c, steps, k + 1);
            for (int r = 0; r < NREGIONS; r++)
                spw_region1(f, (int64_t)k, names[r], c.start[r], c.end[r], c.n[r], "bench.py",
                            10 + r);
            free_rank(&c);
        }
        spw_close(f);
        return 0;
    }
    size_t nrows = ranks * NREGIONS, total = ranks * steps * 10;
    uint32_t *rk = malloc(nrows * sizeof *rk), *reg = malloc(nrows * sizeof *reg);
    uint64_t *off = malloc(nrows * sizeof *off), *cnt = malloc(nrows * sizeof *cnt);
    int64_t *start = malloc((total + 1) * sizeof *start), *end = malloc((total + 1) * sizeof *end);
    if (!rk || !reg || !off || !cnt || !start || !end) {
        fprintf(stderr, "gen_sp_file: out of memory\n");
        return 1;
    }
    size_t n = 0, row = 0;
    for (size_t k = 0; k < ranks; k++) {
        calls c;
        make_rank(&c, steps, k + 1);
        for (int r = 0; r < NREGIONS; r++, row++) {
            rk[row] = (uint32_t)k;
            reg[row] = (uint32_t)r;
            off[row] = n;
            cnt[row] = c.n[r];
            memcpy(start + n, c.start[r], c.n[r] * sizeof *start);
            memcpy(end + n, c.end[r], c.n[r] * sizeof *end);
            n += c.n[r];
        }
        free_rank(&c);
    }
    spw_write_columnar(f, &(spw_columnar){.schema = schema,
                                          .names = names,
                                          .nnames = NREGIONS,
                                          .ranks = rk,
                                          .region_ids = reg,
                                          .offsets = off,
                                          .counts = cnt,
                                          .nrows = nrows,
                                          .start = start,
                                          .end = end,
                                          .nevents = n});
    spw_close(f);
    free(rk), free(reg), free(off), free(cnt), free(start), free(end);
    return 0;
}
