/* lines_debugfile: a module's separate debug file, regular files only; see
 * lines_debugfile.h. */
#define _GNU_SOURCE /* strdup, realpath */
#include "lines_debugfile.h"

#include "open_regular.h"
#include "text_escape.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define MAX_PATH 4096
/* Folders of the module's path tried under DEBUG_ROOT: /usr/lib/x/ less
 * its leading components, one at a time, at most this many times. */
#define MAX_CHOPS 16

typedef struct search {
    debugfile_notes *notes;
    const uint8_t *build_id; /* the file sought has this build-id (len 0: none) */
    size_t build_id_len;
    int check_crc; /* no build-id: its whole content has this CRC-32 */
    uint32_t crc;
    struct stat module; /* the module itself, never taken as its own debug file */
    int have_module;
    int fd; /* the file found, or -1 */
    char *found;
} search;

static void note(search *s, const char *path, const char *why) {
    if (!s->notes)
        return;
    debugfile_notes *n = s->notes;
    n->refused++;
    size_t used = strlen(n->text);
    char shown[600];
    scope_escape((const uint8_t *)path, strlen(path), shown, sizeof shown, 0);
    if (used + 16 < sizeof n->text)
        snprintf(n->text + used, sizeof n->text - used, "%s%s (%s)", used ? "; " : "", shown, why);
}

/* GNU debuglink's CRC: zlib's CRC-32 over the whole file. */
static int crc_matches(int fd, uint32_t want) {
    unsigned char buf[1 << 16];
    uLong crc = crc32(0L, Z_NULL, 0);
    off_t off = 0;
    ssize_t k;
    while ((k = pread(fd, buf, sizeof buf, off)) > 0) {
        crc = crc32(crc, buf, (uInt)k);
        off += k;
    }
    return k == 0 && (uint32_t)crc == want;
}

/* Whether the ELF file on fd is the debug file sought. */
static int is_the_one(const search *s, int fd) {
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    int ok = 0;
    if (elf && elf_kind(elf) == ELF_K_ELF) {
        if (s->build_id_len) {
            const void *bits;
            ssize_t n = dwelf_elf_gnu_build_id(elf, &bits);
            ok = n == (ssize_t)s->build_id_len && !memcmp(bits, s->build_id, s->build_id_len);
        } else
            ok = !s->check_crc || crc_matches(fd, s->crc);
    }
    if (elf)
        elf_end(elf);
    return ok;
}

/* Tries dir/sub/name (parts NULL or "" left out); 1 once found. */
static int try_path(search *s, const char *dir, const char *sub, const char *name) {
    if (s->fd >= 0)
        return 1;
    char path[MAX_PATH];
    int n = snprintf(path, sizeof path, "%s%s%s%s%s", dir ? dir : "", sub && *sub ? "/" : "",
                     sub ? sub : "", dir || (sub && *sub) ? "/" : "", name);
    if (n < 0 || (size_t)n >= sizeof path)
        return 0;
    int fd;
    struct stat st;
    enum open_regular r = open_regular(path, DEBUGFILE_MAX_BYTES, &fd, &st);
    if (r == OPEN_REGULAR_MISSING)
        return 0;
    if (r != OPEN_REGULAR_OK) {
        char why[128];
        note(s, path, open_regular_why(r, &st, why, sizeof why));
        return 0;
    }
    int own = s->have_module && st.st_dev == s->module.st_dev && st.st_ino == s->module.st_ino;
    if (own || !is_the_one(s, fd) || !(s->found = strdup(path))) {
        close(fd);
        return 0;
    }
    s->fd = fd;
    return 1;
}

static int by_build_id(search *s) {
    if (!s->build_id_len || s->build_id_len > 64)
        return 0;
    char sub[16], name[160];
    snprintf(sub, sizeof sub, ".build-id/%02x", s->build_id[0]);
    size_t n = 0;
    for (size_t i = 1; i < s->build_id_len; i++)
        n += (size_t)snprintf(name + n, sizeof name - n, "%02x", s->build_id[i]);
    snprintf(name + n, sizeof name - n, ".debug");
    return try_path(s, DEBUG_ROOT, sub, name);
}

/* By the debuglink name (link; NULL: the module's name plus .debug) of the
 * module at file: beside it, in .debug/, under DEBUG_ROOT. */
static int by_name(search *s, const char *file, const char *link) {
    const char *slash = strrchr(file, '/');
    if (!slash || (size_t)(slash - file) >= MAX_PATH)
        return 0;
    char dir[MAX_PATH], invented[MAX_PATH];
    memcpy(dir, file, (size_t)(slash - file));
    dir[slash - file] = '\0'; /* "" for a module at the root */
    const char *base = slash + 1, *name = link;
    if (!name) {
        snprintf(invented, sizeof invented, "%s.debug", base);
        name = invented;
    }
    if (try_path(s, dir, NULL, name) || try_path(s, dir, ".debug", name) ||
        (!link && try_path(s, dir, ".debug", base)))
        return 1;
    const char *sub = dir;
    for (int i = 0; i < MAX_CHOPS && sub; i++) {
        const char *rel = sub + (*sub == '/');
        if (try_path(s, DEBUG_ROOT, rel, name) || (!link && try_path(s, DEBUG_ROOT, rel, base)))
            return 1;
        sub = *sub ? strchr(sub + 1, '/') : NULL;
    }
    return 0;
}

/* A dwz file named altname, for the module at file. */
static int by_alt_name(search *s, const char *file, const char *altname) {
    if (altname[0] == '/') {
        if (try_path(s, NULL, NULL, altname))
            return 1;
    } else {
        const char *slash = strrchr(file, '/');
        char dir[MAX_PATH];
        if (slash && (size_t)(slash - file) < sizeof dir) {
            memcpy(dir, file, (size_t)(slash - file));
            dir[slash - file] = '\0';
            if (try_path(s, dir, NULL, altname))
                return 1;
        }
    }
    const char *base = strrchr(altname, '/');
    return try_path(s, DEBUG_ROOT, ".dwz", base ? base + 1 : altname);
}

int lines_find_debugfile(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                         const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                         char **debuginfo_file_name) {
    (void)modname;
    (void)base;
    search s = {.notes = userdata ? *userdata : NULL, .fd = -1};
    /* dwfl_module_getdwarf below must not start a search for this module
     * again (it cannot, while the DWARF is there; this makes sure). */
    if (s.notes && s.notes->searching) {
        errno = 0;
        return -1;
    }
    if (s.notes)
        s.notes->searching = 1;
    s.have_module = file_name && stat(file_name, &s.module) == 0;
    /* libdwfl asks for two files: the debug file, named by the module's own
     * .gnu_debuglink (the very pointer it read), and once it has DWARF, a
     * dwz file, named by the DWARF's .gnu_debugaltlink. */
    GElf_Addr bias;
    GElf_Word own_crc = 0;
    Elf *elf = dwfl_module_getelf(mod, &bias);
    const char *own_link = elf ? dwelf_elf_gnu_debuglink(elf, &own_crc) : NULL;
    int found = 0;
    if (debuglink_file != own_link) {
        /* The DWARF is there already: dwfl_module_getdwarf only returns it. */
        Dwarf_Addr dwbias;
        Dwarf *dw = dwfl_module_getdwarf(mod, &dwbias);
        const char *altname;
        const void *alt_id;
        ssize_t n = dw && debuglink_file ? dwelf_dwarf_gnu_debugaltlink(dw, &altname, &alt_id) : 0;
        if (n > 0) {
            s.build_id = alt_id;
            s.build_id_len = (size_t)n;
            found = by_build_id(&s) || (file_name && by_alt_name(&s, file_name, debuglink_file));
        }
    } else {
        const unsigned char *bits;
        GElf_Addr vaddr;
        int n = dwfl_module_build_id(mod, &bits, &vaddr);
        if (n > 0) {
            s.build_id = bits;
            s.build_id_len = (size_t)n;
        } else {
            s.check_crc = debuglink_file && debuglink_crc != 0;
            s.crc = debuglink_crc;
        }
        found = by_build_id(&s) || (file_name && by_name(&s, file_name, debuglink_file));
        if (!found && file_name) {
            /* The debug file may go with the name a link leads to. */
            char *real = realpath(file_name, NULL);
            if (real && strcmp(real, file_name))
                found = by_name(&s, real, debuglink_file);
            free(real);
        }
    }
    if (s.notes)
        s.notes->searching = 0;
    if (!found) {
        errno = 0; /* nothing found: not an error of libdwfl's to report */
        return -1;
    }
    *debuginfo_file_name = s.found;
    return s.fd;
}

int lines_find_no_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                      char **file_name, Elf **elfp) {
    (void)mod, (void)userdata, (void)modname, (void)base, (void)file_name, (void)elfp;
    errno = 0;
    return -1;
}
