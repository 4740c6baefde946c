/*
 * A workload whose every figure is known in advance, for checking the
 * analysis against arithmetic rather than against itself.
 *
 *   an_workload RUN [MODE]
 *
 * The parent ("coordinator") forks three "worker" processes one after
 * another (never two at once, so each spins on a CPU of its own and its
 * CPU time is its wall time).  Worker i runs 10 iterations of
 *
 *   iteration { compute { spin 2*(i+1) ms; count items 7 }  rest { sleep 5 ms } }
 *
 * and counts `outside` 5 once with no phase open; it flushes after
 * iterations 2 and 5, so its log has frames in the middle.  So, merged over the role:
 *   iteration 30 entries; compute 30 entries, 20 + 40 + 60 = 120 ms;
 *   rest 30 entries, >= 150 ms, nearly all of it off CPU;
 *   per-process phase time 70, 90, 110 ms: imbalance 110/90 = 1.22;
 *   items: 30 calls, total 210; outside: 3 calls, total 15.
 *
 * MODE "names": the workers' phases have names full of terminal escapes,
 * invalid UTF-8 and wide characters (see main).
 * MODE "victim": also forks a fourth worker, role "victim", that flushes
 * its log and is then killed with SIGKILL inside a phase.
 */
#include <scope/scope.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void spin_ms(double ms) {
    double end = now_ms() + ms;
    while (now_ms() < end)
        ;
}

static const char *compute_name = "compute";
static const char *rest_name = "rest";

/* The worker also times its phases with its own clock and prints the
 * sums, so a test can hold the analysis to what really happened even when
 * a busy machine stretches the spins. */
static void worker(int i) {
    scope_init(NULL, "worker");
    double compute = 0, compute_cpu = 0, rest = 0, iteration = 0, entries[10];
    for (int it = 0; it < 10; it++) {
        /* Each clock read inside the phase it times, so the phase holds
         * what the program measures: the recorder's own work at a phase's
         * ends (creating a node, reading CPU time) is outside both. */
        SCOPE_PHASE("iteration") {
            double t0 = now_ms();
            scope_phase_begin(compute_name);
            double t1 = now_ms(), c1 = cpu_ms();
            spin_ms(2.0 * (i + 1));
            scope_count("items", 7);
            double c2 = cpu_ms(), t2 = now_ms();
            scope_phase_end();
            compute_cpu += c2 - c1;
            scope_phase_begin(rest_name);
            double t3 = now_ms();
            usleep(5000);
            double t4 = now_ms();
            scope_phase_end();
            compute += t2 - t1;
            entries[it] = t2 - t1;
            rest += t4 - t3;
            iteration += now_ms() - t0;
        }
        /* Two frames in the middle: the first defines the phases, the
         * second only updates them, so a test can damage one that the exit
         * frame supersedes. */
        if (it == 1 || it == 4)
            scope_flush();
    }
    scope_count("outside", 5);
    printf("worker %d compute_ms %.6f rest_ms %.6f iteration_ms %.6f compute_cpu_ms %.6f\n", i,
           compute, rest, iteration, compute_cpu);
    for (int it = 0; it < 10; it++)
        printf("entry %d compute_ms %.6f\n", i, entries[it]);
    fflush(stdout);
    exit(0);
}

static void victim(void) {
    scope_init(NULL, "victim");
    SCOPE_PHASE("doomed") {
        spin_ms(1);
    }
    scope_flush();
    scope_phase_begin("never_ends");
    raise(SIGKILL);
}

static void run_child(void (*fn)(int), int arg) {
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(1);
    }
    if (pid == 0)
        fn(arg);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        ;
}

static void victim_entry(int unused) {
    (void)unused;
    victim();
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: an_workload RUN [names|victim]\n");
        return 2;
    }
    const char *mode = argc > 2 ? argv[2] : "";
    if (!strcmp(mode, "names")) {
        /* An escape that would turn the terminal red, a lone 0xff byte, a C1
         * CSI, and wide characters that take two columns each. */
        compute_name = "compute\x1b[31m\xff";
        rest_name = "\xe4\xbc\x91\xe6\x81\xaf\xc2\x9b"; /* 休息 then U+009B */
    }
    if (scope_init(argv[1], "coordinator") != 0)
        return 1;
    /* Let the writer thread finish starting (it allocates as it warms up)
     * before forking: GCC's AddressSanitizer allocator is not fork-safe, and
     * a child forked while another thread holds its lock hangs. */
    scope_flush();
    SCOPE_PHASE("wait_children") {
        for (int i = 0; i < 3; i++)
            run_child(worker, i);
        if (!strcmp(mode, "victim"))
            run_child(victim_entry, 0);
    }
    return 0;
}
