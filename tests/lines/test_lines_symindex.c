/*
 * A module's symbol index (src/model/lines_symindex.h) against libdwfl
 * itself: at every boundary of every symbol and section (the address, one
 * below, one above) and at addresses spread over each module's code, the
 * index gives the same name, symbol and offset as dwfl_module_addrinfo,
 * while searching the whole table far less often than once per address.
 *
 * Modules: progs/symindex_cases (every kind of symbol libdwfl weighs, with
 * its .symtab) and its copy stripped to .dynsym, and the C library, gcc's
 * cc1 and as where this machine has them (cc1 is what a make -j2 run
 * samples most; the C library's symbols come from its debug file when
 * libc6-dbg is installed, a symbol table in another file than the
 * module's).
 */
#include "lines_symindex.h"
#include "unit_util.h"

#include <check.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *progs_dir;

/* The reference, libdwfl, reads the whole table at each address (a
 * millisecond for cc1): a large module's symbols are checked one in
 * every few, so that each module costs a few thousand lookups. */
#ifndef MAX_SYMBOLS
#define MAX_SYMBOLS 800
#endif
#define SPREAD 1500

typedef struct tally {
    uint64_t asked, named, searches;
} tally;

static Dwfl *open_module(const char *path, Dwfl_Module **mod) {
    static const Dwfl_Callbacks cb = {
        .find_elf = dwfl_build_id_find_elf,
        .find_debuginfo = dwfl_standard_find_debuginfo,
        .section_address = dwfl_offline_section_address,
    };
    Dwfl *d = dwfl_begin(&cb);
    ck_assert(d);
    dwfl_report_begin(d);
    *mod = dwfl_report_offline(d, path, path, -1);
    dwfl_report_end(d, NULL, NULL);
    ck_assert_msg(*mod, "%s: %s", path, dwfl_errmsg(-1));
    return d;
}

static void same_at(sym_index **ix, Dwfl_Module *mod, uint64_t addr, tally *t) {
    GElf_Off off_want = 0, off_got = 0;
    GElf_Sym want, got;
    memset(&want, 0, sizeof want);
    memset(&got, 0, sizeof got);
    const char *n_want = dwfl_module_addrinfo(mod, addr, &off_want, &want, NULL, NULL, NULL);
    const char *n_got = sym_index_addrinfo(ix, mod, addr, &off_got, &got);
    t->asked++;
    ck_assert_msg((n_want == NULL) == (n_got == NULL), "0x%llx: libdwfl says %s, the index %s",
                  (unsigned long long)addr, n_want ? n_want : "(none)", n_got ? n_got : "(none)");
    if (!n_want)
        return;
    t->named++;
    ck_assert_msg(!strcmp(n_want, n_got) && off_want == off_got &&
                      !memcmp(&want, &got, sizeof want),
                  "0x%llx: libdwfl says %s+0x%llx (size %llu), the index %s+0x%llx (size %llu)",
                  (unsigned long long)addr, n_want, (unsigned long long)off_want,
                  (unsigned long long)want.st_size, n_got, (unsigned long long)off_got,
                  (unsigned long long)got.st_size);
}

/* The start and end of every symbol (one in n/MAX_SYMBOLS of a larger
 * table), each +-1, then SPREAD addresses spread over the executable
 * segments. */
static tally compare_module(const char *path) {
    Dwfl_Module *mod;
    Dwfl *d = open_module(path, &mod);
    sym_index *ix = NULL;
    tally t = {0};
    int n = dwfl_module_getsymtab(mod);
    ck_assert_msg(n > 0, "%s: no symbols", path);
    int step = n > MAX_SYMBOLS ? n / MAX_SYMBOLS : 1;
    for (int i = 1; i < n; i += step) {
        GElf_Sym sym;
        GElf_Addr value;
        if (!dwfl_module_getsym_info(mod, i, &sym, &value, NULL, NULL, NULL))
            continue;
        for (int k = -1; k <= 1; k++) {
            same_at(&ix, mod, value + (uint64_t)k, &t);
            same_at(&ix, mod, value + sym.st_size + (uint64_t)k, &t);
        }
    }
    GElf_Addr bias;
    Elf *elf = dwfl_module_getelf(mod, &bias);
    size_t nph = 0;
    ck_assert(elf && elf_getphdrnum(elf, &nph) == 0);
    uint64_t seed = 0x2545f4914f6cdd1dull; /* the same addresses on every run */
    for (size_t p = 0; p < nph; p++) {
        GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)p, &mem);
        if (!ph || ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || !ph->p_memsz)
            continue;
        for (int k = 0; k < SPREAD; k++) {
            same_at(&ix, mod, ph->p_vaddr + bias + unit_rand(&seed) % ph->p_memsz, &t);
        }
    }
    t.searches = sym_index_searches(ix);
    sym_index_free(ix);
    dwfl_end(d);
    fprintf(stderr,
            "%s: %llu addresses (%llu named) the same as libdwfl's; %llu whole-table searches\n",
            path, (unsigned long long)t.asked, (unsigned long long)t.named,
            (unsigned long long)t.searches);
    return t;
}

START_TEST(every_kind_of_symbol) {
    char path[4096];
    snprintf(path, sizeof path, "%s/symindex_cases", progs_dir);
    tally t = compare_module(path);
    ck_assert_uint_gt(t.named, 100);
    snprintf(path, sizeof path, "%s/symindex_cases_dynsym", progs_dir);
    t = compare_module(path);
    ck_assert_uint_gt(t.named, 10);
}
END_TEST

/* Real modules, the ones a make -j2 run samples: the index must name them
 * as libdwfl does, with few whole-table searches (the labels' spans). */
START_TEST(system_modules) {
    static const char *const paths[] = {
        "/lib/x86_64-linux-gnu/libc.so.6",          "/lib/aarch64-linux-gnu/libc.so.6",
        "/usr/lib/gcc/x86_64-linux-gnu/12/cc1",     "/usr/bin/x86_64-linux-gnu-as",
        "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
    };
    size_t tried = 0;
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        if (access(paths[i], R_OK) != 0)
            continue;
        tried++;
        tally t = compare_module(paths[i]);
        /* Spans with a label below them are asked of libdwfl once each;
         * the others never are. */
        ck_assert_msg(t.searches * 4 < t.asked, "%s: %llu whole-table searches for %llu addresses",
                      paths[i], (unsigned long long)t.searches, (unsigned long long)t.asked);
    }
    ck_assert_msg(tried, "no C library found to compare");
}
END_TEST

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_lines_symindex PROGS_DIR\n");
        return 2;
    }
    progs_dir = argv[1];
    Suite *s = suite_create("lines_symindex");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, every_kind_of_symbol);
    tcase_add_test(tc, system_modules);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
