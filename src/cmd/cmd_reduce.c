/*
 * `scope-tui reduce RUN -o SUMMARY`: the reduction of reduce_run.h as one
 * rank, without MPI; scope-reduce runs the same under mpiexec or srun.
 */
#include "commands.h"
#include "reduce_run.h"

#include <stdio.h>
#include <stdlib.h>

static void broadcast_alone(void *ctx, int *v) {
    (void)ctx;
    (void)v;
}

static int gather_alone(void *ctx, void *buf, size_t len, void ***parts, size_t **lens, char *msg,
                        size_t msglen) {
    (void)ctx;
    *parts = malloc(sizeof **parts);
    *lens = malloc(sizeof **lens);
    if (!*parts || !*lens) {
        free(*parts);
        free(*lens);
        free(buf);
        snprintf(msg, msglen, "out of memory");
        return -1;
    }
    (*parts)[0] = buf;
    (*lens)[0] = len;
    return 0;
}

int scope_cmd_reduce(int argc, char **argv) {
    reduce_comm alone = {
        .rank = 0, .size = 1, .broadcast = broadcast_alone, .gather = gather_alone};
    return reduce_main(argc, argv, &alone);
}
