/* A thread's time by innermost phase between two samples (res_phase_time.h). */
#include "res_phase_time.h"

#include "clock.h"
#include "thread.h"

#include <scope/vec.h>
#include <stdlib.h>
#include <string.h>

#define OPEN_TRIES 16

static void copy_wall(const void *from, void *to) {
    const rec_node *n = from;
    *(uint64_t *)to = rec_seq_load(&n->wall_ns);
}

/* Adds each open entry's time up to now to its node's; nothing when every
 * copy of the stack was spoiled by entries (the next take has them). */
static void add_open(rec_phase_clock *c, rec_thread *t) {
    static rec_frame frames[REC_MAX_DEPTH]; /* the writer thread's alone */
    c->at_ns = rec_mono_ns();
    c->at_ticks = 0;
    for (int tries = 0; tries < OPEN_TRIES; tries++) {
        uint32_t gen = rec_seq_load(&t->open_gen);
        rec_seq_fence(memory_order_acquire);
        uint32_t depth = __atomic_load_n(&t->depth, __ATOMIC_ACQUIRE);
        if (depth >= REC_MAX_DEPTH)
            depth = REC_MAX_DEPTH - 1;
        for (uint32_t k = 1; k <= depth; k++) {
            frames[k].node = rec_relaxed_load(&t->stack[k].node);
            frames[k].t0 = rec_seq_load(&t->stack[k].t0);
        }
        uint64_t now = rec_ticks_with(t->clock_tsc);
        c->at_ns = rec_mono_ns();
        c->at_ticks = now;
        rec_seq_fence(memory_order_acquire);
        if (rec_seq_load(&t->open_gen) != gen)
            continue;
        for (uint32_t k = 1; k <= depth; k++) {
            const rec_node *n = frames[k].node;
            if (!n || n->idx == 0 || n->idx == REC_IDX_DROPPED || n->idx > c->n)
                continue;
            uint64_t t0 = frames[k].t0;
            c->ns[n->idx - 1] += now > t0 ? rec_ticks_to_ns_with(now - t0, t->clock_mult) : 0;
        }
        return;
    }
}

int rec_phase_clock_take(rec_phase_clock *c, rec_thread *t) {
    uint32_t nn = atomic_load_explicit(&t->nnodes, memory_order_acquire);
    if (SCOPE_VEC_RESERVE(c->ns, c->cap, (size_t)nn) < 0)
        return -1;
    c->n = nn;
    for (uint32_t i = 1; i <= nn; i++) {
        rec_node *n = rec_node_at(t, i);
        uint64_t w = 0;
        /* stuck_ok: an owner stopped inside an update leaves a figure off
         * by its one entry, which the next take sets right. */
        rec_seq_read(&n->seq, copy_wall, n, &w, 1);
        c->ns[i - 1] = w;
    }
    add_open(c, t);
    return 0;
}

uint64_t rec_phase_split(const rec_phase_clock *then, const rec_phase_clock *now, rec_thread *t,
                         rec_phase_shares *out) {
    out->n = 0;
    /* In the ticks the entries' times are in where both takes read them:
     * the two clocks part by parts per million, which would leave a phase
     * open throughout a few bytes short. */
    uint64_t len_ns = now->at_ns > then->at_ns ? now->at_ns - then->at_ns : 0;
    if (then->at_ticks && now->at_ticks)
        len_ns = now->at_ticks > then->at_ticks
                     ? rec_ticks_to_ns_with(now->at_ticks - then->at_ticks, t->clock_mult)
                     : 0;
    uint32_t nn = now->n;
    if (SCOPE_VEC_RESERVE(out->self, out->cap_self, (size_t)nn + 1) < 0 ||
        SCOPE_VEC_RESERVE(out->rows, out->cap, (size_t)nn + 1) < 0)
        return 0;
    memset(out->self, 0, ((size_t)nn + 1) * sizeof *out->self);
    /* Each node's time in the interval, children included, to it, and
     * taken off its parent's (idx 0: the top level, which the interval's
     * length bounds). */
    for (uint32_t i = 1; i <= nn; i++) {
        uint64_t a = i <= then->n ? then->ns[i - 1] : 0, b = now->ns[i - 1];
        int64_t d = b > a ? (int64_t)(b - a) : 0;
        uint32_t parent = rec_node_at(t, i)->parent;
        out->self[i] += d;
        out->self[parent <= nn ? parent : 0] -= d;
    }
    uint64_t total = 0;
    for (uint32_t i = 1; i <= nn; i++) {
        if (out->self[i] <= 0)
            continue;
        out->rows[out->n++] = (rec_phase_share){rec_node_at(t, i)->id, (uint64_t)out->self[i]};
        total += (uint64_t)out->self[i];
    }
    /* self[0] is minus the top level's time: the rest of the interval
     * had no phase open. */
    int64_t outside = (int64_t)len_ns + out->self[0];
    if (outside > 0) {
        out->rows[out->n++] = (rec_phase_share){0, (uint64_t)outside};
        total += (uint64_t)outside;
    }
    return total;
}

void rec_phase_clock_free(rec_phase_clock *c) {
    free(c->ns);
    *c = (rec_phase_clock){0};
}

void rec_phase_shares_free(rec_phase_shares *s) {
    free(s->rows);
    free(s->self);
    *s = (rec_phase_shares){0};
}
