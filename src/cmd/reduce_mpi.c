/*
 * scope-reduce: `scope-tui reduce` (reduce_run.h) under MPI, one part of the
 * run a rank: `mpiexec -n N scope-reduce RUN -o SUMMARY` or `srun -n N
 * scope-reduce ...`.  Started without a launcher it is one rank, as MPI
 * starts a singleton.  Built once for each MPI CMake finds (docs/reduce.md).
 *
 * The parts move to rank 0 one rank at a time, each in pieces of at most
 * 1 GiB (an MPI count is an int), so rank 0 holds the parts and one
 * message, never N messages in flight.
 */
#include "reduce_run.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define PIECE ((size_t)1 << 30)

static void broadcast_mpi(void *ctx, int *v) {
    (void)ctx;
    MPI_Bcast(v, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

static int gather_mpi(void *ctx, void *buf, size_t len, void ***parts, size_t **lens, char *msg,
                      size_t msglen) {
    (void)ctx;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned long long mine = len;
    unsigned long long *all = rank == 0 ? calloc((size_t)size, sizeof *all) : NULL;
    MPI_Gather(&mine, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rank != 0) {
        for (size_t at = 0; at < len; at += PIECE) {
            size_t n = len - at < PIECE ? len - at : PIECE;
            MPI_Send((char *)buf + at, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
        free(buf);
        return 0;
    }
    *parts = calloc((size_t)size, sizeof **parts);
    *lens = calloc((size_t)size, sizeof **lens);
    if (!all || !*parts || !*lens) {
        /* Rank 0 cannot hold them: the job fails, and the others are
         * ended with it rather than left waiting to send. */
        snprintf(msg, msglen, "out of memory gathering the parts");
        fprintf(stderr, "scope-reduce: %s\n", msg);
        MPI_Abort(MPI_COMM_WORLD, 2);
        return -1;
    }
    (*parts)[0] = buf;
    (*lens)[0] = len;
    for (int r = 1; r < size; r++) {
        size_t n = (size_t)all[r];
        char *p = malloc(n ? n : 1);
        if (!p) {
            snprintf(msg, msglen, "out of memory for rank %d's part (%zu bytes)", r, n);
            fprintf(stderr, "scope-reduce: %s\n", msg);
            MPI_Abort(MPI_COMM_WORLD, 2);
            return -1;
        }
        for (size_t at = 0; at < n; at += PIECE) {
            size_t k = n - at < PIECE ? n - at : PIECE;
            MPI_Recv(p + at, (int)k, MPI_BYTE, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        (*parts)[r] = p;
        (*lens)[r] = n;
    }
    free(all);
    return 0;
}

int main(int argc, char **argv) {
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fputs("scope-reduce: MPI_Init failed\n", stderr);
        return 2;
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    reduce_comm comm = {.rank = (unsigned)rank,
                        .size = (unsigned)size,
                        .broadcast = broadcast_mpi,
                        .gather = gather_mpi};
    int rc = reduce_main(argc, argv, &comm);
    /* Rank 0's status is the job's: the others wait for it, so that a
     * launcher reports the job ended only once SUMMARY is written. */
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return rc;
}
