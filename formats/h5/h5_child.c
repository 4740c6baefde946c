/* h5_child: what a child forked to run libhdf5 on an untrusted file does
 * first (h5_child.h). */
#include "h5_child.h"

#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <unistd.h>

void scope_h5_child_start(void) {
    static const int defaults[] = {SIGSEGV, SIGBUS, SIGFPE,  SIGILL, SIGABRT,
                                   SIGTRAP, SIGSYS, SIGALRM, SIGPIPE};
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof defaults / sizeof *defaults; i++) {
        signal(defaults[i], SIG_DFL);
        sigaddset(&set, defaults[i]);
    }
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, STDERR_FILENO);
        if (null != STDERR_FILENO)
            close(null);
    }
}
