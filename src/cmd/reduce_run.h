/*
 * Reducing a run directory in parts (docs/reduce.md): each rank reads its
 * part of the logs (run_dir_load_part) into a model of its own, written as
 * scope's HDF5 layout in memory; rank 0 gathers the parts, reads them back
 * into one builder in rank order (the HDF5 loader, so the merge is the one
 * every load runs) and writes SUMMARY, an HDF5 export of the whole run,
 * whole or not at all (cmd_export.h).
 *
 * What moves between ranks is behind reduce_comm, so `scope-tui reduce`
 * runs it as one rank without MPI and scope-reduce (reduce_mpi.c) under
 * mpiexec or srun.
 */
#ifndef SCOPE_REDUCE_RUN_H
#define SCOPE_REDUCE_RUN_H

#include <stddef.h>

typedef struct reduce_comm {
    unsigned rank, size; /* size 1: the functions below are not called */
    /* Rank 0's value of *v, on every rank. */
    void (*broadcast)(void *ctx, int *v);
    /* Every rank's bytes (buf, len: malloc'd, taken over) to rank 0: on
     * rank 0, parts[r] and lens[r] for each rank r (malloc'd, each part and
     * both arrays freed by the caller); on the others nothing.  0, or -1
     * with msg set. */
    int (*gather)(void *ctx, void *buf, size_t len, void ***parts, size_t **lens, char *msg,
                  size_t msglen);
    void *ctx;
} reduce_comm;

/* `reduce RUN -o SUMMARY [--no-samples]` on this rank: argv from the
 * command's name.  Every rank calls it with the same arguments; it returns
 * the exit status (0 written; 2 bad arguments, a run that cannot be read, a
 * SUMMARY that cannot be written), rank 0 saying why on stderr. */
int reduce_main(int argc, char **argv, const reduce_comm *comm);

#endif
