/* Every way out of a SCOPE_PHASE block must end the phase exactly once.
 *
 * usage: rt_exits RUN_DIR
 * With L = RT_EXIT_LOOPS (expected counts in brackets):
 *   brk   [L]   break on even i (leaves the block);   brk_tail   [L/2]
 *   cont  [L]   continue when i % 3 == 0;             cont_tail  [L - ceil(L/3)]
 *   ret   [L]   return from the function inside the block
 *   jump  [L]   goto past the block on odd i;         jump_tail  [L/2]
 *   outer [1] / outer/inner [1]   goto out of both at once
 *   spin  [5]   goto out of an endless loop from inside the block
 *   after [1]   a top-level phase: anything left open would be its parent
 * Prints "ret=R" with the sum of the returned values. */
#include "rt_common.h"

#include <scope/scope.h>

#include <stdio.h>

static int ret_inside(int i) {
    SCOPE_PHASE("ret") {
        if (i >= 0)
            return 2 * i;
    }
    return -1;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: rt_exits RUN_DIR\n");
        return 2;
    }
    if (scope_init(argv[1], "exits") != 0)
        return 3;
    for (int i = 0; i < RT_EXIT_LOOPS; i++) {
        SCOPE_PHASE("brk") {
            if (i % 2 == 0)
                break;
            SCOPE_COUNT("brk_tail", 1);
        }
    }
    for (int i = 0; i < RT_EXIT_LOOPS; i++) {
        SCOPE_PHASE("cont") {
            if (i % 3 == 0)
                continue;
            SCOPE_COUNT("cont_tail", 1);
        }
    }
    int sum = 0;
    for (int i = 0; i < RT_EXIT_LOOPS; i++)
        sum += ret_inside(i);
    for (int i = 0; i < RT_EXIT_LOOPS; i++) {
        SCOPE_PHASE("jump") {
            if (i % 2)
                goto next;
            SCOPE_COUNT("jump_tail", 1);
        }
    next:;
    }
    SCOPE_PHASE("outer") {
        SCOPE_PHASE("inner") {
            goto out;
        }
    }
out:;
    int k = 0;
    for (;;) {
        SCOPE_PHASE("spin") {
            if (++k == 5)
                goto done;
        }
    }
done:
    SCOPE_PHASE("after") {
        SCOPE_COUNT("after_items", 1);
    }
    printf("ret=%d\n", sum);
    return 0;
}
