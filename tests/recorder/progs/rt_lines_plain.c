/* A program that knows nothing of libscope: rt_lines_plain SECONDS works
 * for that much CPU time on two threads.  Under LD_PRELOAD=libscope.so with
 * SCOPE_LINES=1 its samples must reach a log. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static volatile double sink;
static double secs;

static double thread_cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static void *spin(void *p) {
    double t0 = thread_cpu_s(), s = 0;
    while (thread_cpu_s() - t0 < secs)
        for (int i = 0; i < 100000; i++)
            s += i * 0.5;
    sink = s;
    return p;
}

int main(int argc, char **argv) {
    secs = argc > 1 ? atof(argv[1]) : 0.5;
    pthread_t th;
    pthread_create(&th, NULL, spin, NULL);
    spin(NULL);
    pthread_join(th, NULL);
    return 0;
}
