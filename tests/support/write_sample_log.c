/* write-sample-log PATH NFRAMES SEED: writes a realistic sample log through
 * the real writer and prints each data frame's byte offset, one per line,
 * then "size N".  End-to-end tests damage its output on purpose. */
#include "log_samples.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: write-sample-log PATH NFRAMES SEED\n");
        return 2;
    }
    unsigned nframes = (unsigned)strtoul(argv[2], NULL, 10);
    unsigned seed = (unsigned)strtoul(argv[3], NULL, 10);
    if (nframes == 0 || nframes > 100000) {
        fprintf(stderr, "write-sample-log: NFRAMES must be 1..100000\n");
        return 2;
    }
    uint64_t *offsets = calloc(nframes, sizeof *offsets);
    uint64_t size = 0;
    int rc = offsets ? log_sample_write_log(argv[1], nframes, seed, offsets, &size) : -12;
    if (rc < 0) {
        fprintf(stderr, "write-sample-log: %s: %s\n", argv[1], strerror(-rc));
        free(offsets);
        return 1;
    }
    for (unsigned i = 0; i < nframes; i++)
        printf("%" PRIu64 "\n", offsets[i]);
    printf("size %" PRIu64 "\n", size);
    free(offsets);
    return 0;
}
