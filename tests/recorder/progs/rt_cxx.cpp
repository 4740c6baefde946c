// The recorder's macros from C++: SCOPE_PHASE is a guard object in a one-trip
// loop, so break, continue, return and an exception all end the phase.
//
// usage: rt_cxx RUN_DIR   (built once per C++ standard: rt_cxx11, rt_cxx17...)
// With L = RT_EXIT_LOOPS (expected counts in brackets):
//   brk [L] + brk_tail [L/2]; cont [L] + cont_tail [L - ceil(L/3)];
//   ret [L]; throw [L] (throws on odd i) + throw_tail [L/2];
//   outer [1] / outer/inner [1] (return out of both); after [1], top level.
#include "rt_common.h"

#include <scope/scope.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace {

int ret_inside(int i) {
    SCOPE_PHASE("ret") {
        if (i >= 0)
            return 2 * i;
    }
    return -1;
}

void thrower(int i) {
    SCOPE_PHASE("throw") {
        if (i % 2)
            throw std::runtime_error("odd");
        SCOPE_COUNT("throw_tail", 1);
    }
}

void nested() {
    SCOPE_PHASE("outer") {
        SCOPE_PHASE("inner") {
            return;
        }
    }
}

} // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: rt_cxx RUN_DIR\n");
        return 2;
    }
    if (scope_init(argv[1], "cxx") != 0)
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
    int caught = 0;
    for (int i = 0; i < RT_EXIT_LOOPS; i++) {
        try {
            thrower(i);
        } catch (const std::exception &) {
            caught++;
        }
    }
    nested();
    std::string label = "after";
    SCOPE_PHASE("after") {
        SCOPE_COUNT("after_items", static_cast<int64_t>(label.size()));
    }
    std::printf("ret=%d caught=%d\n", sum, caught);
    return 0;
}
