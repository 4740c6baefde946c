/* Built at -O2 without frame pointers: its time is in libm's exp(), a leaf
 * whose caller a frame-pointer walk would skip.  rt_lines_libm DIR SECONDS:
 * the sampled stacks must still reach charge_exp() in this program. */
#include <scope/scope.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile double sink;

static double thread_cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Arguments in 0..1: exp() never takes its overflow path. */
__attribute__((noinline)) static double charge_exp(int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += exp((double)(i & 1023) * (1.0 / 1024.0)) + sin((double)i);
    return s;
}

int main(int argc, char **argv) {
    if (argc < 3 || scope_init(argv[1], NULL) != 0)
        return 2;
    double secs = atof(argv[2]), t0 = thread_cpu_s();
    while (thread_cpu_s() - t0 < secs)
        SCOPE_PHASE("libm") {
            sink += charge_exp(20000);
        }
    printf("done\n");
    return 0;
}
