/*
 * Symbolizing sampled addresses with libdwfl; see lines_symbolize.h.
 *
 * Each module gets its own Dwfl session, reported at bias 0, so that an
 * address is the module's own virtual address: the recorded offset (from
 * the module's first mapped byte) plus the virtual address of file offset
 * 0, which is what the first PT_LOAD maps there.
 */
#include "lines_symbolize.h"

#include "arena.h"
#include "lines_debugfile.h"
#include "lines_symindex.h"
#include "open_regular.h"

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <scope/vec.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct sym_module {
    const char *path; /* NUL-terminated copy */
    size_t pathlen;
    const uint8_t *build_id;
    size_t build_id_len;
    uint64_t hash;
    Dwfl *dwfl; /* NULL unless the file was reported */
    Dwfl_Module *mod;
    uint64_t vaddr0; /* virtual address of file offset 0 */
    enum sym_state state;
    const char *why;
    debugfile_notes *notes; /* debug files refused; NULL until the file is reported */
    sym_index *symbols;     /* its symbol table, indexed on first use (lines_symindex.h) */
};

/* One address's frames, cached. */
typedef struct addr_entry {
    const sym_module *module; /* NULL: an empty slot */
    uint64_t offset;
    int caller;
    const sym_frame *frames;
    size_t nframes;
} addr_entry;

struct lines_symbolizer {
    arena mem;
    sym_module **modules; /* hash table of the modules opened, by path and build-id */
    size_t cap_modules, nmodules;
    sym_module too_many; /* what every module past SYM_MAX_MODULES gets */
    addr_entry *addrs;
    size_t cap_addrs, naddrs;
    Dwfl_Callbacks callbacks;
    size_t files_opened;     /* module files opened (lines_sym_counts) */
    int no_index;            /* every address asked of libdwfl (lines_sym_use_index) */
    uint64_t plain_searches; /* those asked so */
};

/* dwfl_module_addrinfo's answer at addr, from the module's symbol index
 * (lines_symindex.h). */
static const char *symbol_at(lines_symbolizer *s, sym_module *m, Dwarf_Addr addr, GElf_Off *off,
                             GElf_Sym *sym);

/* The page size the recorder rounds module bases down to (x86-64, aarch64
 * with 4 KiB pages). */
#define PAGE_BYTES 4096u

static const sym_frame unknown_frame = {NULL, NULL, 0};

lines_symbolizer *lines_sym_new(void) {
    lines_symbolizer *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    /* libdwfl opens nothing by itself: modules are reported with their
     * descriptors, and debug files come from lines_debugfile.h, which
     * opens regular files only (elfutils' own finder blocks on a FIFO). */
    s->callbacks = (Dwfl_Callbacks){
        .find_elf = lines_find_no_elf,
        .find_debuginfo = lines_find_debugfile,
        .section_address = dwfl_offline_section_address,
    };
    s->too_many = (sym_module){
        .path = "",
        .state = SYM_MISSING,
        .why = "more distinct modules than a run is expected to map were left unread",
    };
    return s;
}

void lines_sym_free(lines_symbolizer *s) {
    if (!s)
        return;
    for (size_t i = 0; i < s->cap_modules; i++)
        if (s->modules[i]) {
            sym_index_free(s->modules[i]->symbols);
            if (s->modules[i]->dwfl)
                dwfl_end(s->modules[i]->dwfl);
        }
    free(s->modules);
    free(s->addrs);
    arena_free(&s->mem);
    free(s);
}

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n) {
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) /* FNV-1a */
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* ---- opening a module -------------------------------------------------- */

static void set_state(sym_module *m, enum sym_state st, const char *why) {
    m->state = st;
    m->why = why;
}

/* The virtual address of the module's first mapped byte, as the recorder
 * takes it: the lowest PT_LOAD address rounded down to its page (where file
 * offset 0 is mapped in every layout the linkers produce). */
static int find_vaddr0(Dwfl_Module *mod, uint64_t *vaddr0) {
    GElf_Addr bias;
    Elf *elf = dwfl_module_getelf(mod, &bias);
    size_t n;
    if (!elf || elf_getphdrnum(elf, &n) != 0)
        return -1;
    uint64_t lo = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);
        if (ph && ph->p_type == PT_LOAD && ph->p_vaddr < lo)
            lo = ph->p_vaddr;
    }
    if (lo == UINT64_MAX)
        return -1;
    *vaddr0 = (lo & ~(uint64_t)(PAGE_BYTES - 1)) + bias;
    return 0;
}

static void open_module(lines_symbolizer *s, sym_module *m) {
    if (memchr(m->path, '\0', m->pathlen) || !m->pathlen) {
        set_state(m, SYM_MISSING, "its path is not a file name");
        return;
    }
    /* The kernel's vDSO is listed by its soname, with no file behind it; and
     * a relative path from a log would be looked up wherever we run. */
    if (m->path[0] != '/') {
        set_state(m, SYM_MISSING,
                  strstr(m->path, "vdso") ? "the kernel's vDSO, which has no file to read"
                                          : "its path is not absolute");
        return;
    }
    /* A FIFO or a device named by the log is never opened (open_regular.h). */
    int fd;
    struct stat st;
    enum open_regular r = open_regular(m->path, SYM_MAX_FILE_BYTES, &fd, &st);
    if (r == OPEN_REGULAR_MISSING) {
        set_state(m, SYM_MISSING, "the file is gone");
        return;
    }
    if (r != OPEN_REGULAR_OK) {
        char why[128], text[160];
        snprintf(text, sizeof text, "%s, not read", open_regular_why(r, &st, why, sizeof why));
        const char *kept = arena_dup(&s->mem, text, strlen(text));
        set_state(m, SYM_MISSING, kept ? kept : "the file could not be read");
        return;
    }
    s->files_opened++;
    unsigned char magic[SELFMAG];
    if (pread(fd, magic, sizeof magic, 0) != (ssize_t)sizeof magic ||
        memcmp(magic, ELFMAG, SELFMAG) != 0) {
        close(fd);
        set_state(m, SYM_MISSING, "not an ELF file");
        return;
    }
    m->notes = arena_alloc(&s->mem, sizeof *m->notes);
    if (!m->notes) {
        close(fd);
        set_state(m, SYM_MISSING, "out of memory");
        return;
    }
    memset(m->notes, 0, sizeof *m->notes);
    m->dwfl = dwfl_begin(&s->callbacks);
    if (!m->dwfl) {
        close(fd);
        set_state(m, SYM_MISSING, "elfutils could not start");
        return;
    }
    dwfl_report_begin(m->dwfl);
    /* At bias 0: the module's addresses are its own virtual addresses. The
     * descriptor is the module's from here on. */
    m->mod = dwfl_report_elf(m->dwfl, m->path, m->path, fd, 0, true);
    dwfl_report_end(m->dwfl, NULL, NULL);
    if (!m->mod) {
        close(fd);
        set_state(m, SYM_MISSING, "not an ELF file elfutils can read");
        return;
    }
    void **userdata;
    dwfl_module_info(m->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
    *userdata = m->notes; /* lines_find_debugfile writes its refusals there */
    const unsigned char *bits;
    GElf_Addr note_vaddr;
    int n = dwfl_module_build_id(m->mod, &bits, &note_vaddr);
    if (m->build_id_len &&
        (n != (int)m->build_id_len || memcmp(bits, m->build_id, m->build_id_len) != 0)) {
        set_state(m, SYM_CHANGED, "its build-id differs: the file changed since the run");
        return;
    }
    if (find_vaddr0(m->mod, &m->vaddr0) < 0) {
        set_state(m, SYM_MISSING, "the file maps no segment");
        return;
    }
    Dwarf_Addr bias;
    if (!dwfl_module_getdwarf(m->mod, &bias)) {
        const char *why = "it has no debug info (functions only)";
        if (m->notes->refused) {
            char buf[sizeof m->notes->text + 120];
            snprintf(buf, sizeof buf,
                     "it has no debug info (functions only): not read as its debug file: %s",
                     m->notes->text);
            why = arena_dup(&s->mem, buf, strlen(buf));
        }
        set_state(m, SYM_FUNCTIONS, why ? why : "it has no debug info (functions only)");
        return;
    }
    set_state(m, SYM_LINES, "");
}

static sym_module **module_slot(lines_symbolizer *s, uint64_t h, const char *path, size_t pathlen,
                                const uint8_t *bid, size_t bidlen) {
    size_t i = (size_t)h & (s->cap_modules - 1);
    for (;; i = (i + 1) & (s->cap_modules - 1)) {
        sym_module *m = s->modules[i];
        if (!m || (m->hash == h && m->pathlen == pathlen && m->build_id_len == bidlen &&
                   !memcmp(m->path, path, pathlen) && !memcmp(m->build_id, bid, bidlen)))
            return &s->modules[i];
    }
}

sym_module *lines_sym_module(lines_symbolizer *s, const char *path, size_t pathlen,
                             const uint8_t *build_id, size_t build_id_len) {
    uint64_t h =
        hash_bytes(hash_bytes(0xcbf29ce484222325ull, path, pathlen), build_id, build_id_len);
    if (s->cap_modules) {
        sym_module **slot = module_slot(s, h, path, pathlen, build_id, build_id_len);
        if (*slot)
            return *slot;
    }
    if (s->nmodules >= SYM_MAX_MODULES)
        return &s->too_many;
    if ((s->nmodules + 1) * 2 > s->cap_modules) {
        size_t cap = s->cap_modules ? 2 * s->cap_modules : 64;
        sym_module **t = calloc(cap, sizeof *t), **old = s->modules;
        if (!t)
            return NULL;
        size_t oldcap = s->cap_modules;
        s->modules = t;
        s->cap_modules = cap;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i])
                *module_slot(s, old[i]->hash, old[i]->path, old[i]->pathlen, old[i]->build_id,
                             old[i]->build_id_len) = old[i];
        free(old);
    }
    sym_module *m = arena_alloc(&s->mem, sizeof *m);
    char *p = arena_dup(&s->mem, path, pathlen);
    uint8_t *b = (uint8_t *)arena_dup(&s->mem, build_id, build_id_len);
    if (!m || !p || !b)
        return NULL;
    *m = (sym_module){
        .path = p, .pathlen = pathlen, .build_id = b, .build_id_len = build_id_len, .hash = h};
    *module_slot(s, h, path, pathlen, build_id, build_id_len) = m;
    s->nmodules++;
    open_module(s, m);
    return m;
}

enum sym_state lines_sym_state(const sym_module *m, const char **why) {
    if (why)
        *why = m->why;
    return m->state;
}

/* ---- one address ---------------------------------------------------------- */

/* A copy of name in the arena, made absolute against dir when relative. */
static const char *path_in(arena *a, const char *name, const char *dir) {
    if (!name)
        return NULL;
    if (name[0] == '/' || !dir || !dir[0])
        return arena_dup(a, name, strlen(name));
    size_t nd = strlen(dir), nn = strlen(name);
    char *p = arena_alloc(a, nd + nn + 2);
    if (p) {
        memcpy(p, dir, nd);
        p[nd] = '/';
        memcpy(p + nd + 1, name, nn);
    }
    return p;
}

static const char *die_name(Dwarf_Die *die) {
    Dwarf_Attribute a;
    const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
    if (!name)
        name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
    return name;
}

/* The frames at addr of a module with debug info: the innermost inlined
 * function at the line the line table gives, then each function it was
 * inlined into at its call site, out to the real function.  Returns their
 * number, 0 when the debug info holds no function there. */
static size_t dwarf_frames(arena *a, Dwfl_Module *mod, Dwarf_Addr addr, sym_frame *out) {
    Dwarf_Addr bias;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
    Dwfl_Line *ln = dwfl_module_getsrc(mod, addr);
    Dwarf_Attribute attr;
    const char *comp_dir = cu ? dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr)) : NULL;
    int line = 0;
    const char *file = ln ? dwfl_lineinfo(ln, NULL, &line, NULL, NULL, NULL) : NULL;
    file = path_in(a, file, comp_dir);
    if (!cu)
        return 0;
    Dwarf_Die *scopes = NULL;
    int ns = dwarf_getscopes(cu, addr - bias, &scopes);
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    size_t n = 0;
    for (int i = 0; i < ns && n <= SYM_MAX_INLINE; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
            continue;
        const char *name = die_name(&scopes[i]);
        out[n++] = (sym_frame){name ? arena_dup(a, name, strlen(name)) : NULL, file,
                               line > 0 ? (uint32_t)line : 0};
        if (tag == DW_TAG_subprogram)
            break;
        /* Inlined: the next frame out is at this one's call site. */
        Dwarf_Word fidx = 0, cline = 0;
        file = NULL;
        line = 0;
        if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &attr), &fidx) == 0 &&
            (files || dwarf_getsrcfiles(cu, &files, &nfiles) == 0) && fidx < nfiles)
            file = path_in(a, dwarf_filesrc(files, fidx, NULL, NULL), comp_dir);
        if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &attr), &cline) == 0 &&
            cline <= UINT32_MAX)
            line = (int)cline;
    }
    free(scopes);
    return n;
}

static size_t resolve(lines_symbolizer *s, sym_module *m, uint64_t offset, int caller,
                      sym_frame *out) {
    if (m->state == SYM_MISSING || m->state == SYM_CHANGED || !m->mod)
        return 0;
    Dwarf_Addr addr = m->vaddr0 + offset - (caller && offset ? 1 : 0);
    if (m->state == SYM_LINES) {
        size_t n = dwarf_frames(&s->mem, m->mod, addr, out);
        if (n)
            return n;
    }
    GElf_Off off;
    GElf_Sym sym;
    const char *name = symbol_at(s, m, addr, &off, &sym);
    if (!name)
        return 0;
    out[0] = (sym_frame){arena_dup(&s->mem, name, strlen(name)), NULL, 0};
    return 1;
}

static addr_entry *addr_slot(addr_entry *t, size_t cap, const sym_module *m, uint64_t offset,
                             int caller) {
    uint64_t h = ((uint64_t)(uintptr_t)m * 0x9e3779b97f4a7c15ull) ^
                 (offset * 0xc2b2ae3d27d4eb4full) ^ (uint64_t)caller;
    size_t i = (size_t)(h ^ (h >> 31)) & (cap - 1);
    for (;; i = (i + 1) & (cap - 1))
        if (!t[i].module || (t[i].module == m && t[i].offset == offset && t[i].caller == caller))
            return &t[i];
}

size_t lines_sym_lookup(lines_symbolizer *s, sym_module *m, uint64_t offset, int caller,
                        const sym_frame **frames) {
    caller = !!caller;
    *frames = &unknown_frame;
    if (s->cap_addrs) {
        addr_entry *e = addr_slot(s->addrs, s->cap_addrs, m, offset, caller);
        if (e->module) {
            *frames = e->frames;
            return e->nframes;
        }
    }
    sym_frame tmp[SYM_MAX_INLINE + 1];
    size_t n = resolve(s, m, offset, caller, tmp);
    const sym_frame *kept = &unknown_frame;
    if (n) {
        sym_frame *copy = arena_alloc(&s->mem, n * sizeof *copy);
        if (!copy)
            return 1; /* out of memory: an unknown frame, not cached */
        memcpy(copy, tmp, n * sizeof *copy);
        kept = copy;
    } else
        n = 1;
    if ((s->naddrs + 1) * 2 > s->cap_addrs) {
        size_t cap = s->cap_addrs ? 2 * s->cap_addrs : 1024;
        addr_entry *t = calloc(cap, sizeof *t);
        if (!t) {
            *frames = kept;
            return n;
        }
        for (size_t i = 0; i < s->cap_addrs; i++)
            if (s->addrs[i].module)
                *addr_slot(t, cap, s->addrs[i].module, s->addrs[i].offset, s->addrs[i].caller) =
                    s->addrs[i];
        free(s->addrs);
        s->addrs = t;
        s->cap_addrs = cap;
    }
    *addr_slot(s->addrs, s->cap_addrs, m, offset, caller) =
        (addr_entry){m, offset, caller, kept, n};
    s->naddrs++;
    *frames = kept;
    return n;
}

static const char *symbol_at(lines_symbolizer *s, sym_module *m, Dwarf_Addr addr, GElf_Off *off,
                             GElf_Sym *sym) {
    if (!s->no_index)
        return sym_index_addrinfo(&m->symbols, m->mod, addr, off, sym);
    s->plain_searches++;
    return dwfl_module_addrinfo(m->mod, addr, off, sym, NULL, NULL, NULL);
}

void lines_sym_use_index(lines_symbolizer *s, int on) {
    s->no_index = !on;
}

void lines_sym_counts(const lines_symbolizer *s, lines_sym_count *out) {
    *out = (lines_sym_count){.modules = s->nmodules,
                             .files_opened = s->files_opened,
                             .addresses = s->naddrs,
                             .searches = s->plain_searches};
    for (size_t i = 0; i < s->cap_modules; i++)
        if (s->modules[i])
            out->searches += sym_index_searches(s->modules[i]->symbols);
}
