/*
 * Offline symbolization of sampled addresses with elfutils (libdwfl): a
 * module found by its recorded path and checked against its recorded GNU
 * build-id, its debug info found beside it (.gnu_debuglink) or under
 * /usr/lib/debug (lines_debugfile.h), addresses turned into source lines
 * with inlined frames expanded.
 *
 * Never wrong lines: a module whose file is missing, is not a regular ELF
 * file, or whose build-id differs from the recorded one gives no line; one
 * with the right build-id but no debug info gives functions only: from its
 * .symtab, else .dynsym, and where no symbol covers an address, the range
 * its unwind tables (.eh_frame, .debug_frame) give, named FILE+0xSTART, so
 * that a stripped library still splits by function.  The kernel's vDSO,
 * which has no file, is read from this process's own when its build-id is
 * the recorded one.  Each case says why, for the caveats.
 *
 * A log may name any file, so the work is bounded: only regular files
 * starting with the ELF magic and under SYM_MAX_FILE_BYTES are read, at
 * most SYM_MAX_MODULES of them per symbolizer, and nothing else is even
 * opened (open_regular.h): not a FIFO or a device named as a module, nor
 * one named by a module's .gnu_debuglink.  Results are cached per
 * module (by path and build-id) and per address.
 */
#ifndef SCOPE_LINES_SYMBOLIZE_H
#define SCOPE_LINES_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

#define SYM_MAX_MODULES    4096
#define SYM_MAX_FILE_BYTES (4ull << 30)
#define SYM_MAX_INLINE     32 /* inlined frames expanded at one address */

enum sym_state {
    SYM_LINES = 0,     /* debug info: file, line and function */
    SYM_FUNCTIONS = 1, /* the right file without debug info: functions from its symbols */
    SYM_CHANGED = 2,   /* the file's build-id differs from the recorded one: nothing */
    SYM_MISSING = 3,   /* no such file, or not one that can be read as ELF: nothing */
};

/* One logical frame: a function, or a function inlined into another. */
typedef struct sym_frame {
    const char *function; /* NULL: unknown; demangled (demangle.h) */
    const char *file;     /* NULL: unknown; absolute when the debug info allows, normalised
                             (path_normalize.h) */
    uint32_t line;        /* 0: unknown */
    const char *linkage;  /* the mangled name function was demangled from; NULL: none (a C
                             name, or unknown) */
} sym_frame;

typedef struct sym_module sym_module;
typedef struct lines_symbolizer lines_symbolizer;

lines_symbolizer *lines_sym_new(void);
void lines_sym_free(lines_symbolizer *s);

/* The module at path (bytes, not NUL-terminated) recorded with this
 * build-id (may be empty), opened on first use and kept.  NULL only when
 * out of memory. */
sym_module *lines_sym_module(lines_symbolizer *s, const char *path, size_t pathlen,
                             const uint8_t *build_id, size_t build_id_len);

/* What can be said of the module's addresses, and why not more: a plain
 * phrase ("no debug info", "build-id differs: the file changed since the
 * run") for the caveats; "" for SYM_LINES. */
enum sym_state lines_sym_state(const sym_module *m, const char **why);

/* Adds to the caveat of each of these modules that has functions but no
 * lines what would give it lines: its debug file by build-id and the
 * Debian package that installs it (lines_package.h), or, for a file no
 * package installed and no debug file is named for, a build with -g.
 * Once per module; the modules are looked up in one pass. */
void lines_sym_explain(lines_symbolizer *s, sym_module *const *mods, size_t n);

/* The logical frames at offset (from the module's first mapped byte, as the
 * log records it), innermost first, inlined frames expanded.  caller: the
 * address is a return address, so the call is the instruction before it.
 * Points *frames at up to SYM_MAX_INLINE + 1 frames owned by the
 * symbolizer and returns their number, at least 1 (one frame of unknowns
 * when nothing is known). */
size_t lines_sym_lookup(lines_symbolizer *s, sym_module *m, uint64_t offset, int caller,
                        const sym_frame **frames);

/* What a symbolizer has done, for the tests and the benchmark: each module
 * (path and build-id) is opened once however many processes and views ask
 * for it, and its symbol table indexed once (lines_symindex.h) rather than
 * searched whole for each address. */
typedef struct lines_sym_count {
    size_t modules;      /* distinct modules asked for */
    size_t files_opened; /* module files opened */
    size_t addresses;    /* distinct addresses looked up */
    uint64_t searches;   /* times libdwfl searched a whole symbol table */
} lines_sym_count;

void lines_sym_counts(const lines_symbolizer *s, lines_sym_count *out);

/* on 0: every address is asked of libdwfl's symbol table, not of the
 * module's index (lines_symindex.h): the tests compare the two. */
void lines_sym_use_index(lines_symbolizer *s, int on);

#endif
