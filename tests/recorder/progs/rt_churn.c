/* A long-running program's shapes that must not make the recorder grow:
 * threads that come and go, and names that never repeat.
 *
 * usage: rt_churn threads N RUN_DIR
 *          N short threads, RT_CHURN_AT_ONCE at a time (a thread per
 *          request), each named apart ("req-K") and entering "request" and,
 *          inside it, "handle";
 *        rt_churn names N RUN_DIR
 *          the main thread enters N phases of distinct names, once each
 *          ("name-0", "name-1", ...), and counts one "seen" in each.
 *
 * Either prints "vmhwm_kb=K": the process's peak resident memory
 * (/proc/self/status VmHWM), read after a flush so that the writer's frame
 * of it all is in the figure too.  SCOPE_PROFILE=0 runs it unrecorded. */
#define _GNU_SOURCE
#include "rt_common.h"

#include <scope/scope.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile uint64_t sink;

static void *request(void *arg) {
    /* A name of its own, as a server might give it: names alone must not
     * keep a thread's memory. */
    char name[16];
    snprintf(name, sizeof name, "req-%ld", (long)(intptr_t)arg);
    pthread_setname_np(pthread_self(), name);
    SCOPE_PHASE("request") {
        SCOPE_PHASE("handle") {
            sink++;
        }
    }
    return NULL;
}

static int threads(long n) {
    pthread_t t[RT_CHURN_AT_ONCE];
    for (long done = 0; done < n;) {
        int k = 0;
        for (; k < RT_CHURN_AT_ONCE && done + k < n; k++)
            if (pthread_create(&t[k], NULL, request, (void *)(intptr_t)(done + k)) != 0)
                return 4;
        for (int i = 0; i < k; i++)
            pthread_join(t[i], NULL);
        done += k;
    }
    return 0;
}

static void names(long n) {
    char name[32];
    for (long i = 0; i < n; i++) {
        snprintf(name, sizeof name, "name-%ld", i);
        scope_phase_begin(name);
        scope_count("seen", 1);
        scope_phase_end();
    }
}

static long vmhwm_kb(void) {
    FILE *f = fopen("/proc/self/status", "re");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: rt_churn threads|names N RUN_DIR\n");
        return 2;
    }
    long n = atol(argv[2]);
    if (scope_init(argv[3], "churn") != 0)
        return 3;
    int rc = 0;
    if (!strcmp(argv[1], "threads"))
        rc = threads(n);
    else if (!strcmp(argv[1], "names"))
        names(n);
    else
        return 2;
    scope_flush();
    printf("vmhwm_kb=%ld\n", vmhwm_kb());
    return rc;
}
