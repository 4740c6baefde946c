/* A run of three processes: this one, a forked child and an exec'd child,
 * each recording (or trying to, under a bad setting) and completing one
 * phase, for what is said on stderr once per run.
 *
 * usage: rt_family RUN_DIR
 *        rt_family --exec-child   (what it execs; joins the run from the
 *                                  environment the parent exported)
 * The forked child ends with exit(), so its atexit handlers run as a
 * program's would. */
#define _GNU_SOURCE
#include <scope/scope.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void one_phase(void) {
    SCOPE_PHASE("work") {
        usleep(1000);
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: rt_family RUN_DIR | --exec-child\n");
        return 2;
    }
    if (!strcmp(argv[1], "--exec-child")) {
        scope_init(NULL, "exec_child");
        one_phase();
        return 0;
    }
    scope_init(argv[1], "family");
    one_phase();
    pid_t forked = fork();
    if (forked == 0) {
        scope_init(NULL, "fork_child");
        one_phase();
        exit(0);
    }
    pid_t execd = fork();
    if (execd == 0) {
        execl("/proc/self/exe", argv[0], "--exec-child", (char *)NULL);
        _exit(127);
    }
    int st1 = 0, st2 = 0;
    if (forked < 0 || execd < 0 || waitpid(forked, &st1, 0) < 0 || waitpid(execd, &st2, 0) < 0)
        return 1;
    return WIFEXITED(st1) && WEXITSTATUS(st1) == 0 && WIFEXITED(st2) && WEXITSTATUS(st2) == 0 ? 0
                                                                                              : 1;
}
