/* A module's symbol table, indexed once; see lines_symindex.h. */
#include "lines_symindex.h"

#include <scope/vec.h>
#include <stdlib.h>
#include <string.h>

/* Covering symbols weighed at one address; more (a table of nested
 * aliases) and libdwfl is asked.  So it is when more than MAX_SCANNED
 * symbols lie between the address and the lowest start whose range could
 * reach it (a table with a huge symbol low down, as a forged file could
 * hold): libdwfl, once per span, bounds the work, not this scan. */
#define MAX_COVERING 64
#define MAX_SCANNED  4096

/* A symbol libdwfl would weigh (a name, defined, not a section, file or
 * TLS symbol). */
typedef struct weighed_sym {
    uint64_t value, end; /* [value, end); end == value: sizeless (a label) */
    uint64_t size;
    int index;    /* in the table (dwfl_module_getsym_info) */
    int order;    /* when libdwfl's search meets it: global symbols first, then local */
    int binding;  /* libdwfl's preference: global 3, weak 2, local 1, other 0 */
    int absolute; /* SHN_ABS and the like: libdwfl takes such a label only at its address */
} weighed_sym;

/* An allocated section of the module's file, where libdwfl looks up which
 * section an address lies in. */
typedef struct section_span {
    uint64_t start, end;
} section_span;

/* libdwfl's answer for one span (lines_symindex.h). */
typedef struct span_answer {
    uint64_t span; /* 0: an empty slot */
    const char *name;
    GElf_Sym sym;
    uint64_t start;
} span_answer;

struct sym_index {
    int usable;         /* the tables below can answer */
    weighed_sym *sized; /* by value, then order */
    uint64_t *max_end;  /* max_end[k]: the highest end of sized[0..k] */
    size_t nsized;
    weighed_sym *labels; /* the sizeless ones, by value, then order */
    size_t nlabels;
    section_span *sections;
    size_t nsections;
    uint64_t *bounds; /* every symbol's and section's start and end, sorted, distinct */
    size_t nbounds;
    span_answer *answers;
    size_t cap_answers, nanswers;
    uint64_t searches;
};

static int binding_of(const GElf_Sym *s) {
    switch (GELF_ST_BIND(s->st_info)) {
    case STB_GLOBAL:
        return 3;
    case STB_WEAK:
        return 2;
    case STB_LOCAL:
        return 1;
    default:
        return 0;
    }
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int by_value(const void *a, const void *b) {
    const weighed_sym *x = a, *y = b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

static int by_order(const void *a, const void *b) {
    const weighed_sym *x = *(weighed_sym *const *)a, *y = *(weighed_sym *const *)b;
    return (x->order > y->order) - (x->order < y->order);
}

static int push_u64(uint64_t **v, size_t *n, size_t *cap, uint64_t x) {
    if (SCOPE_VEC_RESERVE(*v, *cap, *n + 1) < 0)
        return -1;
    (*v)[(*n)++] = x;
    return 0;
}

static int push_sym(weighed_sym **v, size_t *n, size_t *cap, const weighed_sym *s) {
    if (SCOPE_VEC_RESERVE(*v, *cap, *n + 1) < 0)
        return -1;
    (*v)[(*n)++] = *s;
    return 0;
}

/* Every section's start and end in one ELF file, at bias, as boundaries. */
static int push_sections(uint64_t **v, size_t *n, size_t *cap, Elf *elf, GElf_Addr bias) {
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);
        if (sh && (push_u64(v, n, cap, sh->sh_addr + bias) < 0 ||
                   push_u64(v, n, cap, sh->sh_addr + bias + sh->sh_size) < 0))
            return -1;
    }
    return 0;
}

/* The module file's allocated sections, where libdwfl places an address. */
static int keep_sections(sym_index *ix, Elf *elf, GElf_Addr bias) {
    size_t cap = 0;
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);
        if (!sh || !(sh->sh_flags & SHF_ALLOC) || !sh->sh_size)
            continue;
        if (SCOPE_VEC_RESERVE(ix->sections, cap, ix->nsections + 1) < 0)
            return -1;
        ix->sections[ix->nsections++] =
            (section_span){sh->sh_addr + bias, sh->sh_addr + bias + sh->sh_size};
    }
    return 0;
}

static size_t sort_distinct(uint64_t *v, size_t n) {
    if (!n)
        return 0; /* v may be NULL, which qsort may not be given */
    qsort(v, n, sizeof *v, cmp_u64);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || v[m - 1] != v[i])
            v[m++] = v[i];
    return m;
}

/* Reads the table once.  Out of memory: an index that asks libdwfl every
 * time (usable 0, no bounds). */
static void build(sym_index *ix, Dwfl_Module *mod) {
    size_t cap_sized = 0, cap_labels = 0, cap_b = 0;
    int nsyms = dwfl_module_getsymtab(mod);
    int first_global = dwfl_module_getsymtab_first_global(mod);
    GElf_Addr main_bias;
    Elf *main_elf = dwfl_module_getelf(mod, &main_bias);
    Elf *seen[4] = {main_elf};
    size_t nseen = main_elf ? 1 : 0;
    int usable = nsyms >= 0 && first_global >= 0 && main_elf;
    if (main_elf && (push_sections(&ix->bounds, &ix->nbounds, &cap_b, main_elf, main_bias) < 0 ||
                     keep_sections(ix, main_elf, main_bias) < 0))
        goto nomem;
    for (int i = 1; i < nsyms; i++) {
        GElf_Sym sym;
        GElf_Addr value, bias = 0;
        GElf_Word shndx;
        Elf *elf = NULL;
        const char *name = dwfl_module_getsym_info(mod, i, &sym, &value, &shndx, &elf, &bias);
        if (!name)
            continue;
        uint64_t raw = sym.st_value + bias;
        if (push_u64(&ix->bounds, &ix->nbounds, &cap_b, value) < 0 ||
            push_u64(&ix->bounds, &ix->nbounds, &cap_b, value + sym.st_size) < 0 ||
            push_u64(&ix->bounds, &ix->nbounds, &cap_b, raw) < 0 ||
            push_u64(&ix->bounds, &ix->nbounds, &cap_b, raw + sym.st_size) < 0)
            goto nomem;
        size_t k = 0;
        while (k < nseen && seen[k] != elf)
            k++;
        if (elf && k == nseen) { /* symbols from the debug file or .gnu_debugdata */
            if (nseen == sizeof seen / sizeof seen[0] ||
                push_sections(&ix->bounds, &ix->nbounds, &cap_b, elf, bias) < 0)
                goto nomem;
            seen[nseen++] = elf;
        }
        int type = GELF_ST_TYPE(sym.st_info);
        if (!name[0] || sym.st_shndx == SHN_UNDEF || type == STT_SECTION || type == STT_FILE ||
            type == STT_TLS)
            continue; /* libdwfl never weighs it */
        /* A value an architecture resolved (a function descriptor) is tried
         * twice by libdwfl; an end that wraps compares otherwise.  (An
         * absolute symbol's value is not moved with the module.) */
        int absolute = shndx >= SHN_LORESERVE || sym.st_shndx >= SHN_LORESERVE;
        if ((value != raw && !absolute) || value + sym.st_size < value)
            usable = 0;
        int global = first_global <= 1 || i >= first_global;
        weighed_sym w = {
            .value = value,
            .end = value + sym.st_size,
            .size = sym.st_size,
            .index = i,
            .order = global ? i - nsyms : i, /* every global before every local */
            .binding = binding_of(&sym),
            .absolute = absolute,
        };
        if (sym.st_size ? push_sym(&ix->sized, &ix->nsized, &cap_sized, &w) < 0
                        : push_sym(&ix->labels, &ix->nlabels, &cap_labels, &w) < 0)
            goto nomem;
    }
    ix->nbounds = sort_distinct(ix->bounds, ix->nbounds);
    if (ix->nsized)
        qsort(ix->sized, ix->nsized, sizeof *ix->sized, by_value);
    if (ix->nlabels)
        qsort(ix->labels, ix->nlabels, sizeof *ix->labels, by_value);
    if (!(ix->max_end = malloc((ix->nsized + 1) * sizeof *ix->max_end)))
        goto nomem;
    for (size_t k = 0; k < ix->nsized; k++)
        ix->max_end[k] =
            k && ix->max_end[k - 1] > ix->sized[k].end ? ix->max_end[k - 1] : ix->sized[k].end;
    ix->usable = usable;
    return;
nomem:
    free(ix->bounds);
    ix->bounds = NULL;
    ix->nbounds = 0;
    ix->usable = 0;
}

/* The number of symbols of v (sorted by value) whose value is <= x. */
static size_t count_le(const weighed_sym *v, size_t n, uint64_t x) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].value <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* libdwfl's choice among sized symbols covering the address, met in its
 * order (try_sym_value in elfutils' dwfl_module_addrsym.c). */
static const weighed_sym *choose(weighed_sym *const *c, size_t n) {
    const weighed_sym *best = NULL;
    for (size_t i = 0; i < n; i++) {
        const weighed_sym *s = c[i];
        if (!best || best->value < s->value || best->binding < s->binding)
            best = s;
        else if (best->value == s->value &&
                 ((best->size > s->size && best->binding <= s->binding) ||
                  (best->size >= s->size && best->binding < s->binding)))
            best = s;
    }
    return best;
}

/* The one allocated section addr lies in; SIZE_MAX when none or several
 * (libdwfl's placing is then not followed here). */
static size_t section_of(const sym_index *ix, uint64_t addr) {
    size_t found = SIZE_MAX;
    for (size_t i = 0; i < ix->nsections; i++)
        if (addr >= ix->sections[i].start && addr < ix->sections[i].end) {
            if (found != SIZE_MAX)
                return SIZE_MAX;
            found = i;
        }
    return found;
}

/* Whether a global label lies exactly at addr: libdwfl then skips the
 * local symbols, and only it can say what follows. */
static int global_label_at(const sym_index *ix, uint64_t addr) {
    for (size_t k = count_le(ix->labels, ix->nlabels, addr);
         k-- > 0 && ix->labels[k].value == addr;)
        if (ix->labels[k].order < 0)
            return 1;
    return 0;
}

/* libdwfl's answer when no sized symbol covers addr: the label at the
 * highest start at or below addr that no symbol's range passes, in the
 * section addr lies in, the last of them met; else nothing.  NULL with
 * *sure 0 when only libdwfl can say. */
static const weighed_sym *label_at(const sym_index *ix, uint64_t addr, int *sure) {
    *sure = 0;
    size_t ns = count_le(ix->sized, ix->nsized, addr), nl = count_le(ix->labels, ix->nlabels, addr);
    uint64_t top = 0; /* the highest start at or below addr */
    if (ns)
        top = ix->sized[ns - 1].value;
    if (!nl || ix->labels[nl - 1].value < top ||
        (ns && ix->max_end[ns - 1] > ix->labels[nl - 1].value)) {
        *sure = 1; /* no label, or one that a symbol's range or start lies above */
        return NULL;
    }
    top = ix->labels[nl - 1].value;
    const weighed_sym *last = NULL;
    for (size_t k = nl; k-- > 0 && ix->labels[k].value == top;) {
        if (ix->labels[k].absolute)
            return NULL;
        if (!last || ix->labels[k].order > last->order)
            last = &ix->labels[k];
    }
    size_t sa = section_of(ix, addr), sl = section_of(ix, top);
    if (sa == SIZE_MAX || sl == SIZE_MAX)
        return NULL;
    *sure = 1;
    return sa == sl ? last : NULL;
}

/* The symbol libdwfl picks at addr; *sure 0 when only libdwfl can say. */
static const weighed_sym *pick(const sym_index *ix, uint64_t addr, int *sure) {
    weighed_sym *c[MAX_COVERING];
    size_t n = 0;
    *sure = 0;
    /* Those starting at or below addr, from the highest start down while
     * some lower one could still reach addr. */
    size_t lo = count_le(ix->sized, ix->nsized, addr), scanned = 0;
    for (size_t k = lo; k-- > 0 && ix->max_end[k] > addr;) {
        if (++scanned > MAX_SCANNED)
            return NULL;
        if (ix->sized[k].end > addr) {
            if (n == MAX_COVERING)
                return NULL;
            c[n++] = &ix->sized[k];
        }
    }
    qsort(c, n, sizeof *c, by_order);
    size_t nglobal = 0;
    while (nglobal < n && c[nglobal]->order < 0)
        nglobal++;
    if (nglobal) {
        *sure = 1;
        return choose(c, nglobal);
    }
    /* libdwfl weighs the local symbols only when no global one covers addr
     * and no global label lies exactly at addr. */
    if (global_label_at(ix, addr))
        return NULL;
    if (n) {
        *sure = 1;
        return choose(c, n);
    }
    return label_at(ix, addr, sure);
}

static span_answer *answer_slot(span_answer *t, size_t cap, uint64_t span) {
    uint64_t h = span * 0x9e3779b97f4a7c15ull;
    for (size_t i = (size_t)(h ^ (h >> 29)) & (cap - 1);; i = (i + 1) & (cap - 1))
        if (!t[i].span || t[i].span == span)
            return &t[i];
}

static void remember(sym_index *ix, const span_answer *a) {
    if ((ix->nanswers + 1) * 2 > ix->cap_answers) {
        size_t cap = ix->cap_answers ? 2 * ix->cap_answers : 256;
        span_answer *t = calloc(cap, sizeof *t);
        if (!t)
            return; /* out of memory: asked again next time */
        for (size_t i = 0; i < ix->cap_answers; i++)
            if (ix->answers[i].span)
                *answer_slot(t, cap, ix->answers[i].span) = ix->answers[i];
        free(ix->answers);
        ix->answers = t;
        ix->cap_answers = cap;
    }
    *answer_slot(ix->answers, ix->cap_answers, a->span) = *a;
    ix->nanswers++;
}

/* libdwfl itself, once per span: which boundaries addr lies between, and
 * whether it is the lower one (libdwfl treats an exact start apart). */
static const char *ask_libdwfl(sym_index *ix, Dwfl_Module *mod, uint64_t addr, GElf_Off *off,
                               GElf_Sym *sym) {
    uint64_t span = 0;
    if (ix->nbounds) {
        size_t k = 0, hi = ix->nbounds; /* the number of boundaries <= addr */
        while (k < hi) {
            size_t mid = k + (hi - k) / 2;
            if (ix->bounds[mid] <= addr)
                k = mid + 1;
            else
                hi = mid;
        }
        span = ((uint64_t)k + 1) * 2 + (k && ix->bounds[k - 1] == addr);
    }
    if (span && ix->cap_answers) {
        const span_answer *a = answer_slot(ix->answers, ix->cap_answers, span);
        if (a->span) {
            if (a->name) {
                *sym = a->sym;
                *off = addr - a->start;
            }
            return a->name;
        }
    }
    ix->searches++;
    GElf_Off o = 0;
    GElf_Sym s;
    memset(&s, 0, sizeof s);
    const char *name = dwfl_module_addrinfo(mod, addr, &o, &s, NULL, NULL, NULL);
    if (span)
        remember(ix, &(span_answer){span, name, s, addr - o});
    if (name) {
        *sym = s;
        *off = o;
    }
    return name;
}

const char *sym_index_addrinfo(sym_index **ixp, Dwfl_Module *mod, uint64_t addr, GElf_Off *off,
                               GElf_Sym *sym) {
    if (!*ixp) {
        if (!(*ixp = calloc(1, sizeof **ixp)))
            return dwfl_module_addrinfo(mod, addr, off, sym, NULL, NULL, NULL);
        build(*ixp, mod);
    }
    sym_index *ix = *ixp;
    if (ix->usable) {
        int sure;
        const weighed_sym *s = pick(ix, addr, &sure);
        if (sure && !s)
            return NULL;
        if (sure) {
            GElf_Addr value;
            const char *name =
                dwfl_module_getsym_info(mod, s->index, sym, &value, NULL, NULL, NULL);
            if (name) {
                *off = addr - value;
                return name;
            }
        }
    }
    return ask_libdwfl(ix, mod, addr, off, sym);
}

uint64_t sym_index_searches(const sym_index *ix) {
    return ix ? ix->searches : 0;
}

void sym_index_free(sym_index *ix) {
    if (!ix)
        return;
    free(ix->sized);
    free(ix->max_end);
    free(ix->labels);
    free(ix->sections);
    free(ix->bounds);
    free(ix->answers);
    free(ix);
}
