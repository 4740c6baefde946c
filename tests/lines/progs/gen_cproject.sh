#!/usr/bin/env bash
# A small C project for `make -j2` (tests/lines/test_lines_symcache.sh,
# bench/bench_symbolize.sh): N translation units of ordinary code (tables,
# loops, a switch, string formatting), each enough work for cc1 to show in
# the samples, and a Makefile that compiles them with -O2 -g and links them.
#
# Usage: gen_cproject.sh DIR [N]   (default 30 files)
set -euo pipefail
dir=$1
n=${2:-30}
mkdir -p "$dir"
cat >"$dir/common.h" <<'H'
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct item { char name[32]; uint64_t key; double weight; struct item *next; };
#define DEFINE_TABLE(T, N) \
    static T table_##N[64]; \
    static size_t count_##N; \
    static T *find_##N(uint64_t key) { for (size_t i = 0; i < count_##N; i++) if (table_##N[i].key == key) return &table_##N[i]; return NULL; } \
    static int add_##N(const T *x) { if (count_##N >= 64) return -1; table_##N[count_##N++] = *x; return 0; }
H
for i in $(seq 1 "$n"); do
    {
        echo '#include "common.h"'
        for j in $(seq 1 12); do
            echo "DEFINE_TABLE(struct item, t${j})"
            cat <<C
static double score_${j}(const char *s, size_t n) {
    double acc = 0;
    for (size_t k = 0; k < n; k++) {
        switch (s[k] % 7) {
        case 0: acc += k * 1.5; break;
        case 1: acc -= (double)s[k] / (k + 1); break;
        case 2: acc *= 1.0001; break;
        case 3: acc += find_t${j}((uint64_t)k) ? 1 : 0; break;
        default: acc += (double)(s[k] ^ (int)k);
        }
    }
    struct item it = {.key = (uint64_t)acc, .weight = acc};
    snprintf(it.name, sizeof it.name, "i%zu", n);
    add_t${j}(&it);
    return acc;
}
C
        done
        echo "double unit_${i}(const char *s) {"
        echo "    double t = 0; size_t n = strlen(s);"
        for j in $(seq 1 12); do echo "    t += score_${j}(s, n);"; done
        echo "    return t;"
        echo "}"
    } >"$dir/unit_${i}.c"
done
{
    echo '#include "common.h"'
    for i in $(seq 1 "$n"); do echo "double unit_${i}(const char *s);"; done
    echo 'int main(int argc, char **argv) { double t = 0; const char *s = argc > 1 ? argv[1] : "hello";'
    for i in $(seq 1 "$n"); do echo "    t += unit_${i}(s);"; done
    echo '    printf("%g\n", t); return 0; }'
} >"$dir/main.c"
{
    echo 'CFLAGS ?= -O2 -g'
    echo "OBJS = main.o $(for i in $(seq 1 "$n"); do printf 'unit_%d.o ' "$i"; done)"
    echo 'prog: $(OBJS)'
    printf '\t$(CC) $(CFLAGS) -o $@ $(OBJS)\n'
    echo '%.o: %.c common.h'
    printf '\t$(CC) $(CFLAGS) -c -o $@ $<\n'
    echo 'clean:'
    printf '\trm -f prog $(OBJS)\n'
} >"$dir/Makefile"
