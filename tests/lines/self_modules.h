/* The modules of the calling process as the recorder records them (path,
 * GNU build-id, where file offset 0 is mapped, extent), for tests that
 * build line samples out of their own addresses. */
#ifndef SCOPE_TESTS_SELF_MODULES_H
#define SCOPE_TESTS_SELF_MODULES_H

#include <scope/log_format.h>

#include <stddef.h>
#include <stdint.h>

typedef struct self_module {
    char path[4096];
    uint8_t build_id[64];
    size_t build_id_len;
    uint64_t base, size;
} self_module;

/* Fills up to cap modules (the executable first, the vDSO left out) from
 * dl_iterate_phdr; returns how many. */
size_t self_modules(self_module *out, size_t cap);

/* (module id, offset) of addr, module ids being 1 + index into mods; module
 * 0 and the address itself when it lies in none. */
scope_frame_addr self_where(const self_module *mods, size_t n, const void *addr);

/* The module as a MODULE record with id 1 + index (pointing into *m). */
scope_rec_module self_module_record(const self_module *m, size_t index);

#endif
