/*
 * A run still being recorded (tests/analysis/test_live_run.c): a process
 * that holds nested phases open while its test reads the run.
 *
 *   an_live RUN FIFO:
 *     outer { 3 x step { 20 ms }  wait { 200 ms; scope_flush(); "flushed";
 *                                        a line from FIFO } }
 *     "done"
 *
 * It prints "flushed" once the frame that finds outer and wait open is on
 * disk, then waits inside both until its test writes a line into FIFO.
 */
#define _GNU_SOURCE
#include <scope/scope.h>
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms) {
    struct timespec ts = {0, ms * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: an_live RUN FIFO\n");
        return 2;
    }
    if (scope_init(argv[1], "live") != 0)
        return 1;
    int rc = 0;
    SCOPE_PHASE("outer") {
        for (int i = 0; i < 3; i++)
            SCOPE_PHASE("step") {
                sleep_ms(20);
            }
        SCOPE_PHASE("wait") {
            sleep_ms(200);
            if (scope_flush() != 0)
                rc = 1;
            printf("flushed\n");
            fflush(stdout);
            int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
            char c;
            while (fd >= 0 && read(fd, &c, 1) == 1 && c != '\n')
                ;
            if (fd < 0)
                rc = 1;
            else
                close(fd);
        }
    }
    scope_shutdown();
    printf("done\n");
    return rc;
}
