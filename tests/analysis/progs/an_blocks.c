/*
 * Block phases with explicit begin/end misused inside them, whose true tree
 * is known by construction (tests/analysis/test_block_phases.c).
 *
 *   an_blocks RUN leak:  10 x parent { blk { (4th time: begin "leak") } work { 1 ms } }
 *   an_blocks RUN stray: outer { blk { 2 ms; scope_phase_end(); 3 ms } }
 */
#define _GNU_SOURCE
#include <scope/scope.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void sleep_ms(long ms) {
    struct timespec ts = {0, ms * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[2], "leak") && strcmp(argv[2], "stray"))) {
        fprintf(stderr, "usage: an_blocks RUN leak|stray\n");
        return 2;
    }
    if (scope_init(argv[1], argv[2]) != 0)
        return 1;
    if (!strcmp(argv[2], "leak")) {
        for (int i = 0; i < 10; i++) {
            SCOPE_PHASE("parent") {
                SCOPE_PHASE("blk") {
                    if (i == 4)
                        scope_phase_begin("leak"); /* never ended: the block closes it */
                }
                SCOPE_PHASE("work") {
                    sleep_ms(1);
                }
            }
        }
    } else {
        SCOPE_PHASE("outer") {
            SCOPE_PHASE("blk") {
                sleep_ms(2);
                scope_phase_end(); /* nothing of its own open: must not end blk */
                sleep_ms(3);
            }
        }
    }
    scope_shutdown();
    return 0;
}
