/*
 * The bytes a process's resource intervals put under each phase node
 * (docs/format.md 5.22, NODE_IO): what a snapshot frame carries so that a
 * reader starting at it attributes the hours before it to phases as a
 * reader of every interval would.
 *
 * One row per node any interval named, kept sorted by node id: thread
 * records (the node open on the thread that moved the bytes) and process
 * records (the node open on the first thread) sum apart, each byte figure
 * only where the interval measured it.  The table grows as nodes appear,
 * so its size is bounded by the phase tree, not by the length of the run.
 */
#ifndef SCOPE_REC_RES_NODE_IO_H
#define SCOPE_REC_RES_NODE_IO_H

#include <scope/log_format.h>

#include <stdint.h>

typedef struct rec_node_io {
    scope_rec_node_io *rows; /* ascending node */
    uint32_t n, cap;
    int nomem; /* a row could not be added: the table is short of some intervals */
} rec_node_io;

/* Adds one RESOURCE interval.  Returns 0, or -1 (and sets nomem) when the
 * table could not grow for a new node. */
int rec_node_io_add(rec_node_io *t, const scope_rec_resource *r);

/* Empties the table, keeping its memory. */
void rec_node_io_clear(rec_node_io *t);

void rec_node_io_free(rec_node_io *t);

#endif
