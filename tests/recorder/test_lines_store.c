/*
 * Unit tests of the line sampler's storage, against libscope's own objects
 * (the static archive): a thread's ring filled by the real SIGPROF handler
 * until it is full (drops counted, nothing overwritten), and stacks
 * interned once each and counted per (thread, phase node).
 */
#define _GNU_SOURCE
#include "lines_store.h"
#include "sampler.h"

#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double thread_cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile double sink;

__attribute__((noinline)) static void burn(double seconds) {
    double t0 = thread_cpu_s();
    while (thread_cpu_s() - t0 < seconds)
        for (int i = 0; i < 10000; i++)
            sink += i * 0.5;
}

/* No drainer runs here: the ring fills, and every sample past its size is
 * dropped and counted, weighted by its overruns. */
START_TEST(full_ring_drops_and_counts) {
    rec_lines_cfg.hz = 1000;
    rec_lines_cfg.period_ns = 1000000;
    rec_lines_cfg.clock = SCOPE_LINES_CLOCK_CPU;
    ck_assert_int_eq(rec_sampler_install(), 0);
    rec_sampler_lock();
    rec_lines_slot *s = rec_sampler_slot_self();
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(rec_sampler_arm(s), 0);
    rec_sampler_unlock();
    /* 1.5 s of CPU: at least 375 expiries on a 250 Hz tick, 3x the ring */
    double t0 = thread_cpu_s();
    while (atomic_load(&s->dropped) == 0 && thread_cpu_s() - t0 < 20)
        burn(0.1);
    burn(0.2);
    rec_lines_store_scan_modules(1);
    rec_sampler_lock();
    rec_sampler_disarm(s);
    uint64_t head = atomic_load(&s->head), tail = atomic_load(&s->tail);
    uint64_t taken = atomic_load(&s->taken), dropped = atomic_load(&s->dropped);
    ck_assert_uint_eq(head - tail, REC_LINES_RING);
    ck_assert_uint_gt(dropped, 0);
    uint64_t kept = 0;
    for (uint32_t i = 0; i < REC_LINES_RING; i++) {
        ck_assert_uint_ge(s->ring[i].nframes, 2); /* burn and its caller, at least */
        kept += s->ring[i].weight;
    }
    ck_assert_uint_eq(kept + dropped, taken);
    rec_lines_store_drain();
    rec_lines_totals t = rec_lines_store_totals();
    ck_assert_uint_eq(atomic_load(&s->tail), head);
    ck_assert_uint_eq(t.samples, taken);
    ck_assert_uint_eq(t.dropped, dropped);
    rec_sampler_unlock();
}
END_TEST

/* Samples put in the ring as the handler would: equal stacks become one
 * stack id, counted per (thread, node) with their weights. */
static void put(rec_lines_slot *s, uint32_t thread, uint32_t node, uint32_t weight,
                const uintptr_t *pc, uint32_t n) {
    uint64_t head = atomic_load(&s->head);
    rec_lines_sample *e = &s->ring[head % REC_LINES_RING];
    e->thread = thread;
    e->node = node;
    e->weight = weight;
    e->nframes = n;
    memcpy(e->pc, pc, n * sizeof *pc);
    atomic_store(&s->head, head + 1);
}

static uint64_t count_of(uint32_t thread, uint32_t node, uint32_t stack) {
    for (uint32_t g = 0; g < rec_lines_store_ngroups(); g++) {
        rec_lines_group *gr = rec_lines_store_group(g);
        if (gr->thread != thread || gr->node != node)
            continue;
        for (uint32_t i = 0; i < gr->n; i++)
            if (gr->counts[i].stack == stack)
                return gr->counts[i].count;
    }
    return 0;
}

START_TEST(stacks_are_interned_once) {
    rec_lines_store_scan_modules(1);
    rec_sampler_lock();
    rec_lines_slot *s = rec_sampler_slot_self();
    ck_assert_ptr_nonnull(s);
    if (!s->ring)
        s->ring = calloc(REC_LINES_RING, sizeof *s->ring);
    ck_assert_ptr_nonnull(s->ring);
    uint32_t before = rec_lines_store_nstacks();
    uintptr_t a[3] = {(uintptr_t)burn + 4, (uintptr_t)put + 8, (uintptr_t)count_of + 2};
    uintptr_t b[2] = {(uintptr_t)burn + 4, (uintptr_t)put + 8};
    put(s, 7, 3, 1, a, 3);
    put(s, 7, 3, 2, a, 3);
    put(s, 7, 4, 1, a, 3);
    put(s, 7, 3, 5, b, 2);
    rec_lines_store_drain();
    ck_assert_uint_eq(rec_lines_store_nstacks(), before + 2);
    uint32_t sa = before + 1, sb = before + 2;
    const scope_rec_stack *st = rec_lines_store_stack(sa);
    ck_assert_uint_eq(st->nframes, 3);
    /* Module-relative: all three lie in this program, one module. */
    const scope_rec_module *m = rec_lines_store_module(st->frames[0].module);
    ck_assert_ptr_nonnull(m);
    ck_assert_uint_eq(m->base + st->frames[0].offset, a[0]);
    ck_assert_uint_eq(st->frames[1].module, st->frames[0].module);
    ck_assert_uint_eq(count_of(7, 3, sa), 3);
    ck_assert_uint_eq(count_of(7, 4, sa), 1);
    ck_assert_uint_eq(count_of(7, 3, sb), 5);
    /* Again: the same ids, the counts grow. */
    put(s, 7, 3, 1, b, 2);
    rec_lines_store_drain();
    ck_assert_uint_eq(rec_lines_store_nstacks(), before + 2);
    ck_assert_uint_eq(count_of(7, 3, sb), 6);
    rec_sampler_unlock();
}
END_TEST

int main(void) {
    Suite *su = suite_create("lines_store");
    TCase *tc = tcase_create("store");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, full_ring_drops_and_counts);
    tcase_add_test(tc, stacks_are_interned_once);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    /* One process: the tests share the sampler's state on purpose. */
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
