/*
 * A program built against an installed scope only: by test_install.sh with
 * `cc ... $(pkg-config --cflags --libs scope)`, and by the CMake project next
 * to it with Scope::scope and Scope::scope_static.
 *
 * usage: app ROLE   (the run directory comes from SCOPE_RUN_DIR)
 * Records 100 entries of pkg_outer, each with one pkg_inner and a pkg_items
 * count of 2, and one explicit pkg_explicit; exits 1 if recording fails.
 */
#include <scope/scope.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (scope_init(NULL, argc > 1 ? argv[1] : NULL) != 0) {
        fprintf(stderr, "app: scope_init failed\n");
        return 1;
    }
    volatile unsigned sink = 0;
    for (int i = 0; i < 100; i++) {
        SCOPE_PHASE("pkg_outer") {
            SCOPE_PHASE("pkg_inner") {
                for (unsigned k = 0; k < 1000; k++)
                    sink += k;
            }
            SCOPE_COUNT("pkg_items", 2);
        }
    }
    scope_phase_begin("pkg_explicit");
    scope_phase_end();
    if (scope_flush() != 0) {
        fprintf(stderr, "app: scope_flush failed\n");
        return 1;
    }
    return 0;
}
