/*
 * sp_tags: a scope-profiler region's tags, in the one form the importer
 * hands on: the tags in the file's order, one per line ("a\nb"), NULL when
 * the region has none.  A tag holding a newline reads as two.
 *
 * Schema 1 keeps them as a string array attribute `tags` on the region's
 * group; schemas 2 and 3 as one string per /rank_region_index row, the
 * JSON text of a list of strings (`["golden"]`).
 */
#ifndef SCOPE_SP_TAGS_H
#define SCOPE_SP_TAGS_H

#include <stddef.h>

/* The n strings v joined by newlines (empty ones left out).  0 with *out
 * set (NULL when none is left), or -1 when out of memory. */
int sp_tags_join(char *const *v, size_t n, char **out);

/* The JSON list of strings text, joined as above; an empty text is no
 * tags.  0 with *out set, or -1 when text is not such a list (or out of
 * memory: *out then NULL and errno ENOMEM). */
int sp_tags_of_json(const char *text, char **out);

#endif
