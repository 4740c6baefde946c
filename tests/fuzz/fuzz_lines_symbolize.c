/*
 * libFuzzer target for the symbolizer's input (fuzz_lines_symbolize): the
 * files a log's MODULE records name are whatever is on the disk, so a
 * hostile or damaged ELF file must give unknown frames or function-level
 * ones, never a crash or a hang.
 *
 * The input is the module file itself.  The harness writes it to a private
 * file (under /dev/shm when it can), hands its path to the symbolizer with
 * the build-id the input's size picks (none, or four bytes that cannot
 * match), and looks up 16 offsets spread over the file and around its start,
 * as leaves and as callers, each twice (the second from the cache, which
 * must give the same frames).  Every frame's names must be NUL-terminated
 * strings (ASan checks the reads).
 */
#include "lines_symbolize.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_path[4096];

static void die(const char *what) {
    perror(what);
    abort();
}

static void remove_file(void) {
    unlink(g_path);
}

static void make_file(void) {
    const char *dirs[] = {"/dev/shm", getenv("TMPDIR"), "/tmp"};
    for (size_t i = 0; i < 3; i++) {
        if (!dirs[i] || access(dirs[i], W_OK) != 0)
            continue;
        snprintf(g_path, sizeof g_path, "%s/scope-fuzz-elf-%d", dirs[i], (int)getpid());
        atexit(remove_file);
        return;
    }
    die("no writable folder for the module file");
}

static void check_frames(const sym_frame *f, size_t n) {
    if (n < 1 || n > SYM_MAX_INLINE + 1)
        die("lines_sym_lookup returned a frame count out of range");
    for (size_t i = 0; i < n; i++) {
        if (f[i].function)
            (void)strlen(f[i].function);
        if (f[i].file)
            (void)strlen(f[i].file);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!g_path[0])
        make_file();
    FILE *f = fopen(g_path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        die(g_path);
    lines_symbolizer *s = lines_sym_new();
    if (!s)
        die("lines_sym_new");
    static const uint8_t other_id[] = {1, 2, 3, 4};
    sym_module *m = lines_sym_module(s, g_path, strlen(g_path), other_id, size % 3 ? 0 : 4);
    if (!m)
        die("lines_sym_module");
    const char *why = NULL;
    if ((unsigned)lines_sym_state(m, &why) > SYM_MISSING || !why)
        die("lines_sym_state");
    for (uint64_t i = 0; i < 16; i++) {
        uint64_t offset = i < 8 ? i * 0x40 : (size ? (i - 8) * size / 8 : i);
        const sym_frame *a, *b;
        size_t n = lines_sym_lookup(s, m, offset, (int)(i & 1), &a);
        check_frames(a, n);
        size_t again = lines_sym_lookup(s, m, offset, (int)(i & 1), &b);
        if (again != n || a != b)
            die("a cached lookup differs");
    }
    lines_sym_free(s);
    return 0;
}
