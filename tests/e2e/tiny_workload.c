/*
 * Phases too short for the clocks to agree entry by entry, whose true wait
 * the program measures itself:
 *
 *   tiny_workload RUN
 *
 * "tiny/t000" to "tiny/t299": 300 sibling phases of 5 entries each, 20 to
 * 100 us long, each spinning part of its length and sleeping the rest (the
 * share slept is the phase's own, from 0 to 3/4 in quarters).  "micro":
 * 20000 entries of about 1 us spinning, one in 16 of them (drawn by a fixed
 * generator, so no rule that reads every k-th entry sees them all or none)
 * sleeping about 1 us instead.  "spin1": 20000 entries of 1 us spinning,
 * whose wait is what the machine takes from them.  Timer slack is set to
 * 1 ns so that the sleeps are short.
 *
 * Each entry reads the wall clock (CLOCK_MONOTONIC) and its thread's CPU
 * clock at its start and end, inside the phase (entry_body); for each
 * phase it prints "PATH WALL_NS CPU_NS" summed over its entries on stdout,
 * the truth the report's wait% is judged against.
 */
#define _GNU_SOURCE
#include <scope/scope.h>

#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <time.h>

#define PHASES        300
#define ENTRIES       5
#define MICRO_ENTRIES 20000

static int64_t clock_of(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void spin_ns(int64_t ns) {
    int64_t end = clock_of(CLOCK_MONOTONIC) + ns;
    while (clock_of(CLOCK_MONOTONIC) < end)
        ;
}

static void sleep_ns(int64_t ns) {
    struct timespec ts = {.tv_sec = 0, .tv_nsec = ns};
    nanosleep(&ts, NULL);
}

typedef struct {
    int64_t wall, cpu;
} truth;

/* One entry of the innermost open phase: spin, then sleep, each for the
 * given time, with the entry's wall and CPU time added to *t.  The phase
 * holds the entry's own clock reads too: the wall window [w0, w1] holds
 * the CPU reads c0, c1 and c2 whole, the CPU window [c0, c2] all but the
 * start of c0 and the end of c2, one read's share, which c2 - c1 (the end
 * of c1 and the start of c2) measures right there, as the recorder does
 * between an exit's read and the next entry's. */
static void entry_body(truth *t, int64_t spin, int64_t sleep) {
    int64_t w0 = clock_of(CLOCK_MONOTONIC), c0 = clock_of(CLOCK_THREAD_CPUTIME_ID);
    if (spin)
        spin_ns(spin);
    if (sleep)
        sleep_ns(sleep);
    int64_t c1 = clock_of(CLOCK_THREAD_CPUTIME_ID), c2 = clock_of(CLOCK_THREAD_CPUTIME_ID);
    int64_t w1 = clock_of(CLOCK_MONOTONIC);
    t->wall += w1 - w0;
    t->cpu += (c2 - c0) + (c2 - c1);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: tiny_workload RUN\n");
        return 2;
    }
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    if (scope_init(argv[1], "tiny") != 0)
        return 3;
    static truth phases[PHASES];
    static char names[PHASES][16];
    scope_phase_begin("tiny");
    for (int i = 0; i < PHASES; i++) {
        snprintf(names[i], sizeof names[i], "t%03d", i);
        int quarters_slept = i % 4;
        for (int j = 0; j < ENTRIES; j++) {
            int64_t len = 1000 * (20 + (i * 7 + j * 13) % 81);
            int64_t slept = len * quarters_slept / 4;
            scope_phase_begin(names[i]);
            entry_body(&phases[i], len - slept, slept);
            scope_phase_end();
        }
    }
    scope_phase_end();

    truth micro = {0, 0};
    uint32_t draw = 12345;
    for (int k = 0; k < MICRO_ENTRIES; k++) {
        draw = draw * 1664525u + 1013904223u;
        int sleeps = (draw >> 24) % 16 == 0;
        scope_phase_begin("micro");
        entry_body(&micro, sleeps ? 0 : 1000, sleeps ? 1000 : 0);
        scope_phase_end();
    }
    truth spin1 = {0, 0};
    for (int k = 0; k < MICRO_ENTRIES; k++) {
        scope_phase_begin("spin1");
        entry_body(&spin1, 1000, 0);
        scope_phase_end();
    }
    scope_shutdown();

    for (int i = 0; i < PHASES; i++)
        printf("tiny/%s %lld %lld\n", names[i], (long long)phases[i].wall,
               (long long)phases[i].cpu);
    printf("micro %lld %lld\n", (long long)micro.wall, (long long)micro.cpu);
    printf("spin1 %lld %lld\n", (long long)spin1.wall, (long long)spin1.cpu);
    return 0;
}
