/* The calling process's modules; see self_modules.h. */
#define _GNU_SOURCE
#include "self_modules.h"

#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct walk {
    self_module *out;
    size_t cap, n;
} walk;

static void read_build_id(self_module *m, const struct dl_phdr_info *info, const ElfW(Phdr) * ph) {
    const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
        const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
        const char *name = p + sizeof *nh;
        const char *desc = name + ((nh->n_namesz + 3) & ~3u);
        if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
            nh->n_descsz <= sizeof m->build_id) {
            memcpy(m->build_id, desc, nh->n_descsz);
            m->build_id_len = nh->n_descsz;
        }
        p = desc + ((nh->n_descsz + 3) & ~3u);
    }
}

static int on_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    walk *wk = data;
    if (wk->n == wk->cap)
        return 0;
    self_module *m = &wk->out[wk->n];
    memset(m, 0, sizeof *m);
    if (info->dlpi_name && info->dlpi_name[0])
        snprintf(m->path, sizeof m->path, "%s", info->dlpi_name);
    else if (wk->n == 0) {
        ssize_t n = readlink("/proc/self/exe", m->path, sizeof m->path - 1);
        if (n <= 0)
            return 0;
        m->path[n] = '\0';
    } else
        return 0; /* the vDSO: no file */
    int first = 1;
    uint64_t hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD) {
            uint64_t end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
            if (first)
                m->base = info->dlpi_addr + ph->p_vaddr - ph->p_offset;
            first = 0;
            if (end > hi)
                hi = end;
        } else if (ph->p_type == PT_NOTE)
            read_build_id(m, info, ph);
    }
    if (first)
        return 0;
    m->size = hi - m->base;
    wk->n++;
    return 0;
}

size_t self_modules(self_module *out, size_t cap) {
    walk wk = {out, cap, 0};
    dl_iterate_phdr(on_object, &wk);
    return wk.n;
}

scope_frame_addr self_where(const self_module *mods, size_t n, const void *addr) {
    uint64_t a = (uint64_t)(uintptr_t)addr;
    for (size_t i = 0; i < n; i++)
        if (a >= mods[i].base && a < mods[i].base + mods[i].size)
            return (scope_frame_addr){(uint32_t)i + 1, a - mods[i].base};
    return (scope_frame_addr){0, a};
}

scope_rec_module self_module_record(const self_module *m, size_t index) {
    return (scope_rec_module){(uint32_t)index + 1,
                              {(const uint8_t *)m->path, strlen(m->path)},
                              {m->build_id, m->build_id_len},
                              m->base,
                              m->size};
}
