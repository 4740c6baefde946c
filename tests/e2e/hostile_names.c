/*
 * A recorded program whose names try to disguise themselves, for the tests
 * that every output escapes them (tests/e2e/test_hostile_names.sh,
 * tests/ui/test_hostile.sh).
 *
 * Usage: hostile_names RUN
 *
 * Under one top-level phase it records one phase per character that must
 * never reach an output raw, named "c_XXXX" then that character then "z"
 * (XXXX its code point in hex), each with a counter named the same way:
 * the bidirectional overrides, embeddings, isolates and marks, the
 * zero-width characters, the line and paragraph separators, DEL, C1 and C0
 * controls.  The role's name holds U+202E too.
 *
 * Then two phases whose recorded source files are relative paths made to
 * run commands (set with #line, as a compiler records them): "opened", at
 * "-c:!touch PWNED" line 37, which vim given it as an argument takes for
 * an option and runs `touch PWNED`; and "shelled", at
 * "$(touch SHELLED)`touch SHELLED`" line 43, which runs `touch SHELLED`
 * wherever a shell parses it.
 */
#include <scope/scope.h>

#include <stdio.h>

static void hostile_source(void);
static void shell_source(void);

static const char *const names[] = {
    "c_202a\u202az",   "c_202b\u202bz",   "c_202c\u202cz", "c_202d\u202dz", "c_202e\u202ez",
    "c_2066\u2066z",   "c_2067\u2067z",   "c_2068\u2068z", "c_2069\u2069z", "c_200e\u200ez",
    "c_200f\u200fz",   "c_061c\u061cz",   "c_200b\u200bz", "c_200c\u200cz", "c_200d\u200dz",
    "c_2060\u2060z",   "c_feff\ufeffz",   "c_2028\u2028z", "c_2029\u2029z", "c_007f\x7fz",
    "c_0085\xc2\x85z", "c_009b\xc2\x9bz", "c_001b\x1bz",
};

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: hostile_names RUN\n");
        return 2;
    }
    if (scope_init(argv[1], "role\u202eevil") != 0)
        return 1;
    SCOPE_PHASE("top") {
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            scope_phase_begin(names[i]);
            scope_count(names[i], (int64_t)i + 1);
            scope_phase_end();
        }
        hostile_source();
        shell_source();
    }
    scope_shutdown();
    return 0;
}

/* Last in the file: #line renames the file for every line after it. */
#line 36 "-c:!touch PWNED"
static void hostile_source(void) {
    SCOPE_PHASE("opened") {}
}

#line 42 "$(touch SHELLED)`touch SHELLED`"
static void shell_source(void) {
    SCOPE_PHASE("shelled") {}
}
