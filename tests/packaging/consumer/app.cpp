/*
 * The C++ side of the packaging test: the block form is a scope guard, so a
 * phase also ends when an exception leaves it.
 *
 * usage: app_cxx ROLE   (the run directory comes from SCOPE_RUN_DIR)
 * Records 50 entries of cxx_outer, each with one cxx_inner and a cxx_items
 * count of 1; one cxx_inner in ten ends by an exception.
 */
#include <scope/scope.h>

#include <cstdio>
#include <stdexcept>

namespace {

unsigned work(int i) {
    unsigned sum = 0;
    SCOPE_PHASE("cxx_inner") {
        for (unsigned k = 0; k < 1000; k++)
            sum += k;
        SCOPE_COUNT("cxx_items", 1);
        if (i % 10 == 9)
            throw std::runtime_error("leaves the phase");
    }
    return sum;
}

} // namespace

int main(int argc, char **argv) {
    if (scope_init(nullptr, argc > 1 ? argv[1] : nullptr) != 0) {
        std::fprintf(stderr, "app_cxx: scope_init failed\n");
        return 1;
    }
    unsigned total = 0;
    for (int i = 0; i < 50; i++) {
        SCOPE_PHASE("cxx_outer") {
            try {
                total += work(i);
            } catch (const std::exception &) {
                total += 1;
            }
        }
    }
    std::printf("%u\n", total);
    return 0;
}
