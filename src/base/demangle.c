/*
 * Demangling with libiberty; see demangle.h.
 *
 * libiberty rather than libstdc++'s __cxa_demangle: it is a C library, so
 * neither scope-tui nor libscope-lines.so (loaded into the profiled
 * program) pulls in a C++ runtime; it reads Rust's manglings too (legacy
 * and v0), which __cxa_demangle does not; and it is the code of c++filt,
 * addr2line and gdb, so a name reads here as it does in those tools.
 */
#include "demangle.h"

#include "arena.h"

#include <libiberty/demangle.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DEMANGLE_OPTIONS (DMGL_PARAMS | DMGL_ANSI)

/* Whether name can be a mangled name at all: C++'s and Rust's start with
 * "_Z" or "_R" (libiberty would also try other styles on anything). */
static int looks_mangled(const char *name) {
    return name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

char *demangle_dup(const char *name) {
    if (!name || !looks_mangled(name))
        return NULL;
    const char *at = strchr(name, '@');
    if (!at)
        return cplus_demangle(name, DEMANGLE_OPTIONS);
    /* "NAME@VERSION" or "NAME@@VERSION": NAME demangled, the version kept. */
    char *bare = strndup(name, (size_t)(at - name));
    char *out = bare ? cplus_demangle(bare, DEMANGLE_OPTIONS) : NULL;
    free(bare);
    if (!out)
        return NULL;
    size_t n = strlen(out), v = strlen(at);
    char *joined = malloc(n + v + 1);
    if (joined) {
        memcpy(joined, out, n);
        memcpy(joined + n, at, v + 1);
    }
    free(out);
    return joined;
}

/* ---- the cache: open addressing by the name's bytes ----------------------- */

typedef struct cache_entry {
    const char *name;      /* NULL: an empty slot */
    const char *demangled; /* NULL: not mangled */
    uint64_t hash;
} cache_entry;

struct demangle_cache {
    arena mem;
    cache_entry *slots;
    size_t cap, n;
};

demangle_cache *demangle_cache_new(void) {
    return calloc(1, sizeof(demangle_cache));
}

void demangle_cache_free(demangle_cache *c) {
    if (!c)
        return;
    free(c->slots);
    arena_free(&c->mem);
    free(c);
}

static uint64_t hash_name(const char *s) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) /* FNV-1a */
        h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h;
}

static cache_entry *slot_of(cache_entry *t, size_t cap, uint64_t h, const char *name) {
    for (size_t i = (size_t)h & (cap - 1);; i = (i + 1) & (cap - 1))
        if (!t[i].name || (t[i].hash == h && !strcmp(t[i].name, name)))
            return &t[i];
}

static int grow(demangle_cache *c) {
    size_t cap = c->cap ? 2 * c->cap : 256;
    cache_entry *t = calloc(cap, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < c->cap; i++)
        if (c->slots[i].name)
            *slot_of(t, cap, c->slots[i].hash, c->slots[i].name) = c->slots[i];
    free(c->slots);
    c->slots = t;
    c->cap = cap;
    return 0;
}

const char *demangle_cached(demangle_cache *c, const char *name) {
    if (!name || !looks_mangled(name))
        return NULL;
    uint64_t h = hash_name(name);
    if (c->cap) {
        cache_entry *e = slot_of(c->slots, c->cap, h, name);
        if (e->name)
            return e->demangled;
    }
    char *out = demangle_dup(name);
    const char *kept = out ? arena_dup(&c->mem, out, strlen(out)) : NULL;
    free(out);
    const char *key = arena_dup(&c->mem, name, strlen(name));
    if (!key || ((c->n + 1) * 2 > c->cap && grow(c) < 0))
        return kept; /* out of memory: answered, not kept */
    *slot_of(c->slots, c->cap, h, name) = (cache_entry){key, kept, h};
    c->n++;
    return kept;
}
