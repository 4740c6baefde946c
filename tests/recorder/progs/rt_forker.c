/* fork() and exec from a recording process whose other threads are busy
 * inside phases (and interning new names) at the moment of the fork.
 *
 * usage: rt_forker RUN_DIR NFORK NEXEC JOINER [warm]
 *
 * The main thread opens "round" and "spawn", then forks NFORK + NEXEC
 * children from inside them.  A forked child i < NFORK records one phase
 * "child" with counter child_work = i + 1, then leaves the two blocks its
 * parent had opened (ends the recorder must expect, not call unbalanced) and
 * exits: its log holds its own tree only.  The others exec JOINER, which
 * joins the run through the environment the recorder exported.  Once
 * every child is forked the busy threads stop, and the parent waits for
 * the children.  Exit status 0 when every child exited 0.
 *
 * By default the fork comes while the busy threads are still creating their
 * nodes and names (allocating).  `warm` waits until they have all, for the
 * sanitizer build: its allocator is not fork-safe, so a child forked while
 * another thread held its lock would hang in malloc for reasons of its own. */
#define _GNU_SOURCE
#include <scope/scope.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BUSY_THREADS 4
#define MAX_CHILDREN 256

#define DYN_NAMES 40

static atomic_int inside, stop;
static int warm;
static volatile uint64_t sink;

static void *busy(void *arg) {
    (void)arg;
    char name[32];
    for (uint64_t k = 0; !atomic_load(&stop); k++) {
        SCOPE_PHASE("busy") {
            if (k == (warm ? 64u * DYN_NAMES : 0))
                atomic_fetch_add(&inside, 1);
            SCOPE_PHASE("inner") {
                for (int s = 0; s < 200; s++)
                    sink += (uint64_t)s;
                SCOPE_COUNT("spins", 1);
            }
            /* New names now and then: interning takes the name lock, which
             * fork must not leave held in the child. */
            if (k % 64 == 0) {
                snprintf(name, sizeof name, "dyn_%u", (unsigned)(k / 64 % DYN_NAMES));
                scope_phase_begin(name);
                scope_count(name, 1);
                scope_phase_end();
            }
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 5 && !(argc == 6 && !strcmp(argv[5], "warm"))) {
        fprintf(stderr, "usage: rt_forker RUN_DIR NFORK NEXEC JOINER [warm]\n");
        return 2;
    }
    warm = argc == 6;
    int nfork = atoi(argv[2]), nexec = atoi(argv[3]);
    if (nfork < 0 || nexec < 0 || nfork + nexec > MAX_CHILDREN)
        return 2;
    if (scope_init(argv[1], "forker") != 0)
        return 3;
    pthread_t th[BUSY_THREADS];
    for (int i = 0; i < BUSY_THREADS; i++)
        if (pthread_create(&th[i], NULL, busy, NULL) != 0)
            return 4;
    while (atomic_load(&inside) < BUSY_THREADS)
        sched_yield();

    pid_t pids[MAX_CHILDREN];
    int nchildren = 0, me = -1;
    SCOPE_PHASE("round") {
        SCOPE_PHASE("spawn") {
            for (int i = 0; i < nfork + nexec; i++) {
                pid_t pid = fork();
                if (pid == 0) {
                    me = i;
                    break; /* leaves the for loop, still inside both phases */
                }
                if (pid < 0) {
                    perror("rt_forker: fork");
                    break;
                }
                pids[nchildren++] = pid;
            }
            if (me >= nfork) {
                char *const args[] = {argv[4], NULL};
                execv(argv[4], args);
                fprintf(stderr, "rt_forker: execv %s: %s\n", argv[4], strerror(errno));
                _exit(127);
            }
            if (me >= 0) {
                SCOPE_PHASE("child") {
                    SCOPE_COUNT("child_work", me + 1);
                }
            }
        }
    }
    if (me >= 0)
        exit(0); /* the atexit flush writes the child's log */

    /* The forks are done, so the busy threads have served their purpose:
     * spinning on while the children run would only take the CPU from them
     * (and from the tests CTest runs beside this one). */
    atomic_store(&stop, 1);
    for (int i = 0; i < BUSY_THREADS; i++)
        pthread_join(th[i], NULL);

    int failed = nchildren != nfork + nexec;
    for (int i = 0; i < nchildren; i++) {
        int st;
        while (waitpid(pids[i], &st, 0) < 0 && errno == EINTR)
            ;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "rt_forker: child %d (pid %d) ended with status 0x%x\n", i,
                    (int)pids[i], st);
            failed = 1;
        }
    }
    return failed;
}
