/*
 * Symbolizing sampled addresses with libdwfl; see lines_symbolize.h.
 *
 * Each module gets its own Dwfl session, reported at bias 0, so that an
 * address is the module's own virtual address: the recorded offset (from
 * the module's first mapped byte) plus the virtual address of file offset
 * 0, which is what the first PT_LOAD maps there.
 */
#define _GNU_SOURCE /* memfd_create, memrchr */
#include "lines_symbolize.h"

#include "arena.h"
#include "demangle.h"
#include "lines_debugfile.h"
#include "lines_package.h"
#include "lines_symindex.h"
#include "open_regular.h"
#include "path_normalize.h"

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <link.h>
#include <scope/vec.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
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
    const char *short_name; /* the file's name less its folder: "liblzma.so.5.4.1" */
    int has_symtab;         /* a .symtab (else only .dynsym names its functions) */
    int vdso;               /* the kernel's vDSO, read from this process's own */
    int explained;          /* lines_sym_explain has written its advice */
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
    demangle_cache *names;   /* NULL: out of memory, names left mangled */
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

static const sym_frame unknown_frame = {NULL, NULL, 0, NULL};

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
    s->names = demangle_cache_new();
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
    demangle_cache_free(s->names);
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

/* Whether the ELF file has a .symtab (libdwfl then names functions from
 * it; else from .dynsym, the exported functions only). */
static int has_symtab(Dwfl_Module *mod) {
    GElf_Addr bias;
    Elf *elf = dwfl_module_getelf(mod, &bias);
    Elf_Scn *scn = NULL;
    while (elf && (scn = elf_nextscn(elf, scn))) {
        GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);
        if (sh && sh->sh_type == SHT_SYMTAB)
            return 1;
    }
    return 0;
}

/* The largest vDSO image copied; the kernel's are a few pages. */
#define VDSO_MAX_BYTES (1u << 20)

/* The bytes mapped from addr to the end of this process's [vdso] mapping;
 * 0 when it cannot be told, so that nothing beyond it is ever read. */
static uint64_t vdso_mapped_bytes(uintptr_t addr) {
    FILE *f = fopen("/proc/self/maps", "re");
    char line[512];
    uint64_t n = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo <= addr &&
            addr < hi) {
            n = hi - addr;
            break;
        }
    }
    if (f)
        fclose(f);
    return n;
}

/* A descriptor on a copy of this process's own vDSO image, which the
 * kernel maps whole (ELF header, program and section headers, symbols) at
 * AT_SYSINFO_EHDR; -1 when there is none.  Whether it is the one the run
 * recorded is for its build-id to say. */
static int own_vdso_fd(void) {
    const uint8_t *img = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
    if (!img)
        return -1;
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)img;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32))
        return -1;
    /* The image ends with the last of its section headers and its loaded
     * bytes. */
    uint64_t size = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(img + eh->e_phoff);
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > size)
            size = ph[i].p_offset + ph[i].p_filesz;
    if (size > VDSO_MAX_BYTES || size > vdso_mapped_bytes((uintptr_t)img))
        return -1;
    int fd = memfd_create("scope-vdso", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    for (uint64_t done = 0; done < size;) {
        ssize_t k = write(fd, img + done, size - done);
        if (k <= 0) {
            close(fd);
            return -1;
        }
        done += (uint64_t)k;
    }
    return fd;
}

static int is_vdso_name(const sym_module *m) {
    return !strcmp(m->path, "linux-vdso.so.1") || !strcmp(m->path, "linux-gate.so.1") ||
           !strcmp(m->path, "linux-vdso32.so.1") || !strcmp(m->path, "linux-vdso64.so.1");
}

/* The module's file: its descriptor, or why there is none. */
static int module_fd(lines_symbolizer *s, sym_module *m) {
    if (memchr(m->path, '\0', m->pathlen) || !m->pathlen) {
        set_state(m, SYM_MISSING, "its path is not a file name");
        return -1;
    }
    /* The kernel's vDSO is listed by its soname, with no file behind it:
     * this process's own stands in when its build-id is the recorded one
     * (the same kernel).  A relative path from a log would be looked up
     * wherever we run. */
    if (m->path[0] != '/') {
        if (!is_vdso_name(m)) {
            set_state(m, SYM_MISSING, "its path is not absolute");
            return -1;
        }
        int fd = m->build_id_len ? own_vdso_fd() : -1;
        if (fd < 0)
            set_state(m, SYM_MISSING,
                      m->build_id_len ? "the kernel's vDSO, and this machine's could not be read"
                                      : "the kernel's vDSO, recorded without a build-id");
        m->vdso = 1;
        return fd;
    }
    /* A FIFO or a device named by the log is never opened (open_regular.h). */
    int fd;
    struct stat st;
    enum open_regular r = open_regular(m->path, SYM_MAX_FILE_BYTES, &fd, &st);
    if (r == OPEN_REGULAR_MISSING) {
        set_state(m, SYM_MISSING, "the file is gone");
        return -1;
    }
    if (r != OPEN_REGULAR_OK) {
        char why[128], text[160];
        snprintf(text, sizeof text, "%s, not read", open_regular_why(r, &st, why, sizeof why));
        const char *kept = arena_dup(&s->mem, text, strlen(text));
        set_state(m, SYM_MISSING, kept ? kept : "the file could not be read");
        return -1;
    }
    s->files_opened++;
    return fd;
}

static void open_module(lines_symbolizer *s, sym_module *m) {
    const char *slash = memrchr(m->path, '/', m->pathlen);
    m->short_name = slash ? slash + 1 : m->path;
    int fd = module_fd(s, m);
    if (fd < 0)
        return;
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
        set_state(m, SYM_CHANGED,
                  m->vdso ? "the kernel's vDSO, of another kernel than this machine's"
                          : "its build-id differs: the file changed since the run");
        return;
    }
    if (find_vaddr0(m->mod, &m->vaddr0) < 0) {
        set_state(m, SYM_MISSING, "the file maps no segment");
        return;
    }
    m->has_symtab = has_symtab(m->mod);
    Dwarf_Addr bias;
    if (!dwfl_module_getdwarf(m->mod, &bias)) {
        const char *from = m->vdso ? "the kernel's vDSO (this machine's own, the same build-id): "
                                     "functions from its symbols"
                           : m->has_symtab
                               ? "it has no debug info: functions from its symbol table"
                               : "it has no debug info and no symbol table: functions from its "
                                 "exported symbols, else its unwind tables (named FILE+0xADDRESS)";
        const char *why = from;
        if (m->notes->refused) {
            char buf[sizeof m->notes->text + 240];
            snprintf(buf, sizeof buf, "%s; not read as its debug file: %s", from, m->notes->text);
            why = arena_dup(&s->mem, buf, strlen(buf));
        }
        set_state(m, SYM_FUNCTIONS, why ? why : from);
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

/* A copy of name in the arena, made absolute against dir when relative,
 * and normalised ("programs/../lib/lz4hc.c" is "lib/lz4hc.c"). */
static const char *path_in(arena *a, const char *name, const char *dir) {
    if (!name)
        return NULL;
    int joined = name[0] != '/' && dir && dir[0];
    size_t nd = joined ? strlen(dir) : 0, nn = strlen(name), n = nd + joined + nn;
    char *p = arena_alloc(a, 2 * n + 3);
    if (!p)
        return NULL;
    if (joined) {
        memcpy(p, dir, nd);
        p[nd] = '/';
    }
    memcpy(p + nd + joined, name, nn);
    path_normalize(p, n, p + n + 1);
    return p + n + 1;
}

/* A function's linkage name when it has one (C++'s DW_AT_name is only
 * "operator()"; its linkage name, demangled, says whose), else its name.
 * A function that ran (not inlined) without one, as g++ leaves a function
 * of an anonymous namespace, takes the mangled name of the symbol at addr. */
static const char *die_name(Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Die *die) {
    Dwarf_Attribute a;
    const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
    if (!name)
        name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
    if (name)
        return name;
    const char *sym = dwarf_tag(die) == DW_TAG_subprogram ? dwfl_module_addrname(mod, addr) : NULL;
    if (sym && sym[0] == '_' && sym[1] == 'Z')
        return sym;
    return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
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
        const char *name = die_name(mod, addr, &scopes[i]);
        out[n++] = (sym_frame){name ? arena_dup(a, name, strlen(name)) : NULL, file,
                               line > 0 ? (uint32_t)line : 0, NULL};
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
    /* No function around the address, but a line: a function defined
     * inside another's DIE (a lambda's operator() inside main's), which
     * dwarf_getscopes does not look into when the outer one's addresses
     * leave addr out.  Its name is its symbol's. */
    if (!n && file && line > 0) {
        const char *sym = dwfl_module_addrname(mod, addr);
        out[n++] =
            (sym_frame){sym ? arena_dup(a, sym, strlen(sym)) : NULL, file, (uint32_t)line, NULL};
    }
    return n;
}

/* The start of the function around addr by the module's unwind tables.
 * Compilers emit one FDE per function (and one per part of a function split
 * hot and cold), stripped or not, and the linker sorts their starts into
 * .eh_frame_hdr's search table (the unwinder's own index), so the function
 * is the last entry that starts at or below addr, when its FDE's range
 * covers addr.  (libdw's dwarf_cfi_addrframe gives only the range of one
 * row of an FDE's rules, not the FDE's.)  The table GNU ld and lld write,
 * 4-byte offsets from the header's address, is the only one read.  0 when
 * no FDE covers addr. */
static int fde_start(Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Addr *start) {
    GElf_Addr bias;
    Elf *elf = dwfl_module_getelf(mod, &bias);
    size_t shstrndx;
    if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
        return 0;
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(elf, scn))) {
        const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
        if (name && !strcmp(name, ".eh_frame_hdr") && sh.sh_type == SHT_PROGBITS)
            break;
    }
    Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
    if (!d || !d->d_buf || d->d_size < 12)
        return 0;
    const uint8_t *h = d->d_buf;
    /* version 1; eh_frame_ptr 4 bytes; fde_count udata4; table datarel sdata4 */
    const char *ident = elf_getident(elf, NULL);
    int native =
        ident &&
        ident[EI_DATA] == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB);
    if (!native || h[0] != 1 ||
        ((h[1] & 0x0f) != DW_EH_PE_sdata4 && (h[1] & 0x0f) != DW_EH_PE_udata4) ||
        h[2] != DW_EH_PE_udata4 || h[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
        return 0;
    uint32_t count;
    memcpy(&count, h + 8, 4);
    if (count > (d->d_size - 12) / 8)
        return 0;
    const uint8_t *table = h + 12;
    int64_t want =
        (int64_t)(addr - bias - sh.sh_addr); /* modular: a hostile file may say anything */
    size_t lo = 0, hi = count;               /* the last entry whose start <= want */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int32_t loc;
        memcpy(&loc, table + 8 * mid, 4);
        if (loc <= want)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo)
        return 0;
    int32_t loc, fde;
    memcpy(&loc, table + 8 * (lo - 1), 4);
    memcpy(&fde, table + 8 * (lo - 1) + 4, 4);
    /* Its range, where its FDE lies in .eh_frame and encodes its start as
     * 4 bytes relative to itself (what GCC and clang emit); otherwise the
     * start alone is believed. */
    Dwarf_Addr fn = sh.sh_addr + (Dwarf_Addr)(int64_t)loc,
               fde_addr = sh.sh_addr + (Dwarf_Addr)(int64_t)fde;
    Elf_Scn *escn = NULL;
    while ((escn = elf_nextscn(elf, escn))) {
        GElf_Shdr esh;
        const char *name = gelf_getshdr(escn, &esh) ? elf_strptr(elf, shstrndx, esh.sh_name) : NULL;
        if (!name || strcmp(name, ".eh_frame") || fde_addr < esh.sh_addr)
            continue;
        Elf_Data *ed = elf_getdata(escn, NULL);
        uint64_t at = fde_addr - esh.sh_addr;
        if (!ed || !ed->d_buf || ed->d_size < 16 || at > ed->d_size - 16)
            break;
        const uint8_t *f = (const uint8_t *)ed->d_buf + at;
        int32_t pcrel;
        uint32_t range;
        memcpy(&pcrel, f + 8, 4);
        memcpy(&range, f + 12, 4);
        if (fde_addr + 8 + (Dwarf_Addr)(int64_t)pcrel == fn && addr - bias >= fn + range)
            return 0;
        break;
    }
    *start = fn + bias;
    return 1;
}

/* The function at addr of a module without lines there: the symbol that
 * covers it (.symtab, else .dynsym), else the range of the unwind tables
 * around it, named FILE+0xSTART by its virtual address (as objdump and
 * addr2line take it).  A symbol of no size is taken only when no unwind
 * range starts between it and addr: in a file stripped to its exported
 * symbols, it would swallow every hidden function after it. */
static const char *function_name(lines_symbolizer *s, sym_module *m, Dwarf_Addr addr) {
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *name = symbol_at(s, m, addr, &off, &sym);
    if (name && sym.st_size > 0)
        return arena_dup(&s->mem, name, strlen(name));
    Dwarf_Addr start;
    if (!fde_start(m->mod, addr, &start) || (name && start <= addr - off))
        return name ? arena_dup(&s->mem, name, strlen(name)) : NULL;
    char buf[300];
    snprintf(buf, sizeof buf, "%s+0x%" PRIx64, m->short_name, (uint64_t)start);
    return arena_dup(&s->mem, buf, strlen(buf));
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
    const char *name = function_name(s, m, addr);
    if (!name)
        return 0;
    out[0] = (sym_frame){name, NULL, 0, NULL};
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
    for (size_t k = 0; k < n && s->names; k++) { /* names as their authors wrote them */
        const char *demangled = demangle_cached(s->names, tmp[k].function);
        if (demangled)
            tmp[k] = (sym_frame){demangled, tmp[k].file, tmp[k].line, tmp[k].function};
    }
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

/* ---- what would give lines -------------------------------------------------- */

/* The modules explained at once (one pass over dpkg's lists for all). */
#define EXPLAIN_MAX 256

/* The debug file the module's build-id names under DEBUG_ROOT, into buf;
 * "" when it has none. */
static void build_id_path(const sym_module *m, char *buf, size_t cap) {
    buf[0] = '\0';
    if (!m->build_id_len || m->build_id_len > 64)
        return;
    size_t n = (size_t)snprintf(buf, cap, "%s/.build-id/%02x/", DEBUG_ROOT, m->build_id[0]);
    for (size_t i = 1; i < m->build_id_len && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%02x", m->build_id[i]);
    if (n < cap)
        snprintf(buf + n, cap - n, ".debug");
}

void lines_sym_explain(lines_symbolizer *s, sym_module *const *mods, size_t n) {
    const char *paths[EXPLAIN_MAX];
    sym_module *todo[EXPLAIN_MAX];
    size_t k = 0;
    for (size_t i = 0; i < n && k < EXPLAIN_MAX; i++)
        if (mods[i]->state == SYM_FUNCTIONS && !mods[i]->explained && !mods[i]->vdso) {
            todo[k] = mods[i];
            paths[k++] = mods[i]->path;
        }
    if (!k)
        return;
    char(*owners)[PACKAGE_NAME_MAX] = calloc(k, sizeof *owners);
    if (!owners)
        return;
    lines_package_owners(paths, k, owners);
    for (size_t i = 0; i < k; i++) {
        sym_module *m = todo[i];
        char debug[200], text[sizeof m->notes->text + 800];
        build_id_path(m, debug, sizeof debug);
        GElf_Addr bias;
        GElf_Word crc;
        Elf *elf = dwfl_module_getelf(m->mod, &bias);
        const char *link = elf ? dwelf_elf_gnu_debuglink(elf, &crc) : NULL;
        if (owners[i][0])
            snprintf(text, sizeof text,
                     "%s; its debug file %s%swould give lines (Debian: %s-dbgsym, from the "
                     "debian-debug archive)",
                     m->why, debug, debug[0] ? " " : "", owners[i]);
        else if (link) /* named by its .gnu_debuglink, found by build-id first */
            snprintf(text, sizeof text, "%s; its debug file (%s%s%s) would give lines", m->why,
                     link, debug[0] ? ", or " : "", debug);
        else if (debug[0] && m->notes->refused)
            snprintf(text, sizeof text, "%s; its debug file %s would give lines", m->why, debug);
        else
            snprintf(text, sizeof text,
                     "%s; it was built without -g (or stripped): a build with "
                     "-g gives lines",
                     m->why);
        const char *kept = arena_dup(&s->mem, text, strlen(text));
        if (kept)
            m->why = kept;
        m->explained = 1;
    }
    free(owners);
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
