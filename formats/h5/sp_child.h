/*
 * sp_child: a scope-profiler file read through sp_file.h in a child
 * process, and handed back over a pipe one rank at a time.
 *
 * Why: the HDF5 library trusts much of a file's bytes.  A damaged file can
 * crash it (HDF5 1.10 copies a variable-length string with the length a
 * damaged global heap gives: tests/fuzz/README.md), and checks of our own
 * cannot reach inside it.  In a child, such a crash ends the child, and
 * the caller says so in one line like any other bad file.  Ranks are passed
 * as they are read, so memory still follows the largest rank.
 *
 * The child is held to a wall-clock limit: each step (opening the file
 * with its metadata, then each rank) must reach the caller within
 * SCOPE_H5_READ_TIMEOUT seconds (a whole number, 1 to 86400; default
 * SP_CHILD_DEFAULT_LIMIT_S), else the child is killed and the step fails
 * with a message saying so.  The library can block (a file it opens, a
 * plugin it looks for) or loop on a file, and the caller must not wait for
 * ever.
 *
 * Built with SCOPE_SP_IN_PROCESS (the fuzz build, whose coverage must see
 * the reading), the same calls read in the caller's own process, with no
 * limit.
 */
#ifndef SCOPE_SP_CHILD_H
#define SCOPE_SP_CHILD_H

#include "sp_file.h"

/* A step's limit, far above what real files take: a rank of 10^7 calls
 * (160 MB) is read, sent and merged in 2 s on a loaded 2-core machine. */
#define SP_CHILD_DEFAULT_LIMIT_S 60

typedef struct sp_child sp_child;

/* Starts reading path: its layout checked, its metadata read.  0 with *out
 * set, or -1 with one sentence in msg (without the path). */
int sp_child_open(const char *path, sp_child **out, char *msg, size_t msglen);

int sp_child_schema(const sp_child *c);
const sp_meta *sp_child_meta(const sp_child *c);
size_t sp_child_nranks(const sp_child *c);

/* The next rank, in increasing rank order (sp_rank_free frees it).  0, or
 * -1 with msg. */
int sp_child_next(sp_child *c, sp_rank *r, char *msg, size_t msglen);

/* Ends the reading (a child still reading is stopped) and frees c. */
void sp_child_close(sp_child *c);

#endif
