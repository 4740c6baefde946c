/* A thread's time by innermost phase between two samples (res_phase_time.h). */
#include "res_phase_time.h"

#include "clock.h"
#include "thread.h"

#include <scope/vec.h>
#include <stdlib.h>
#include <string.h>

#define OPEN_TRIES 16

static void copy_mark(const void *from, void *to) {
    const rec_node *n = from;
    rec_phase_mark *m = to;
    m->ns = m->ended_ns = rec_seq_load(&n->wall_ns);
    if (n->flags & SCOPE_PHASE_F_IO) {
        m->bytes[REC_PT_DISK_READ] = rec_seq_load(&n->disk_read);
        m->bytes[REC_PT_DISK_WRITE] = rec_seq_load(&n->disk_write);
        m->bytes[REC_PT_CHAR_READ] = rec_seq_load(&n->char_read);
        m->bytes[REC_PT_CHAR_WRITE] = rec_seq_load(&n->char_write);
    }
}

/* Adds each open entry's time up to now to its node's; nothing when every
 * copy of the stack was spoiled by entries (the next take has them). */
static void add_open(rec_phase_clock *c, rec_thread *t) {
    static rec_frame frames[REC_MAX_DEPTH]; /* the writer thread's alone */
    static uint64_t io_at[REC_MAX_DEPTH][4];
    static uint8_t io_ok[REC_MAX_DEPTH];
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
            const rec_node *n = frames[k].node;
            io_ok[k] = n && (n->flags & SCOPE_PHASE_F_IO) ? rec_relaxed_load(&n->io_open_ok) : 0;
            for (int f = 0; f < 4 && io_ok[k]; f++)
                io_at[k][f] = rec_relaxed_load(&n->io_open_at[f]);
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
            rec_phase_mark *m = &c->nodes[n->idx - 1];
            m->ns += now > t0 ? rec_ticks_to_ns_with(now - t0, t->clock_mult) : 0;
            if (io_ok[k]) {
                memcpy(m->open_at, io_at[k], sizeof m->open_at);
                m->open_io = 1;
            }
        }
        return;
    }
}

int rec_phase_clock_take(rec_phase_clock *c, rec_thread *t) {
    uint32_t nn = atomic_load_explicit(&t->nnodes, memory_order_acquire);
    if (SCOPE_VEC_RESERVE(c->nodes, c->cap, (size_t)nn) < 0)
        return -1;
    c->n = nn;
    for (uint32_t i = 1; i <= nn; i++) {
        rec_node *n = rec_node_at(t, i);
        c->nodes[i - 1] = (rec_phase_mark){0};
        /* stuck_ok: an owner stopped inside an update leaves a figure off
         * by its one entry, which the next take sets right. */
        rec_seq_read(&n->seq, copy_mark, n, &c->nodes[i - 1], 1);
    }
    add_open(c, t);
    return 0;
}

void rec_phase_clock_open_io(rec_phase_clock *c, const uint64_t now[4]) {
    /* rec_io_counters' order (rchar, wchar, read_bytes, write_bytes) to
     * the figures' */
    static const int figure[4] = {REC_PT_CHAR_READ, REC_PT_CHAR_WRITE, REC_PT_DISK_READ,
                                  REC_PT_DISK_WRITE};
    for (uint32_t i = 0; i < c->n; i++) {
        rec_phase_mark *m = &c->nodes[i];
        if (!m->open_io)
            continue;
        for (int k = 0; k < 4; k++)
            m->bytes[figure[k]] += now[k] > m->open_at[k] ? now[k] - m->open_at[k] : 0;
        m->ended_ns = m->ns;
    }
}

static uint64_t delta(uint64_t a, uint64_t b) {
    return b > a ? b - a : 0;
}

uint64_t rec_phase_split(const rec_phase_clock *then, const rec_phase_clock *now, rec_thread *t,
                         rec_phase_shares *out) {
    out->n = 0;
    memset(out->exact, 0, sizeof out->exact);
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
        SCOPE_VEC_RESERVE(out->own, out->cap_own, (size_t)nn + 1) < 0 ||
        SCOPE_VEC_RESERVE(out->rows, out->cap, (size_t)nn + 1) < 0)
        return 0;
    memset(out->self, 0, ((size_t)nn + 1) * sizeof *out->self);
    memset(out->own, 0, ((size_t)nn + 1) * sizeof *out->own);
    static const rec_phase_mark none;
    /* Each node's time in the interval, children included, to it, and
     * taken off its parent's (idx 0: the top level, which the interval's
     * length bounds); its exact bytes likewise, which include those of
     * the phases inside it. */
    for (uint32_t i = 1; i <= nn; i++) {
        const rec_phase_mark *a = i <= then->n ? &then->nodes[i - 1] : &none,
                             *b = &now->nodes[i - 1];
        uint32_t parent = rec_node_at(t, i)->parent;
        parent = parent <= nn ? parent : 0;
        int64_t d = (int64_t)delta(a->ns, b->ns);
        out->self[i] += d;
        out->self[parent] -= d;
        for (int f = 0; f < REC_PT_FIGURES; f++) {
            int64_t e = (int64_t)delta(a->bytes[f], b->bytes[f]);
            out->own[i][f] += e;
            if (parent)
                out->own[parent][f] -= e;
        }
    }
    uint64_t total = 0;
    for (uint32_t i = 1; i <= nn; i++) {
        const rec_phase_mark *a = i <= then->n ? &then->nodes[i - 1] : &none,
                             *b = &now->nodes[i - 1];
        rec_phase_share row = {.node = rec_node_at(t, i)->id};
        int moved = 0;
        for (int f = 0; f < REC_PT_FIGURES; f++) {
            row.exact[f] = out->own[i][f] > 0 ? (uint64_t)out->own[i][f] : 0;
            moved |= row.exact[f] != 0;
        }
        int64_t self = out->self[i];
        if (moved) /* its ended entries' time is spent: their bytes are known */
            self -= (int64_t)delta(a->ended_ns, b->ended_ns);
        row.ns = self > 0 ? (uint64_t)self : 0;
        if (!row.ns && !moved)
            continue;
        for (int f = 0; f < REC_PT_FIGURES; f++)
            out->exact[f] += row.exact[f];
        out->rows[out->n++] = row;
        total += row.ns;
    }
    /* self[0] is minus the top level's time: the rest of the interval
     * had no phase open. */
    int64_t outside = (int64_t)len_ns + out->self[0];
    out->rows[out->n++] = (rec_phase_share){.node = 0, .ns = outside > 0 ? (uint64_t)outside : 0};
    return total + out->rows[out->n - 1].ns;
}

void rec_phase_clock_free(rec_phase_clock *c) {
    free(c->nodes);
    *c = (rec_phase_clock){0};
}

void rec_phase_shares_free(rec_phase_shares *s) {
    free(s->rows);
    free(s->self);
    free(s->own);
    *s = (rec_phase_shares){0};
}
