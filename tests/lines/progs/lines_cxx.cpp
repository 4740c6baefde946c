// A C++ program whose hot functions have the names C++ gives them: a
// class template's operator in a namespace, a lambda, a static function in
// an anonymous namespace, and a member of a template whose demangled name is
// hundreds of characters long.  Each runs the same loop body a known number
// of times, so their shares of the CPU time are known: 4, 3, 2 and 1 parts
// of 10.  Built by test_lines_cxx.sh with g++ -O0 -g (each function keeps
// its own frame and lines); never linked to scope.
//
// Usage: lines_cxx [UNITS]   (work units; default 60)
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

static volatile uint64_t sink;

// The loop body every hot function runs: the same instructions, so time
// follows the number of rounds.
#define SPIN(rounds)                                                                              \
    do {                                                                                          \
        uint64_t x = sink + 1;                                                                    \
        for (long i_ = 0; i_ < (rounds); i_++)                                                    \
            x = x * 6364136223846793005ull + 1442695040888963407ull;                              \
        sink = x;                                                                                 \
    } while (0)

static const long ROUNDS = 2000000; // one part of work

namespace geo {
template <typename T> struct Grid {
    T scale;
    // 4 parts
    T operator()(int parts) const {
        SPIN(ROUNDS * parts);
        return scale;
    }
};
} // namespace geo

namespace {
// 2 parts
int scramble(int parts) {
    SPIN(ROUNDS * parts);
    return parts;
}
} // namespace

template <typename Key, typename Value, typename Extra>
struct an_extraordinarily_long_template_name_for_checking_that_columns_stay_in_place {
    // 1 part
    static void run_the_work_for_a_while_with_all_of_these_types(const Key &, const Value &,
                                                                  const Extra &) {
        SPIN(ROUNDS);
    }
};

typedef std::map<std::string, std::vector<std::pair<long, double>>> long_key;
typedef std::vector<std::map<int, std::vector<std::string>>> long_value;
typedef std::pair<std::vector<unsigned long>, std::map<std::string, std::pair<int, int>>> long_extra;

int main(int argc, char **argv) {
    long units = argc > 1 ? atol(argv[1]) : 60;
    geo::Grid<int> grid{1};
    // 3 parts
    auto lambda = [](int parts) { SPIN(ROUNDS * parts); };
    long_key k;
    long_value v;
    long_extra e;
    for (long u = 0; u < units; u++) {
        grid(4);
        lambda(3);
        scramble(2);
        an_extraordinarily_long_template_name_for_checking_that_columns_stay_in_place<
            long_key, long_value, long_extra>::run_the_work_for_a_while_with_all_of_these_types(k, v,
                                                                                              e);
    }
    return 0;
}
