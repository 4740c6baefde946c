/*
 * A source path as addr2line and perf print one: "programs/../lib/lz4hc.c"
 * is "lib/lz4hc.c".  The debug info joins a compilation folder and a file
 * name as the compiler saw them, so "..", "." and doubled slashes in them
 * are the build's spelling, not a different file.
 *
 * Lexical only: nothing is looked up on the filesystem (a log's paths may
 * name files of another machine), so "a/../b" is "b" even where a is a
 * symbolic link, as those tools have it.
 */
#ifndef SCOPE_PATH_NORMALIZE_H
#define SCOPE_PATH_NORMALIZE_H

#include <stddef.h>

/* Normalises the n bytes of path into out, which has room for n + 2 bytes
 * (the result is never longer than the path, or "." for an empty one), and
 * NUL-terminates it.  "." and empty components are dropped and "dir/.."
 * taken out; ".." stays at the start of a relative path, and is dropped
 * after the root ("/.." is "/").  Returns the result's length. */
size_t path_normalize(const char *path, size_t n, char *out);

#endif
