/*
 * scope-reduce: `scope-tui reduce` (reduce_run.h) under MPI, one part of the
 * run a rank: `mpiexec -n N scope-reduce RUN -o SUMMARY` or `srun -n N
 * scope-reduce ...`.  Started without a launcher it is one rank, as MPI
 * starts a singleton.  Built once for each MPI CMake finds (docs/reduce.md).
 *
 * The parts move to rank 0 one rank at a time, each in pieces of at most
 * 1 GiB (an MPI count is an int).
 */
#include "reduce_run.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PIECE ((size_t)1 << 30)

static void broadcast_mpi(void *ctx, int *v) {
    (void)ctx;
    MPI_Bcast(v, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

/* Waiting without spinning: MPI implementations poll while they wait in a
 * blocking call, and on a machine with fewer cores than ranks (the tests',
 * a login node) a rank that waits takes the CPU from the rank it waits
 * for.  These test now and then and sleep between, up to 2 ms. */
static void nap(long *ns) {
    struct timespec t = {0, *ns};
    nanosleep(&t, NULL);
    if (*ns < 2000000)
        *ns *= 2;
}

static void wait_sent(MPI_Request *req) {
    long ns = 20000;
    for (int done = 0;;) {
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        nap(&ns);
    }
}

static void recv_when_there(void *buf, int n, MPI_Datatype type, int from, int tag) {
    long ns = 20000;
    for (int there = 0;;) {
        MPI_Iprobe(from, tag, MPI_COMM_WORLD, &there, MPI_STATUS_IGNORE);
        if (there)
            break;
        nap(&ns);
    }
    MPI_Recv(buf, n, type, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

enum { TAG_LEN = 1, TAG_BYTES = 2 };

/* A broadcast waited for as the parts are (wait_sent), in pieces. */
static int broadcast_bytes_mpi(void *ctx, void **buf, size_t *len) {
    (void)ctx;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    unsigned long long n = rank == 0 ? *len : 0;
    MPI_Request req;
    MPI_Ibcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD, &req);
    wait_sent(&req);
    if (rank != 0) {
        *len = (size_t)n;
        if (!(*buf = malloc(n ? (size_t)n : 1))) {
            /* The collective cannot go on without this rank: the job ends. */
            fprintf(stderr, "scope-reduce: rank %d: out of memory for the cut (%llu bytes)\n", rank,
                    n);
            MPI_Abort(MPI_COMM_WORLD, 2);
            return -1;
        }
    }
    for (size_t at = 0; at < n; at += PIECE) {
        size_t k = n - at < PIECE ? (size_t)n - at : PIECE;
        MPI_Ibcast((char *)*buf + at, (int)k, MPI_BYTE, 0, MPI_COMM_WORLD, &req);
        wait_sent(&req);
    }
    return 0;
}

static int gather_mpi(void *ctx, void *buf, size_t len, void ***parts, size_t **lens, char *msg,
                      size_t msglen) {
    (void)ctx;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank != 0) {
        unsigned long long n = len;
        MPI_Request req;
        MPI_Isend(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, TAG_LEN, MPI_COMM_WORLD, &req);
        wait_sent(&req);
        for (size_t at = 0; at < len; at += PIECE) {
            size_t k = len - at < PIECE ? len - at : PIECE;
            MPI_Isend((char *)buf + at, (int)k, MPI_BYTE, 0, TAG_BYTES, MPI_COMM_WORLD, &req);
            wait_sent(&req);
        }
        free(buf);
        return 0;
    }
    *parts = calloc((size_t)size, sizeof **parts);
    *lens = calloc((size_t)size, sizeof **lens);
    if (!*parts || !*lens) {
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
        unsigned long long n = 0;
        recv_when_there(&n, 1, MPI_UNSIGNED_LONG_LONG, r, TAG_LEN);
        char *p = malloc(n ? (size_t)n : 1);
        if (!p) {
            snprintf(msg, msglen, "out of memory for rank %d's part (%llu bytes)", r, n);
            fprintf(stderr, "scope-reduce: %s\n", msg);
            MPI_Abort(MPI_COMM_WORLD, 2);
            return -1;
        }
        for (size_t at = 0; at < n; at += PIECE) {
            size_t k = n - at < PIECE ? (size_t)n - at : PIECE;
            recv_when_there(p + at, (int)k, MPI_BYTE, r, TAG_BYTES);
        }
        (*parts)[r] = p;
        (*lens)[r] = (size_t)n;
    }
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
                        .broadcast_bytes = broadcast_bytes_mpi,
                        .gather = gather_mpi};
    /* Each rank's own status: the launcher ends once every rank did, rank 0
     * after SUMMARY is written, and fails the job when any rank failed. */
    int rc = reduce_main(argc, argv, &comm);
    MPI_Finalize();
    return rc;
}
