/*
 * Interned names.  Phase and counter names (and source file names) are
 * interned once per process: the name id is also the STRING id in the log.
 * Lookup by id is lock-free.
 */
#ifndef SCOPE_REC_NAMES_H
#define SCOPE_REC_NAMES_H

#include "recorder.h"

#include <scope/scope.h>

uint32_t rec_name_intern(const char *name, size_t len);
uint32_t rec_site_register(scope_site *site);
const char *rec_name_get(uint32_t id, size_t *len);
uint32_t rec_name_count(void);
/* Around fork (lock.h): takes the insert lock within the deadline (1) or
 * not (0); the parent gives back what it took, a child that did not get it
 * resets it. */
int rec_names_lock_for_fork(uint64_t deadline_ns);
void rec_names_unlock(void);
void rec_names_reset_lock(void);

#endif
