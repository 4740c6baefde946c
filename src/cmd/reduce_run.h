/*
 * Reducing a run directory in parts (docs/reduce.md): rank 0 lists the
 * logs and cuts them into parts (run_dir_cut), the cut goes to every rank,
 * each rank reads its part of the logs into a model of its own and writes it
 * as /summary (scope's HDF5 layout) in memory; rank 0 gathers the parts,
 * reads each back as one partial model and merges them
 * (run_builder_finish_parts), and writes SUMMARY, the merged model as
 * /summary, whole or not at all (cmd_export.h).
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
    /* Rank 0's bytes (*buf, *len) on every rank: on the others *buf is
     * malloc'd here, the caller's to free.  0, or -1 with nothing set. */
    int (*broadcast_bytes)(void *ctx, void **buf, size_t *len);
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
