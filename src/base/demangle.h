/*
 * Linkage names as their authors wrote them: "_ZN2ns3fooEi" is
 * "ns::foo(int)".  C++ (the Itanium ABI every Linux compiler uses) and
 * Rust's manglings are read by libiberty's demangler (Debian's
 * libiberty-dev), the one c++filt, addr2line -C and gdb use, with the
 * options addr2line -C and gdb give it (DMGL_PARAMS | DMGL_ANSI): the
 * parameters and const-ness are kept, so overloads stay apart.  A name that
 * is not mangled (a C function, "main") has no demangled form.
 *
 * A symbol version after the name ("_ZN2ns3fooEi@@LIB_1.0", as a
 * shared library's .symtab may spell it) is kept after the demangled name.
 *
 * A module's names are data from someone else's file: the demangler limits
 * its own recursion, and a name it cannot read is kept as it is.
 */
#ifndef SCOPE_DEMANGLE_H
#define SCOPE_DEMANGLE_H

#include <stddef.h>

/* The demangled form of name in a malloc'd string, or NULL when name is
 * not mangled, cannot be demangled, or memory runs out. */
char *demangle_dup(const char *name);

/* Names demangled once each: a symbolizer asks for the same function's
 * name at every sampled address in it. */
typedef struct demangle_cache demangle_cache;

demangle_cache *demangle_cache_new(void);
void demangle_cache_free(demangle_cache *c);

/* As demangle_dup, the answer kept by the cache until it is freed (NULL:
 * not mangled, or out of memory). */
const char *demangle_cached(demangle_cache *c, const char *name);

#endif
