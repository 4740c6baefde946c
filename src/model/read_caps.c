/* The reader's caps on what a log and a run hold; see read_caps.h. */
#include "read_caps.h"

#include <errno.h>
#include <stdlib.h>

static const uint64_t per_node[READ_KINDS] = {
    [READ_NODES] = 1,
    [READ_COUNTERS] = 1,
    [READ_NAMES] = READ_NAMES_PER_NODE,
    [READ_BINS] = READ_BINS_PER_NODE,
};

/* Nodes a log may hold: the default, or a lower SCOPE_READ_MAX_NODES. */
static uint64_t nodes_per_log(void) {
    const char *s = getenv("SCOPE_READ_MAX_NODES");
    if (!s || !*s)
        return READ_MAX_NODES_PER_LOG;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v == 0 || v > READ_MAX_NODES_PER_LOG)
        return READ_MAX_NODES_PER_LOG; /* only ever lowered */
    return v;
}

read_caps *read_caps_new(void) {
    read_caps *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    uint64_t nodes = nodes_per_log();
    for (int k = 0; k < READ_KINDS; k++) {
        c->per_log[k] = nodes * per_node[k];
        c->per_run[k] = c->per_log[k] * READ_LOGS_PER_RUN;
        atomic_init(&c->held[k], 0);
    }
    atomic_init(&c->refs, 1);
    return c;
}

read_caps *read_caps_hold(read_caps *c) {
    if (c)
        atomic_fetch_add(&c->refs, 1);
    return c;
}

void read_caps_drop(read_caps *c) {
    if (c && atomic_fetch_sub(&c->refs, 1) == 1)
        free(c);
}

static uint64_t log_cap(const read_caps *c, enum read_cap_kind k) {
    return c ? c->per_log[k] : (uint64_t)READ_MAX_NODES_PER_LOG * per_node[k];
}

int read_caps_take(read_caps *c, read_tally *t, enum read_cap_kind k, uint64_t n) {
    if (n > log_cap(c, k) - t->held[k]) {
        t->hit[k] = 1;
        return -1;
    }
    if (c) {
        uint64_t was = atomic_fetch_add(&c->held[k], n);
        if (was + n > c->per_run[k]) {
            atomic_fetch_sub(&c->held[k], n);
            t->hit[k] = t->by_run[k] = 1;
            return -1;
        }
    }
    t->held[k] += n;
    return 0;
}

void read_caps_give(read_caps *c, read_tally *t, enum read_cap_kind k, uint64_t n) {
    if (n > t->held[k])
        n = t->held[k];
    t->held[k] -= n;
    if (c)
        atomic_fetch_sub(&c->held[k], n);
}

void read_caps_give_all(read_caps *c, read_tally *t) {
    for (int k = 0; k < READ_KINDS; k++)
        read_caps_give(c, t, (enum read_cap_kind)k, t->held[k]);
}

uint64_t read_caps_cap_of(const read_caps *c, const read_tally *t, enum read_cap_kind k) {
    if (t->cap[k])
        return t->cap[k];
    return t->by_run[k] && c ? c->per_run[k] : log_cap(c, k);
}
