/*
 * Interned names.  Phase and counter names (and source file names) are
 * interned once per process: the name id is also the STRING id in the log.
 * Lookup by id is lock-free.  A process keeps a bounded number of them
 * (names.c).
 */
#ifndef SCOPE_REC_NAMES_H
#define SCOPE_REC_NAMES_H

#include "recorder.h"

#include <scope/scope.h>

/* A phase or counter name's id: past the process's limit of names, the id
 * of "(other)", and the name is counted among those folded into it.  0
 * only without memory. */
uint32_t rec_name_intern(const char *name, size_t len);
/* The same for a name that must be itself or nothing (a source file, a
 * trace window's phase): 0 past the limit. */
uint32_t rec_name_intern_kept(const char *name, size_t len);
uint32_t rec_site_register(scope_site *site);
/* The limit: REC_NAME_LIMIT, or lower (SCOPE_NAMES_MAX); set as the
 * recorder starts. */
void rec_names_set_limit(uint32_t n);
uint32_t rec_names_limit(void);
/* The bits the names folded into "(other)" set in a map of
 * SCOPE_FOLD_MAP_BITS (how many distinct names they were follows, as an
 * estimate: docs/format.md 5.13).  0: none was folded. */
uint32_t rec_names_fold_bits(void);
const char *rec_name_get(uint32_t id, size_t *len);
uint32_t rec_name_count(void);
/* Around fork (lock.h): takes the insert lock within the deadline (1) or
 * not (0); the parent gives back what it took, a child that did not get it
 * resets it. */
int rec_names_lock_for_fork(uint64_t deadline_ns);
void rec_names_unlock(void);
void rec_names_reset_lock(void);

#endif
