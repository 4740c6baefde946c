/*
 * A program whose report has, by construction, the figures the text
 * report found hardest to lay out and to print:
 *
 *   fig_workload RUN
 *
 * Forks three "worker" processes one after another.  Each enters "tick"
 * 20,000 times (a wide count); workers 0 and 1 enter "part" once, sleeping
 * 10 and 20 ms (a spread that names 2 of 3 processes).  Worker 2 also
 *
 *   burst { sleep 1 ms; count huge 4,000,000,000,000,000,000 }
 *     (a rate of about 4e21/s, a time per unit of about 2.5e-13 ns)
 *   save  { sleep 10 ms; count bytes_written 2,500,000 }  (about 250 MB/s)
 *   the_outer_iteration_loop { self_play_stage { mcts_a { sleep 4 ms }
 *                                                 mcts_b { sleep 3 ms } } }
 *     (dominant phases whose long paths differ only in their last name)
 *   stuck { inner { sleep 5 ms }  again { sleep 1 ms }  again { ... }
 *
 * with "stuck" and the second "again" left open at exit: "stuck" has no
 * completed entry, "again" has one, and the time of the open ones was
 * never recorded.
 */
#include <scope/scope.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void worker(int i) {
    scope_init(NULL, "worker");
    for (int k = 0; k < 20000; k++)
        SCOPE_PHASE("tick") {}
    if (i < 2)
        SCOPE_PHASE("part") {
            usleep(10000 * (useconds_t)(i + 1));
        }
    if (i == 2) {
        SCOPE_PHASE("burst") {
            usleep(1000);
            SCOPE_COUNT("huge", 4000000000000000000);
        }
        SCOPE_PHASE("save") {
            usleep(10000);
            SCOPE_COUNT("bytes_written", 2500000);
        }
        SCOPE_PHASE("the_outer_iteration_loop") {
            SCOPE_PHASE("self_play_stage") {
                SCOPE_PHASE("mcts_a") {
                    usleep(4000);
                }
                SCOPE_PHASE("mcts_b") {
                    usleep(3000);
                }
            }
        }
        scope_phase_begin("stuck");
        SCOPE_PHASE("inner") {
            usleep(5000);
        }
        scope_phase_begin("again");
        usleep(1000);
        scope_phase_end();
        scope_phase_begin("again");
    }
    exit(0); /* through exit(), with "stuck" and "again" still open in worker 2 */
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fputs("usage: fig_workload RUN\n", stderr);
        return 2;
    }
    if (scope_init(argv[1], "coordinator") != 0)
        return 1;
    /* Let the writer thread finish starting before forking (GCC's
     * AddressSanitizer allocator is not fork-safe). */
    scope_flush();
    for (int i = 0; i < 3; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 1;
        }
        if (pid == 0)
            worker(i);
        int status;
        while (waitpid(pid, &status, 0) < 0)
            ;
    }
    return 0;
}
