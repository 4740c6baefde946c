/*
 * Counters whose true sums pass the 64-bit range, known by construction
 * (tests/analysis/test_counter_limits.c): inside phase "fill",
 *   bytes: INT64_MAX - 10, then 100 twice   (true sum 2^63 + 189)
 *   debt:  INT64_MIN + 5, then -100         (true sum -2^63 - 95)
 *   items: 3, then 4                        (7, far from either limit)
 */
#include <scope/scope.h>
#include <stdint.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: an_counters RUN\n");
        return 2;
    }
    if (scope_init(argv[1], "counter") != 0)
        return 1;
    SCOPE_PHASE("fill") {
        SCOPE_COUNT("bytes", INT64_MAX - 10);
        SCOPE_COUNT("bytes", 100);
        scope_count("bytes", 100);
        SCOPE_COUNT("debt", INT64_MIN + 5);
        SCOPE_COUNT("debt", -100);
        SCOPE_COUNT("items", 3);
        SCOPE_COUNT("items", 4);
    }
    scope_shutdown();
    return 0;
}
