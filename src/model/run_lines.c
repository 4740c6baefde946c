/*
 * Hot lines: the run's line samples symbolized once, then summed per query
 * (run_lines.h).
 *
 * Loading walks every process of the newest attempt: each stack it sampled
 * is symbolized frame by frame (lines_symbolize.h) into two locations, the
 * frame that ran (self) and the innermost frame whose source file lies
 * under the process's project folder (project); each (thread, node, stack)
 * count becomes one sample group tagged with its process, the merged phase
 * of its node and those two locations.  A query then only sums groups, so
 * the browser can refilter at every key press.
 *
 * Locations and names are interned, so one source line is one location
 * however many processes and stacks reach it.
 */
#include "run_lines.h"

#include "arena.h"
#include "lines_sample_count.h"
#include "lines_symbolize.h"
#include "open_regular.h"
#include "path_normalize.h"
#include "progress.h"
#include "run_builder.h"
#include "run_caveats.h"
#include "lines_paths.h"
#include "stack_tree.h"
#include "text_escape.h"
#include "worker_log.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <scope/vec.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Frames of one stack looked at; deeper ones (a hostile log) are ignored. */
#define MAX_STACK_FRAMES 512
/* Logical frames (inlined ones expanded) of one call path kept for the
 * stacks; the outermost beyond it are dropped. */
#define MAX_PATH_FRAMES 1024
/* A source file larger than this is not read. */
#define MAX_SOURCE_BYTES (16u << 20)
/* Source files kept (a query may name any). */
#define MAX_SOURCES 4096
/* Distinct project folders tried when looking for a source file. */
#define MAX_PROJECTS 8

static const char unknown_fn[] = "??";
static const char unnamed_phase[] = "(unnamed phase)";

typedef struct lines_loc {
    run_str file, function, module; /* interned */
    run_str linkage; /* the function's linkage name (interned; len 0: unknown); not part of what
                        the location is: the variants of a constructor are one function */
    uint32_t line;
    int approximate;
    int measured;      /* a measured line's location: never shared with samples */
    uint32_t def_line; /* measured: its function's first line, the lowest said; not part of
                          what the location is */
    int in_project;    /* its file lies under a process's project folder; not part of what
                          the location is */
} lines_loc;

/* One (process, thread, node, state, stack) count, or one measured line. */
typedef struct lines_group {
    size_t worker;
    const run_phase *phase; /* in its role's merged tree; NULL: no phase open, or unplaced */
    uint32_t self, project; /* locations */
    int outside;            /* no frame under the project folder: project is self */
    uint32_t path;          /* the whole call path: a node of the cache's stack tree */
    uint64_t count;
    uint64_t period_ns;
    uint32_t state;   /* enum scope_cpu_state as the log said it, any value: one past
                         SCOPE_CPU_STATES is off a CPU, of a kind this reader does not know */
    int state_unsaid; /* a wall sample of a log before 1.10: state means nothing.  A flag,
                         not a state value, so that no value a log writes can meet it */
    int wall;         /* taken on the wall clock */
    int measured;     /* a measured line: hits and seconds, no count */
    uint64_t hits;
    double seconds;
} lines_group;

typedef struct lines_source {
    run_str file;   /* as asked */
    run_str *lines; /* escaped text */
    size_t nlines;  /* 0: missing, why says so */
    char why[160];
} lines_source;

typedef struct str_slot {
    const char *s; /* NULL: empty */
    size_t len;
    uint64_t hash;
} str_slot;

typedef struct lines_cache {
    arena mem;
    lines_symbolizer *sym;          /* the one symbolizing now */
    int own_sym;                    /* the model's own, freed with it; else the caller's */
    lines_symbolizer **per_process; /* SCOPE_SYMBOLIZE=per-process: each process's own */
    size_t nper_process, cap_per_process;
    lines_sym_count counts; /* what they did, all together */
    str_slot *strs;
    size_t cap_strs, nstrs;
    lines_loc *locs;
    size_t nlocs, cap_locs;
    uint32_t *loc_slots; /* loc index + 1, 0 empty */
    size_t cap_loc_slots;
    lines_group *groups;
    size_t ngroups, cap_groups;
    stack_tree tree; /* every sampled call path, by location */
    /* Each address symbolized once for the whole run: the processes of a
     * run share their modules, so most frames of most stacks are met again
     * (addr_slots: index + 1 into addrs; their locations in addr_locs). */
    struct addr_entry {
        const sym_module *mod;
        uint64_t offset;
        const char *project; /* interned: whether a location is under it depends on it */
        int caller;
        uint32_t first, n;   /* addr_locs[first .. first + n) */
        uint32_t under_mask; /* bit k: location k lies under the project (k < 32) */
        uint32_t file_mask;  /* bit k: location k has a source file */
    } * addrs;
    size_t naddrs, cap_addrs;
    uint32_t *addr_slots;
    size_t cap_addr_slots;
    uint32_t *addr_locs;
    size_t naddr_locs, cap_addr_locs;
    /* The newest call-path selection, by its query: the Flame view asks
     * the same one again for each change of names, a callers' view, a
     * rebuild. */
    struct paths_memo {
        int valid;
        char *role; /* malloc'd; NULL: every role */
        size_t worker;
        const run_phase *phase;
        enum run_lines_cpu cpu;
        lines_path_count *v;
        size_t n;
        uint64_t samples;
        double seconds, period_ns;
    } memo;
    run_lines_info info;
    uint64_t counted, signals; /* samples stored, and the signals that brought them */
    int signals_unsaid;        /* some sampled process did not say its signals */
    char *source_dir;
    run_str projects[MAX_PROJECTS];
    size_t nprojects;
    lines_source *sources;
    size_t nsources, cap_sources;
    int nomem;
} lines_cache;

static uint64_t hash_bytes(const void *p, size_t n) {
    const uint8_t *b = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static void cache_free(void *p) {
    lines_cache *c = p;
    if (!c)
        return;
    if (c->own_sym)
        lines_sym_free(c->sym);
    for (size_t i = 0; i < c->nper_process; i++)
        lines_sym_free(c->per_process[i]);
    free(c->per_process);
    free(c->strs);
    free(c->locs);
    free(c->loc_slots);
    free(c->groups);
    free(c->sources);
    stack_tree_free(&c->tree);
    free(c->addrs);
    free(c->addr_slots);
    free(c->addr_locs);
    free(c->memo.role);
    free(c->memo.v);
    arena_free(&c->mem);
    free(c);
}

/* ---- interning ------------------------------------------------------------ */

static str_slot *str_slot_of(str_slot *t, size_t cap, const char *s, size_t len, uint64_t h) {
    size_t i = (size_t)h & (cap - 1);
    for (;; i = (i + 1) & (cap - 1))
        if (!t[i].s || (t[i].hash == h && t[i].len == len && !memcmp(t[i].s, s, len)))
            return &t[i];
}

/* The one copy of these bytes; the empty name when out of memory. */
static run_str intern(lines_cache *c, const char *s, size_t len) {
    uint64_t h = hash_bytes(s, len);
    if ((c->nstrs + 1) * 2 > c->cap_strs) {
        size_t cap = c->cap_strs ? 2 * c->cap_strs : 256;
        str_slot *t = calloc(cap, sizeof *t);
        if (!t) {
            c->nomem = 1;
            return (run_str){"", 0};
        }
        for (size_t i = 0; i < c->cap_strs; i++)
            if (c->strs[i].s)
                *str_slot_of(t, cap, c->strs[i].s, c->strs[i].len, c->strs[i].hash) = c->strs[i];
        free(c->strs);
        c->strs = t;
        c->cap_strs = cap;
    }
    str_slot *e = str_slot_of(c->strs, c->cap_strs, s, len, h);
    if (!e->s) {
        char *copy = arena_dup(&c->mem, s, len);
        if (!copy) {
            c->nomem = 1;
            return (run_str){"", 0};
        }
        *e = (str_slot){copy, len, h};
        c->nstrs++;
    }
    return (run_str){e->s, e->len};
}

static run_str intern_cstr(lines_cache *c, const char *s) {
    return s ? intern(c, s, strlen(s)) : (run_str){"", 0};
}

/* A file name normalised as the symbolizer's are (path_normalize.h):
 * "./a/../b.py" is "b.py". */
static run_str intern_path(lines_cache *c, run_str file) {
    if (!file.len || memchr(file.s, '\0', file.len))
        return intern(c, file.s, file.len);
    char *p = malloc(file.len + 2);
    if (!p) {
        c->nomem = 1;
        return (run_str){"", 0};
    }
    size_t n = path_normalize(file.s, file.len, p);
    run_str r = intern(c, p, n);
    free(p);
    return r;
}

static uint64_t loc_hash(const lines_loc *l) {
    uint64_t h = (uint64_t)(uintptr_t)l->file.s * 0x9e3779b97f4a7c15ull;
    h ^= (uint64_t)(uintptr_t)l->function.s * 0xc2b2ae3d27d4eb4full;
    h ^= (uint64_t)(uintptr_t)l->module.s * 0x165667b19e3779f9ull;
    h ^= ((uint64_t)l->line << 2 | (uint64_t)l->measured << 1 | (uint64_t)l->approximate) *
         0x27d4eb2f165667c5ull;
    return h ^ (h >> 29);
}

static int loc_eq(const lines_loc *a, const lines_loc *b) {
    return a->file.s == b->file.s && a->function.s == b->function.s && a->module.s == b->module.s &&
           a->line == b->line && a->approximate == b->approximate && a->measured == b->measured;
}

static uint32_t *loc_slot(const lines_cache *c, const lines_loc *l) {
    size_t i = (size_t)loc_hash(l) & (c->cap_loc_slots - 1);
    for (;; i = (i + 1) & (c->cap_loc_slots - 1)) {
        uint32_t v = c->loc_slots[i];
        if (!v || loc_eq(&c->locs[v - 1], l))
            return &c->loc_slots[i];
    }
}

/* An open-addressed index of uint32 slots (0: empty) holding n entries,
 * made twice as large (empty) when one more would fill it past half: 1
 * when it was, and the caller puts its n entries back; 0 when it had room;
 * -1 out of memory, the index as it was. */
static int slots_grow(uint32_t **slots, size_t *cap, size_t n) {
    if ((n + 1) * 2 <= *cap)
        return 0;
    size_t ncap = *cap ? 2 * *cap : 1024;
    uint32_t *t = calloc(ncap, sizeof *t);
    if (!t)
        return -1;
    free(*slots);
    *slots = t;
    *cap = ncap;
    return 1;
}

/* The index of this location (its names interned), added when new. */
static uint32_t loc_of(lines_cache *c, const lines_loc *l) {
    int grown = slots_grow(&c->loc_slots, &c->cap_loc_slots, c->nlocs);
    if (grown < 0) {
        c->nomem = 1;
        return 0;
    }
    if (grown) {
        for (size_t k = 0; k < c->nlocs; k++)
            *loc_slot(c, &c->locs[k]) = (uint32_t)k + 1;
    }
    uint32_t *slot = loc_slot(c, l);
    if (*slot)
        return *slot - 1;
    if (c->nlocs >= UINT32_MAX - 1 || SCOPE_VEC_RESERVE(c->locs, c->cap_locs, c->nlocs + 1) < 0) {
        c->nomem = 1;
        return 0;
    }
    c->locs[c->nlocs] = *l;
    *slot = (uint32_t)++c->nlocs;
    return (uint32_t)c->nlocs - 1;
}

/* ---- symbolizing stacks --------------------------------------------------- */

/* Whether file lies under the folder project (a path, no trailing slash
 * needed). */
static int under(run_str file, run_str project) {
    size_t n = project.len;
    while (n > 1 && project.s[n - 1] == '/')
        n--;
    if (!n || file.len <= n || memcmp(file.s, project.s, n) != 0)
        return 0;
    return project.s[n - 1] == '/' || file.s[n] == '/';
}

/* Per distinct module with samples: what the caveats say of it. */
typedef struct module_note {
    sym_module *mod;
    run_str path;
    uint64_t samples; /* whose frame that ran lies in it */
    uint64_t charged; /* charged to it by project attribution, having run elsewhere */
    uint64_t nolines; /* of samples, those that ran where it has no line (a module with
                         debug info for part of it: objects built with -g and without) */
} module_note;

typedef struct load_ctx {
    lines_cache *c;
    module_note *notes;
    size_t nnotes, cap_notes;
    int per_process; /* a symbolizer per process: one module is one path (interned) */
} load_ctx;

static void note_module(load_ctx *x, sym_module *mod, run_str path, uint64_t samples,
                        uint64_t charged, uint64_t nolines) {
    for (size_t i = 0; i < x->nnotes; i++)
        if (x->notes[i].mod == mod || (x->per_process && x->notes[i].path.s == path.s)) {
            x->notes[i].samples += samples;
            x->notes[i].charged += charged;
            x->notes[i].nolines += nolines;
            return;
        }
    if (SCOPE_VEC_RESERVE(x->notes, x->cap_notes, x->nnotes + 1) < 0) {
        x->c->nomem = 1;
        return;
    }
    x->notes[x->nnotes++] = (module_note){mod, path, samples, charged, nolines};
}

/* A stack's two locations. */
typedef struct stack_locs {
    int done;
    uint32_t self, project;
    int outside;
    uint32_t path;    /* the call path in the stack tree; 0: the root (nothing known) */
    sym_module *leaf; /* NULL: the frame that ran lies in no known module */
    run_str leaf_path;
    int leaf_line;       /* the frame that ran has a line */
    sym_module *charged; /* the project frame's module, when not the leaf's; else NULL */
    run_str charged_path;
} stack_locs;

static lines_loc frame_loc(lines_cache *c, const sym_frame *f, run_str module, int approximate) {
    lines_loc l = {
        .file = intern_cstr(c, f->file),
        .function = f->function ? intern_cstr(c, f->function) : intern_cstr(c, unknown_fn),
        /* A C name is its own linkage name. */
        .linkage = intern_cstr(c, f->linkage ? f->linkage : f->function),
        .module = module,
        .line = f->line,
        .approximate = approximate || !f->line || !f->file,
    };
    if (!l.line)
        l.file = intern_cstr(c, f->file); /* a function-level row still names its file if known */
    return l;
}

/* One process's modules as the symbolizer knows them, looked up once each
 * (by log module index). */
typedef struct module_slot {
    sym_module *sm; /* NULL: not looked up yet */
    run_str path;   /* interned */
} module_slot;

static uint64_t addr_hash(const sym_module *mod, uint64_t offset, const char *project, int caller) {
    uint64_t h = (uint64_t)(uintptr_t)mod * 0x9e3779b97f4a7c15ull ^ offset * 0xc2b2ae3d27d4eb4full ^
                 (uint64_t)(uintptr_t)project * 0x165667b19e3779f9ull ^ (uint64_t)caller;
    return h ^ (h >> 29);
}

static uint32_t *addr_slot(const lines_cache *c, const sym_module *mod, uint64_t offset,
                           const char *project, int caller) {
    size_t i = (size_t)addr_hash(mod, offset, project, caller) & (c->cap_addr_slots - 1);
    for (;; i = (i + 1) & (c->cap_addr_slots - 1)) {
        uint32_t v = c->addr_slots[i];
        if (!v)
            return &c->addr_slots[i];
        const struct addr_entry *e = &c->addrs[v - 1];
        if (e->mod == mod && e->offset == offset && e->project == project && e->caller == caller)
            return &c->addr_slots[i];
    }
}

/* The locations of one address, innermost first, symbolized on first use:
 * *first indexes addr_locs; returns their number (0 when out of memory). */
static uint32_t addr_locations(lines_cache *c, sym_module *sm, run_str module, uint64_t offset,
                               int caller, run_str project, uint32_t *first, uint32_t *under_mask,
                               uint32_t *file_mask) {
    int grown = slots_grow(&c->addr_slots, &c->cap_addr_slots, c->naddrs);
    if (grown < 0) {
        c->nomem = 1;
        return 0;
    }
    if (grown) {
        for (size_t k = 0; k < c->naddrs; k++) {
            const struct addr_entry *e = &c->addrs[k];
            *addr_slot(c, e->mod, e->offset, e->project, e->caller) = (uint32_t)k + 1;
        }
    }
    uint32_t *slot = addr_slot(c, sm, offset, project.s, caller);
    if (*slot) {
        const struct addr_entry *e = &c->addrs[*slot - 1];
        *first = e->first;
        *under_mask = e->under_mask;
        *file_mask = e->file_mask;
        return e->n;
    }
    static const sym_frame unknown = {NULL, NULL, 0, NULL};
    const sym_frame *frames = &unknown;
    size_t n = 1;
    int approximate = 1;
    if (sm) {
        n = lines_sym_lookup(c->sym, sm, offset, caller, &frames);
        approximate = lines_sym_state(sm, NULL) != SYM_LINES;
    }
    if (c->naddrs >= UINT32_MAX - 1 || c->naddr_locs + n >= UINT32_MAX ||
        SCOPE_VEC_RESERVE(c->addrs, c->cap_addrs, c->naddrs + 1) < 0 ||
        SCOPE_VEC_RESERVE(c->addr_locs, c->cap_addr_locs, c->naddr_locs + n) < 0) {
        c->nomem = 1;
        return 0;
    }
    struct addr_entry e = {sm,          offset, project.s, caller, (uint32_t)c->naddr_locs,
                           (uint32_t)n, 0,      0};
    for (size_t k = 0; k < n; k++) {
        lines_loc l = frame_loc(c, &frames[k], module, approximate);
        /* Without a source file, a frame of a module inside the project
         * folder (a program built there without -g) may be the project's:
         * symbolize_stack decides, by the stack's other frames. */
        int in_project = l.file.len ? under(l.file, project) : module.len && under(module, project);
        uint32_t loc = loc_of(c, &l);
        if (c->nomem)
            return 0;
        c->locs[loc].in_project |= in_project;
        if (in_project && k < 32)
            e.under_mask |= 1u << k;
        if (l.file.len && k < 32)
            e.file_mask |= 1u << k;
        c->addr_locs[c->naddr_locs++] = loc;
    }
    c->addrs[c->naddrs++] = e;
    *slot = (uint32_t)c->naddrs;
    *first = e.first;
    *under_mask = e.under_mask;
    *file_mask = e.file_mask;
    return e.n;
}

/* The slot of module m in a set of 2 * MAX_PATH_FRAMES slots that holds at
 * most MAX_PATH_FRAMES modules: its own, or the empty one it would take. */
static size_t module_slot_of(const sym_module *const *set, const sym_module *m) {
    size_t cap = 2 * MAX_PATH_FRAMES, h = (size_t)((uintptr_t)m >> 4) * 0x9e3779b97f4a7c15ull;
    for (size_t i = (h >> 20) & (cap - 1);; i = (i + 1) & (cap - 1))
        if (!set[i] || set[i] == m)
            return i;
}

/* Every frame of the stack is symbolized, for the call path; the two
 * locations are the innermost frame and the innermost under the project.
 * A frame without a source file is the project's when its module lies in
 * the project folder and none of that module's frames on this stack has a
 * file (a program built there without -g): where the module gives lines,
 * a frame without one (crt1's _start, linker stubs) never outranks those
 * that have them. */
static void symbolize_stack(lines_cache *c, const log_lines *ll, module_slot *mods,
                            const log_stack *st, run_str project, stack_locs *out) {
    /* innermost first; the model is single-threaded */
    static uint32_t path[MAX_PATH_FRAMES];
    static sym_module *path_mod[MAX_PATH_FRAMES];
    static run_str path_modname[MAX_PATH_FRAMES];
    static uint8_t path_under[MAX_PATH_FRAMES], path_file[MAX_PATH_FRAMES];
    size_t npath = 0;
    int have_self = 0;
    uint32_t nframes = st ? st->nframes : 0;
    if (nframes > MAX_STACK_FRAMES)
        nframes = MAX_STACK_FRAMES;
    out->leaf = NULL;
    out->leaf_path = (run_str){"", 0};
    out->charged = NULL;
    out->leaf_line = 0;
    for (uint32_t i = 0; i < nframes && npath < MAX_PATH_FRAMES; i++) {
        const scope_frame_addr *fa = &st->frames[i];
        const log_module *lm = fa->module ? log_lines_module(ll, fa->module) : NULL;
        run_str module = {"", 0};
        sym_module *sm = NULL;
        if (lm) {
            module_slot *ms = &mods[lm - ll->modules];
            if (!ms->sm) {
                ms->sm = lines_sym_module(c->sym, lm->path.s, lm->path.len,
                                          (const uint8_t *)lm->build_id.s, lm->build_id.len);
                ms->path = intern(c, lm->path.s, lm->path.len);
                if (!ms->sm) {
                    c->nomem = 1;
                    return;
                }
            }
            sm = ms->sm;
            module = ms->path;
        }
        if (i == 0) {
            out->leaf = sm;
            out->leaf_path = module;
        }
        uint32_t first, under_mask, file_mask;
        uint32_t n = addr_locations(c, sm, module, lm ? fa->offset : 0, i > 0, project, &first,
                                    &under_mask, &file_mask);
        if (c->nomem)
            return;
        for (uint32_t k = 0; k < n && npath < MAX_PATH_FRAMES; k++) {
            uint32_t loc = c->addr_locs[first + k];
            path_under[npath] =
                k < 32 ? (uint8_t)((under_mask >> k) & 1u) : c->locs[loc].in_project;
            path_file[npath] =
                k < 32 ? (uint8_t)((file_mask >> k) & 1u) : c->locs[loc].file.len != 0;
            path_mod[npath] = sm;
            path_modname[npath] = module;
            path[npath++] = loc;
            if (!have_self) {
                out->self = loc;
                out->leaf_line = c->locs[loc].line != 0;
                have_self = 1;
            }
        }
    }
    /* The modules that give a file to some frame of this stack, in a
     * small open-addressed set (linear in the stack's depth, which a log
     * sets: a scan per frame would be its square). */
    static const sym_module *with_file[2 * MAX_PATH_FRAMES];
    static uint32_t used[MAX_PATH_FRAMES];
    size_t nused = 0;
    for (size_t j = 0; j < npath; j++)
        if (path_file[j] && path_mod[j]) {
            size_t i = module_slot_of(with_file, path_mod[j]);
            if (!with_file[i]) {
                with_file[i] = path_mod[j];
                used[nused++] = (uint32_t)i;
            }
        }
    int have_project = 0;
    for (size_t j = 0; j < npath && !have_project; j++) {
        if (!path_under[j])
            continue;
        /* A frame without a file: only where its module gives none here. */
        if (!path_file[j] && path_mod[j] && with_file[module_slot_of(with_file, path_mod[j])])
            continue;
        if (path_mod[j] != out->leaf)
            out->charged = path_mod[j], out->charged_path = path_modname[j];
        out->project = path[j];
        have_project = 1;
    }
    for (size_t k = 0; k < nused; k++)
        with_file[used[k]] = NULL;
    if (!have_self) { /* an empty or lost stack */
        static const sym_frame unknown = {NULL, NULL, 0, NULL};
        lines_loc l = frame_loc(c, &unknown, (run_str){"", 0}, 1);
        out->self = loc_of(c, &l);
        path[npath++] = out->self;
    }
    out->outside = !have_project;
    if (!have_project)
        out->project = out->self;
    uint32_t node = 0;
    for (size_t k = npath; k-- > 0 && !c->nomem;)
        if (!(node = stack_tree_child(&c->tree, node, path[k])))
            c->nomem = 1;
    out->path = node;
    out->done = 1;
}

/* ---- phases ---------------------------------------------------------------- */

/* The merged phase of node `id` of a process of role `role`: found by its
 * path of names from the role's root, as the merge placed it.  NULL when
 * the node or an ancestor is not defined, or the chain is too deep. */
static const run_phase *phase_of_node(worker_log *log, const run_role *role, uint32_t id) {
    run_str names[RUN_MAX_DEPTH];
    size_t n = 0;
    while (id) {
        log_node *node = log_node_of(log, id);
        if (!node || n == RUN_MAX_DEPTH)
            return NULL;
        const run_str *name = log_string_of(log, node->name);
        names[n++] = name ? *name : (run_str){unnamed_phase, sizeof unnamed_phase - 1};
        id = node->parent;
    }
    const run_phase *p = role->root;
    while (n && p)
        p = run_phase_child(p, names[n - 1].s, names[n - 1].len), n--;
    return p;
}

/* The merged phase a measured line's region names: the first node of the
 * log of that name.  NULL when none. */
static const run_phase *phase_of_region(worker_log *log, const run_role *role, run_str region) {
    if (!region.len)
        return NULL;
    for (size_t i = 0; i < log->nnodes; i++) {
        const run_str *name = log_string_of(log, log->nodes[i].name);
        if (name && run_str_eq(*name, region))
            return phase_of_node(log, role, log->nodes[i].id);
    }
    return NULL;
}

/* ---- loading --------------------------------------------------------------- */

static void add_group(lines_cache *c, const lines_group *g) {
    if (SCOPE_VEC_RESERVE(c->groups, c->cap_groups, c->ngroups + 1) < 0) {
        c->nomem = 1;
        return;
    }
    c->groups[c->ngroups++] = *g;
}

static void note_project(lines_cache *c, run_str project) {
    if (!project.len)
        return;
    for (size_t i = 0; i < c->nprojects; i++)
        if (run_str_eq(c->projects[i], project))
            return;
    if (c->nprojects < MAX_PROJECTS)
        c->projects[c->nprojects++] = project;
}

/* A process's measured lines, one group each. */
static void load_measured(lines_cache *c, run_model *m, size_t w, worker_log *log) {
    const log_lines *ll = &log->lines;
    const run_role *role = &m->roles[m->workers[w].role_index];
    for (size_t i = 0; i < ll->nmeasured && !c->nomem; i++) {
        const log_measured_line *ml = &ll->measured[i];
        lines_loc l = {.file = intern_path(c, ml->file),
                       .function = intern(c, ml->function.s, ml->function.len),
                       .module = {"", 0},
                       .linkage = {"", 0},
                       .line = ml->line,
                       .measured = 1};
        uint32_t loc = loc_of(c, &l);
        if (c->nomem)
            break;
        uint32_t *def = &c->locs[loc].def_line;
        if (ml->def_line && (!*def || ml->def_line < *def))
            *def = ml->def_line;
        add_group(c, &(lines_group){.worker = w,
                                    .phase = phase_of_region(log, role, ml->region),
                                    .self = loc,
                                    .project = loc,
                                    .measured = 1,
                                    .hits = ml->hits,
                                    .seconds = ml->seconds});
    }
    if (ll->nmeasured) {
        c->info.has_lines = 1;
        c->info.measured_workers++;
        c->info.measured_lines += ll->nmeasured;
    }
}

static void load_worker(load_ctx *x, run_model *m, size_t w, worker_log *log) {
    lines_cache *c = x->c;
    const log_lines *ll = &log->lines;
    const run_worker *wk = &m->workers[w];
    const run_role *role = &m->roles[wk->role_index];
    /* The recorder's default project folder is the working directory (or its
     * git root): without a LINES record, take the working directory. */
    run_str project = ll->has_record ? ll->project : wk->cwd;
    project = intern(c, project.s, project.len);
    note_project(c, project);
    stack_locs *locs = calloc(ll->nstacks + 1, sizeof *locs); /* [nstacks]: undefined stacks */
    module_slot *mods = calloc(ll->nmodules + 1, sizeof *mods);
    idmap nodes = {0}; /* node -> index in node_phase */
    const run_phase **node_phase = NULL;
    size_t nnode_phase = 0, cap_node_phase = 0;
    if (!locs || !mods) {
        free(locs);
        free(mods);
        c->nomem = 1;
        return;
    }
    uint64_t samples = 0;
    /* Wall-clock samples said whether their thread was on a CPU from format
     * 1.10 on; CPU-time samples always were. */
    int wall = ll->has_record && ll->rec.clock == SCOPE_LINES_CLOCK_WALL;
    int state_unsaid = wall && ll->minor < 10;
    if (wall)
        c->info.wall_workers++;
    for (size_t i = 0; i < ll->ncounts && !c->nomem; i++) {
        const log_stack_count *k = &ll->counts[i];
        if (!k->count)
            continue;
        uint32_t ix;
        size_t s = idmap_get(&ll->stack_ix, k->stack, &ix) ? ix : ll->nstacks;
        if (!locs[s].done)
            symbolize_stack(c, ll, mods, s < ll->nstacks ? &ll->stacks[s] : NULL, project,
                            &locs[s]);
        if (c->nomem)
            break;
        const run_phase *phase = NULL;
        if (k->node) {
            if (idmap_get(&nodes, k->node, &ix))
                phase = node_phase[ix];
            else {
                phase = phase_of_node(log, role, k->node);
                if (nnode_phase >= UINT32_MAX ||
                    SCOPE_VEC_RESERVE(node_phase, cap_node_phase, nnode_phase + 1) < 0 ||
                    idmap_put(&nodes, k->node, (uint32_t)nnode_phase) < 0) {
                    c->nomem = 1;
                    break;
                }
                node_phase[nnode_phase++] = phase;
            }
        }
        add_group(c, &(lines_group){.worker = w,
                                    .phase = phase,
                                    .self = locs[s].self,
                                    .project = locs[s].project,
                                    .outside = locs[s].outside,
                                    .path = locs[s].path,
                                    .count = k->count,
                                    .period_ns = k->period_ns,
                                    .state = state_unsaid ? SCOPE_CPU_ON : k->state,
                                    .state_unsaid = state_unsaid,
                                    .wall = wall});
        if (state_unsaid)
            c->info.unsaid_samples += k->count;
        else if (k->state != SCOPE_CPU_ON) {
            c->info.off_samples += k->count;
            if (k->state >= SCOPE_CPU_STATES)
                c->info.off_unknown += k->count;
        }
        if (locs[s].leaf)
            note_module(x, locs[s].leaf, locs[s].leaf_path, k->count, 0,
                        locs[s].leaf_line ? 0 : k->count);
        if (locs[s].charged)
            note_module(x, locs[s].charged, locs[s].charged_path, 0, k->count, 0);
        samples += k->count;
    }
    free(locs);
    free(mods);
    free(node_phase);
    idmap_free(&nodes);
    if (samples || ll->has_record) {
        c->info.sampled_workers++;
        c->info.has_lines = 1;
    }
    c->info.samples += ll->has_record && ll->rec.samples > samples ? ll->rec.samples : samples;
    c->counted += samples;
    if (ll->has_record && ll->rec.signals)
        c->signals += ll->rec.signals;
    else if (samples)
        c->signals_unsaid = 1;
    c->info.dropped += ll->rec.dropped;
    c->info.truncated += ll->rec.truncated;
}

/* Caveats for the modules samples ran in that gave no lines. */
static int module_caveats(load_ctx *x, run_model *m) {
    lines_cache *c = x->c;
    uint64_t total = 0;
    for (size_t i = 0; i < c->ngroups; i++)
        total += c->groups[i].count;
    sym_module **mods = malloc((x->nnotes + 1) * sizeof *mods);
    if (!mods)
        return -1;
    for (size_t i = 0; i < x->nnotes; i++)
        mods[i] = x->notes[i].mod;
    lines_sym_explain(c->sym, mods, x->nnotes); /* what would give them lines */
    free(mods);
    for (size_t i = 0; i < x->nnotes; i++) {
        const char *why;
        enum sym_state st = lines_sym_state(x->notes[i].mod, &why);
        uint64_t ran_there = x->notes[i].samples;
        if (st == SYM_LINES) {
            /* Debug info for part of it (objects built with -g and without,
             * linker stubs): said where at least 1% of the samples found
             * none; their rows say "no line information" anyway. */
            if ((x->notes[i].nolines + x->notes[i].charged) * 100 < total)
                continue;
            why = "its debug info does not cover all of it (code built without -g, or linker "
                  "stubs): functions from its symbols there; a build with -g gives lines";
            ran_there = x->notes[i].nolines;
        } else
            c->info.unsymbolized++;
        char path[300];
        scope_escape((const uint8_t *)x->notes[i].path.s, x->notes[i].path.len, path, sizeof path,
                     0);
        double pc = total ? 100.0 * (double)ran_there / (double)total : 0;
        double charged = total ? 100.0 * (double)x->notes[i].charged / (double)total : 0;
        char ran[160];
        if (x->notes[i].charged)
            snprintf(ran, sizeof ran,
                     "%.1f%% of the line samples ran there and %.1f%% in what it called (charged "
                     "to it); they show",
                     pc, charged);
        else
            snprintf(ran, sizeof ran, "%.1f%% of the line samples ran there%s and show", pc,
                     st == SYM_LINES ? " without a line" : "");
        if (run_caveat_append(m, run_model_arena(m), RUN_CAVEAT_LINES, SIZE_MAX, "%s: %s; %s as %s",
                              path, why, ran,
                              st == SYM_FUNCTIONS || st == SYM_LINES ? "functions, not lines"
                                                                     : "?? (function unknown)") < 0)
            return -1;
    }
    return 0;
}

/* Whether every sampled process agrees on a figure. */
static void settle_info(lines_cache *c, run_model *m, worker_log *logs) {
    int hz_set = 0, hz_same = 1, proj_set = 0, proj_same = 1;
    for (size_t w = 0; w < m->nworkers; w++) {
        const log_lines *ll = &logs[w].lines;
        if (m->workers[w].role_index == SIZE_MAX || !ll->has_record)
            continue;
        if (!hz_set)
            c->info.hz = ll->rec.hz, hz_set = 1;
        else if (c->info.hz != ll->rec.hz)
            hz_same = 0;
        if (!proj_set)
            c->info.project = ll->project, proj_set = 1;
        else if (!run_str_eq(c->info.project, ll->project))
            proj_same = 0;
    }
    if (!hz_same)
        c->info.hz = 0;
    /* Above the kernel's tick a signal carries several periods: a share's
     * uncertainty rests on the signals, not on the periods they carry. */
    c->info.per_signal = 1;
    if (!c->signals_unsaid && c->signals && c->counted > c->signals)
        c->info.per_signal = (double)c->counted / (double)c->signals;
    if (!proj_same)
        c->info.project = (run_str){"", 0};
}

/* SCOPE_SYMBOLIZE, for the tests and bench/bench_symbolize.sh, which
 * compare the ways: "per-process", each process symbolized by a symbolizer
 * of its own that asks libdwfl every address, as a reader that shares
 * nothing would; "no-index", one symbolizer asking libdwfl every address;
 * unset, one symbolizer with each module's symbol index. */
static int mode_is(const char *mode) {
    const char *v = getenv("SCOPE_SYMBOLIZE");
    return v && !strcmp(v, mode);
}

static void add_counts(lines_sym_count *to, const lines_symbolizer *s) {
    lines_sym_count k;
    lines_sym_counts(s, &k);
    to->modules += k.modules;
    to->files_opened += k.files_opened;
    to->addresses += k.addresses;
    to->searches += k.searches;
}

/* Starts a process of the per-process mode with a symbolizer of its own. */
static int own_symbolizer(lines_cache *c) {
    lines_symbolizer *s = lines_sym_new();
    if (!s || SCOPE_VEC_RESERVE(c->per_process, c->cap_per_process, c->nper_process + 1) < 0) {
        lines_sym_free(s);
        return -1;
    }
    lines_sym_use_index(s, 0);
    c->per_process[c->nper_process++] = s;
    c->sym = s;
    return 0;
}

int run_lines_load(run_model *m, const char *source_dir, run_lines_info *info, char *msg,
                   size_t msglen) {
    return run_lines_load_with(m, source_dir, NULL, info, msg, msglen);
}

int run_lines_load_with(run_model *m, const char *source_dir, lines_symbolizer *shared,
                        run_lines_info *info, char *msg, size_t msglen) {
    lines_cache *c = run_model_extension(m);
    if (c) {
        if (info)
            *info = c->info;
        return 0;
    }
    if (run_model_needs_logs(m, "its line samples (hot lines, stacks, the flame graph)", msg,
                             msglen) < 0)
        return -1;
    progress prog = {0};
    c = calloc(1, sizeof *c);
    load_ctx x = {.c = c, .per_process = mode_is("per-process")};
    if (!c)
        goto nomem;
    c->sym = x.per_process ? NULL : shared;
    c->own_sym = !x.per_process && !shared;
    if (c->own_sym && !(c->sym = lines_sym_new()))
        goto nomem;
    if (c->sym && mode_is("no-index"))
        lines_sym_use_index(c->sym, 0);
    lines_sym_count before = {0};
    if (c->sym)
        lines_sym_counts(c->sym, &before);
    if (source_dir && !(c->source_dir = arena_dup(&c->mem, source_dir, strlen(source_dir))))
        goto nomem;
    worker_log *logs = run_model_logs(m);
    size_t nsampled = 0, done = 0;
    for (size_t w = 0; w < m->nworkers; w++)
        nsampled += m->workers[w].role_index != SIZE_MAX &&
                    (logs[w].lines.ncounts || logs[w].lines.has_record);
    progress_begin(&prog, "symbolizing the line samples", "process", "processes", nsampled);
    for (size_t w = 0; w < m->nworkers && !c->nomem; w++) {
        if (m->workers[w].role_index == SIZE_MAX)
            continue;
        worker_log *log = &logs[w];
        if (log->lines.ncounts || log->lines.has_record)
            progress_step(&prog, done++);
        if (x.per_process && (log->lines.ncounts || log->lines.has_record) && own_symbolizer(c) < 0)
            goto nomem;
        if (log->lines.ncounts || log->lines.has_record)
            load_worker(&x, m, w, log);
        if (log->lines.nmeasured)
            load_measured(c, m, w, log);
    }
    progress_end(&prog);
    settle_info(c, m, logs);
    if (c->nomem || module_caveats(&x, m) < 0 ||
        lines_sample_count_caveat(m, c->info.samples, c->info.per_signal, c->info.hz) < 0)
        goto nomem;
    /* This model's share of the work: a shared symbolizer's counts less
     * what it had done before. */
    if (x.per_process)
        for (size_t i = 0; i < c->nper_process; i++)
            add_counts(&c->counts, c->per_process[i]);
    else {
        lines_sym_counts(c->sym, &c->counts);
        c->counts.modules -= before.modules;
        c->counts.files_opened -= before.files_opened;
        c->counts.addresses -= before.addresses;
        c->counts.searches -= before.searches;
    }
    free(x.notes);
    run_model_set_extension(m, c, cache_free);
    if (info)
        *info = c->info;
    return 0;
nomem:
    progress_end(&prog);
    free(x.notes);
    cache_free(c);
    if (msg && msglen)
        snprintf(msg, msglen, "out of memory while symbolizing the line samples");
    return -1;
}

/* ---- queries ----------------------------------------------------------------- */

/* Which groups a phase selects: its role (or its one process, for a phase of
 * run_worker_role's tree) and the same phase in the role's merged tree. */
typedef struct phase_sel {
    size_t role;   /* SIZE_MAX: any */
    size_t worker; /* SIZE_MAX: any */
    const run_phase *target;
    int all; /* the root: every sample of the role or process, in a phase or not */
} phase_sel;

static int select_phase(run_model *m, const run_phase *p, phase_sel *sel) {
    const run_phase *names[RUN_MAX_DEPTH + 1];
    size_t n = 0;
    const run_phase *root = p;
    while (root->parent && n <= RUN_MAX_DEPTH)
        names[n++] = root, root = root->parent;
    *sel = (phase_sel){SIZE_MAX, SIZE_MAX, NULL, 0};
    for (size_t r = 0; r < m->nroles; r++)
        if (m->roles[r].root == root)
            sel->role = r;
    if (sel->role == SIZE_MAX) {
        size_t w = run_model_alone_worker(m, root);
        if (w == SIZE_MAX || m->workers[w].role_index == SIZE_MAX)
            return -1;
        sel->worker = w;
        sel->role = m->workers[w].role_index;
    }
    const run_phase *t = m->roles[sel->role].root;
    for (size_t k = n; k > 0 && t; k--)
        t = run_phase_child(t, names[k - 1]->name.s, names[k - 1]->name.len);
    if (!t)
        return -1;
    sel->target = t;
    sel->all = t->depth == 0;
    return 0;
}

static int in_phase(const run_phase *p, const phase_sel *sel) {
    if (sel->all)
        return 1;
    for (; p && p->depth >= sel->target->depth; p = p->parent)
        if (p == sel->target)
            return 1;
    return 0;
}

static int cmp_str(run_str a, run_str b) {
    return run_str_cmp(a, b);
}

/* Samples of a sampled row, hits of a measured one: how often it was seen. */
static uint64_t seen(const run_line *l) {
    return l->kind == RUN_LINE_MEASURED ? l->hits : l->samples;
}

static int by_samples(const void *a, const void *b) {
    const run_line *x = a, *y = b;
    if (seen(x) != seen(y))
        return seen(x) > seen(y) ? -1 : 1;
    if (x->seconds != y->seconds)
        return x->seconds > y->seconds ? -1 : 1;
    int c = cmp_str(x->file, y->file);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

static int by_time(const void *a, const void *b) {
    const run_line *x = a, *y = b;
    if (x->seconds != y->seconds)
        return x->seconds > y->seconds ? -1 : 1;
    return by_samples(a, b);
}

static int by_line(const void *a, const void *b) {
    const run_line *x = a, *y = b;
    int c = cmp_str(x->file, y->file);
    if (c)
        return c;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    c = cmp_str(x->function, y->function);
    if (!c)
        c = cmp_str(x->module, y->module);
    return c ? c : (int)x->kind - (int)y->kind;
}

static const run_line *sort_rows; /* qsort has no context argument */

static int fn_by_samples(const void *a, const void *b) {
    const run_lines_function *x = a, *y = b;
    if (x->seconds != y->seconds)
        return x->seconds > y->seconds ? -1 : 1;
    if (x->samples != y->samples)
        return x->samples > y->samples ? -1 : 1;
    int c = cmp_str(x->function, y->function);
    return c ? c : cmp_str(x->file, y->file);
}

/* Row indexes grouped by function: function (name, file, module), then line. */
static int row_by_function(const void *a, const void *b) {
    const run_line *x = &sort_rows[*(const size_t *)a], *y = &sort_rows[*(const size_t *)b];
    int c = cmp_str(x->function, y->function);
    if (!c)
        c = cmp_str(x->file, y->file);
    if (!c)
        c = cmp_str(x->module, y->module);
    if (!c)
        c = (int)x->kind - (int)y->kind;
    if (!c && x->line != y->line)
        c = x->line < y->line ? -1 : 1;
    return c;
}

/* One standard deviation of a share of n samples, brought per_signal to a
 * sampling signal: the signals are the independent looks. */
double run_lines_share_sd(double share, uint64_t n, double per_signal) {
    double looks = (double)n / (per_signal > 1 ? per_signal : 1);
    return n ? sqrt(share * (1 - share) / looks) : NAN;
}

static int group_functions(run_lines_result *r) {
    r->function_rows = malloc((r->nrows + 1) * sizeof *r->function_rows);
    r->functions = calloc(r->nrows + 1, sizeof *r->functions);
    if (!r->function_rows || !r->functions)
        return -1;
    for (size_t i = 0; i < r->nrows; i++)
        r->function_rows[i] = i;
    sort_rows = r->rows;
    qsort(r->function_rows, r->nrows, sizeof *r->function_rows, row_by_function);
    for (size_t i = 0; i < r->nrows;) {
        const run_line *first = &r->rows[r->function_rows[i]];
        run_lines_function *f = &r->functions[r->nfunctions++];
        *f = (run_lines_function){.kind = first->kind,
                                  .function = first->function,
                                  .linkage = first->linkage,
                                  .file = first->file,
                                  .module = first->module,
                                  .first_row = i};
        for (; i < r->nrows; i++) {
            const run_line *l = &r->rows[r->function_rows[i]];
            if (!run_str_eq(l->function, f->function) || !run_str_eq(l->file, f->file) ||
                !run_str_eq(l->module, f->module) || l->kind != f->kind)
                break;
            f->nrows++;
            f->samples += l->samples;
            f->hits += l->hits;
            f->seconds += l->seconds;
            if (l->line && (!f->first_line || l->line < f->first_line))
                f->first_line = l->line;
            if (l->line > f->last_line)
                f->last_line = l->line;
            if (l->def_line && (!f->def_line || l->def_line < f->def_line))
                f->def_line = l->def_line;
        }
        if (f->kind == RUN_LINE_MEASURED) {
            f->share = r->measured_seconds > 0 ? f->seconds / r->measured_seconds : 0;
            f->share_sd = NAN;
        } else {
            f->share = r->samples ? (double)f->samples / (double)r->samples : 0;
            f->share_sd = run_lines_share_sd(f->share, r->samples, r->per_signal);
        }
    }
    /* Ties keep the grouping's order: qsort is not stable, so break them by name. */
    qsort(r->functions, r->nfunctions, sizeof *r->functions, fn_by_samples);
    return 0;
}

/* Whether a location's function is named name (n bytes), as shown or as
 * linked. */
static int named(const lines_loc *l, const char *name, size_t n) {
    return (l->function.len == n && !memcmp(l->function.s, name, n)) ||
           (l->linkage.len == n && !memcmp(l->linkage.s, name, n));
}

const char *run_lines_how_to_record(const run_model *m) {
    if (m->source.len) /* only the scope-profiler importer names a source */
        return "ProfileManager.setup(use_line_profiler=True) in the program records them";
    return "record them with SCOPE_LINES=1 in the environment, or scope-tui record -- CMD";
}

const char *run_lines_switch(const run_model *m) {
    return m->source.len ? "ProfileManager.setup(use_line_profiler=True) in the program"
                         : "SCOPE_LINES=1";
}

/* Which groups a query selects. */
typedef struct group_filter {
    const run_lines_query *q;
    size_t role; /* SIZE_MAX: any */
    phase_sel sel;
} group_filter;

/* The loaded cache for a query and its filter; NULL with msg set when the
 * run has no line data or the query names what the run does not have. */
static lines_cache *query_start(run_model *m, const run_lines_query *q, group_filter *f, char *msg,
                                size_t msglen) {
    lines_cache *c = run_model_extension(m);
    if (!c && run_lines_load(m, NULL, NULL, msg, msglen) < 0)
        return NULL;
    c = run_model_extension(m);
    if (!c->info.has_lines) {
        snprintf(msg, msglen, "no line samples in this run: %s", run_lines_how_to_record(m));
        return NULL;
    }
    *f = (group_filter){q, SIZE_MAX, {SIZE_MAX, SIZE_MAX, NULL, 1}};
    if (q->role) {
        const run_role *r = run_find_role(m, q->role);
        if (!r) {
            char shown[200];
            scope_escape((const uint8_t *)q->role, strlen(q->role), shown, sizeof shown, 0);
            snprintf(msg, msglen, "no role named '%s' in this run", shown);
            return NULL;
        }
        f->role = (size_t)(r - m->roles);
    }
    if (q->worker != SIZE_MAX && q->worker >= m->nworkers) {
        snprintf(msg, msglen, "no process %zu in this run", q->worker);
        return NULL;
    }
    if (q->phase && select_phase(m, q->phase, &f->sel) < 0) {
        snprintf(msg, msglen, "that phase is not one of this run's");
        return NULL;
    }
    if (q->cpu != RUN_LINES_CPU_ALL && c->info.unsaid_samples) {
        snprintf(msg, msglen,
                 "%s samples: %" PRIu64 " wall-clock samples of this run were written by a "
                 "recorder before log format 1.10, which did not say whether their thread was on "
                 "a CPU; record again to split them",
                 run_lines_cpu_name(q->cpu), c->info.unsaid_samples);
        return NULL;
    }
    if (q->cpu != RUN_LINES_CPU_ALL && q->cpu != RUN_LINES_CPU_ON && !c->info.wall_workers) {
        snprintf(msg, msglen,
                 "no %s samples: this run sampled CPU time, which samples a thread only while it "
                 "runs; record with SCOPE_LINES_CLOCK=wall to see where threads waited",
                 run_lines_cpu_name(q->cpu));
        return NULL;
    }
    return c;
}

const char *run_lines_cpu_name(enum run_lines_cpu cpu) {
    switch (cpu) {
    case RUN_LINES_CPU_ON:
        return "on-CPU";
    case RUN_LINES_CPU_OFF:
        return "off-CPU";
    case RUN_LINES_CPU_BLOCKED:
        return "blocked";
    case RUN_LINES_CPU_QUEUED:
        return "queued";
    case RUN_LINES_CPU_ALL:
        break;
    }
    return "all";
}

/* The bucket of a state a log said: one this reader does not know is off
 * a CPU, of a kind unknown (docs/format.md, OFFCPU_SAMPLES). */
_Static_assert((int)RUN_STATE_ON == (int)SCOPE_CPU_ON &&
                   (int)RUN_STATE_BLOCKED == (int)SCOPE_CPU_BLOCKED &&
                   (int)RUN_STATE_QUEUED == (int)SCOPE_CPU_QUEUED &&
                   (int)RUN_STATE_OFF_UNKNOWN == (int)SCOPE_CPU_STATES,
               "the model's states are the log's, and one more");
_Static_assert(sizeof((run_lines_result *)0)->by_state == RUN_LINES_STATES * sizeof(uint64_t),
               "a count for each state");
static enum run_lines_state state_bucket(uint32_t state) {
    return state < SCOPE_CPU_STATES ? (enum run_lines_state)state : RUN_STATE_OFF_UNKNOWN;
}

/* Whether a sample of this state is one the query counts.  Measured lines
 * are no samples: only a query of every sample counts them. */
static int cpu_selected(enum run_lines_cpu cpu, const lines_group *g) {
    if (cpu == RUN_LINES_CPU_ALL)
        return 1;
    if (g->measured || g->state_unsaid)
        return 0;
    switch (cpu) {
    case RUN_LINES_CPU_ON:
        return g->state == SCOPE_CPU_ON;
    case RUN_LINES_CPU_OFF:
        return g->state != SCOPE_CPU_ON;
    case RUN_LINES_CPU_BLOCKED:
        return g->state == SCOPE_CPU_BLOCKED;
    case RUN_LINES_CPU_QUEUED:
        return g->state == SCOPE_CPU_QUEUED;
    case RUN_LINES_CPU_ALL:
        break;
    }
    return 1;
}

static int group_selected(const run_model *m, const group_filter *f, const lines_group *g) {
    size_t wrole = m->workers[g->worker].role_index;
    if ((f->role != SIZE_MAX && wrole != f->role) ||
        (f->q->worker != SIZE_MAX && g->worker != f->q->worker) || !cpu_selected(f->q->cpu, g))
        return 0;
    return !f->q->phase ||
           (wrole == f->sel.role && (f->sel.worker == SIZE_MAX || g->worker == f->sel.worker) &&
            in_phase(g->phase, &f->sel));
}

int run_lines_select(run_model *m, const run_lines_query *q, run_lines_result *out, char *msg,
                     size_t msglen) {
    memset(out, 0, sizeof *out);
    out->period_ns = NAN;
    out->per_signal = 1;
    group_filter filter;
    lines_cache *c = query_start(m, q, &filter, msg, msglen);
    if (!c)
        return -1;
    out->per_signal = c->info.per_signal;
    size_t fn_len = q->function ? strlen(q->function) : 0;
    typedef struct acc {
        uint64_t samples, hits;
        double seconds;
        int any; /* selected at least once */
    } acc;
    acc *a = calloc(c->nlocs + 1, sizeof *a);
    if (!a)
        goto nomem;
    uint64_t period = 0;
    int period_same = 1;
    for (size_t i = 0; i < c->ngroups; i++) {
        const lines_group *g = &c->groups[i];
        if (!group_selected(m, &filter, g))
            continue;
        if (g->measured) {
            out->hits += g->hits;
            out->measured_seconds += g->seconds;
            if (q->function && !named(&c->locs[g->self], q->function, fn_len))
                continue;
            a[g->self].hits += g->hits;
            a[g->self].seconds += g->seconds;
            a[g->self].any = 1;
            continue;
        }
        double secs = (double)g->count * (double)g->period_ns * 1e-9;
        out->samples += g->count;
        out->seconds += secs;
        if (!g->state_unsaid)
            out->by_state[state_bucket(g->state)] += g->count;
        out->wall |= g->wall;
        if (!period)
            period = g->period_ns;
        else if (period != g->period_ns)
            period_same = 0;
        uint32_t loc = g->self;
        if (q->attr == RUN_LINES_PROJECT) {
            loc = g->project;
            if (g->outside)
                out->outside_project += g->count;
        }
        if (q->function && !named(&c->locs[loc], q->function, fn_len))
            continue;
        a[loc].samples += g->count;
        a[loc].seconds += secs;
        a[loc].any |= g->count > 0;
    }
    if (period && period_same)
        out->period_ns = (double)period;
    size_t nrows = 0;
    for (size_t l = 0; l < c->nlocs; l++)
        nrows += a[l].any;
    out->rows = calloc(nrows + 1, sizeof *out->rows);
    if (!out->rows)
        goto nomem;
    for (size_t l = 0; l < c->nlocs; l++) {
        if (!a[l].any)
            continue;
        const lines_loc *loc = &c->locs[l];
        if (loc->measured) {
            out->rows[out->nrows++] = (run_line){
                .kind = RUN_LINE_MEASURED,
                .file = loc->file,
                .line = loc->line,
                .function = loc->function,
                .linkage = loc->linkage,
                .module = loc->module,
                .hits = a[l].hits,
                .seconds = a[l].seconds,
                .share = out->measured_seconds > 0 ? a[l].seconds / out->measured_seconds : 0,
                .share_sd = NAN,
                .def_line = loc->def_line,
            };
            continue;
        }
        double share = out->samples ? (double)a[l].samples / (double)out->samples : 0;
        out->rows[out->nrows++] = (run_line){
            .file = loc->file,
            .line = loc->line,
            .function = loc->function,
            .linkage = loc->linkage,
            .module = loc->module,
            .samples = a[l].samples,
            .seconds = a[l].seconds,
            .share = share,
            .share_sd = run_lines_share_sd(share, out->samples, out->per_signal),
            .approximate = loc->approximate,
        };
    }
    free(a);
    a = NULL;
    if (q->function && !out->nrows) {
        char shown[200];
        scope_escape((const uint8_t *)q->function, fn_len, shown, sizeof shown, 0);
        snprintf(msg, msglen, "no sampled function is named '%s'", shown);
        run_lines_free(out);
        return -1;
    }
    qsort(out->rows, out->nrows, sizeof *out->rows,
          q->sort == RUN_LINES_BY_LINE      ? by_line
          : q->sort == RUN_LINES_BY_SAMPLES ? by_samples
                                            : by_time);
    if (group_functions(out) < 0)
        goto nomem;
    return 0;
nomem:
    free(a);
    run_lines_free(out);
    snprintf(msg, msglen, "out of memory");
    return -1;
}

void run_lines_free(run_lines_result *r) {
    if (!r)
        return;
    free(r->rows);
    free(r->functions);
    free(r->function_rows);
    memset(r, 0, sizeof *r);
}

/* ---- source files ---------------------------------------------------------- */

/* Reads a regular file of at most MAX_SOURCE_BYTES (its name comes from
 * debug info: a FIFO or a device is not even opened, open_regular.h); NULL
 * with why set. */
static char *read_small(const char *path, size_t *len, const char **why) {
    int fd;
    struct stat st;
    switch (open_regular(path, MAX_SOURCE_BYTES, &fd, &st)) {
    case OPEN_REGULAR_OK:
        break;
    case OPEN_REGULAR_MISSING:
        *why = "no such file";
        return NULL;
    case OPEN_REGULAR_NOT_REGULAR:
        *why = "not a regular file";
        return NULL;
    case OPEN_REGULAR_TOO_LARGE:
        *why = "larger than 16 MiB, not read";
        return NULL;
    case OPEN_REGULAR_UNREADABLE:
    case OPEN_REGULAR_CHANGED:
        *why = "cannot be opened";
        return NULL;
    }
    char *buf = NULL;
    if ((buf = malloc((size_t)st.st_size + 1))) {
        size_t got = 0;
        ssize_t r;
        while (got < (size_t)st.st_size && (r = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
            got += (size_t)r;
        *len = got;
    } else
        *why = "out of memory";
    close(fd);
    return buf;
}

/* Candidates for a recorded file: as recorded, then its trailing
 * components under each project folder and the source folder. */
static char *find_source(lines_cache *c, run_str file, size_t *len, const char **why) {
    char path[4096];
    if (file.len >= sizeof path || memchr(file.s, '\0', file.len)) {
        *why = "its name is not a usable path";
        return NULL;
    }
    const char *first_why = NULL;
    char *text = read_small(file.s, len, &first_why);
    if (text)
        return text;
    run_str roots[MAX_PROJECTS + 1];
    size_t nroots = 0;
    for (size_t i = 0; i < c->nprojects; i++)
        roots[nroots++] = c->projects[i];
    if (c->source_dir)
        roots[nroots++] = (run_str){c->source_dir, strlen(c->source_dir)};
    for (size_t r = 0; r < nroots; r++) {
        /* Each suffix of the path that starts after a '/': a/b/c.c, b/c.c, c.c. */
        for (size_t i = 0; i < file.len; i++) {
            if (i && file.s[i - 1] != '/')
                continue;
            if (file.s[i] == '/')
                continue;
            int n = snprintf(path, sizeof path, "%.*s/%.*s", (int)roots[r].len, roots[r].s,
                             (int)(file.len - i), file.s + i);
            if (n < 0 || (size_t)n >= sizeof path)
                continue;
            const char *w;
            if ((text = read_small(path, len, &w)))
                return text;
        }
    }
    *why = first_why;
    return NULL;
}

/* One line of source as shown: tabs expanded to 8 columns, a trailing CR
 * dropped, the rest escaped (text_escape.h). */
static run_str display_line(lines_cache *c, const char *p, size_t n) {
    if (n && p[n - 1] == '\r')
        n--;
    size_t tabs = 0;
    for (size_t i = 0; i < n; i++)
        tabs += p[i] == '\t';
    char *expanded = malloc(n + 8 * tabs + 1);
    if (!expanded) {
        c->nomem = 1;
        return (run_str){"", 0};
    }
    size_t col = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\t')
            do
                expanded[col++] = ' ';
            while (col % 8);
        else
            expanded[col++] = p[i];
    }
    size_t need = scope_escape((const uint8_t *)expanded, col, NULL, 0, 0);
    char *out = arena_alloc(&c->mem, need + 1);
    if (out)
        scope_escape((const uint8_t *)expanded, col, out, need + 1, 0);
    else
        c->nomem = 1;
    free(expanded);
    return out ? (run_str){out, need} : (run_str){"", 0};
}

size_t run_lines_source(run_model *m, run_str file, const run_str **lines, char *why,
                        size_t whylen) {
    *lines = NULL;
    lines_cache *c = run_model_extension(m);
    if (!c && run_lines_load(m, NULL, NULL, why, whylen) < 0)
        return 0;
    c = run_model_extension(m);
    for (size_t i = 0; i < c->nsources; i++)
        if (run_str_eq(c->sources[i].file, file)) {
            snprintf(why, whylen, "%s", c->sources[i].why);
            *lines = c->sources[i].lines;
            return c->sources[i].nlines;
        }
    if (!file.len) {
        snprintf(why, whylen, "no source file is known for it");
        return 0;
    }
    if (c->nsources >= MAX_SOURCES) { /* each one read is kept: a bound on memory */
        snprintf(why, whylen, "%d source files were read already; no more are", MAX_SOURCES);
        return 0;
    }
    size_t len = 0;
    const char *reason = "not found";
    char *text = find_source(c, file, &len, &reason);
    lines_source src = {.file = intern(c, file.s, file.len)};
    if (text) {
        size_t n = 0;
        for (size_t i = 0; i < len; i++)
            n += text[i] == '\n';
        n += len && text[len - 1] != '\n';
        src.lines = arena_alloc(&c->mem, (n + 1) * sizeof *src.lines);
        for (size_t i = 0, start = 0; src.lines && i <= len && src.nlines < n; i++)
            if (i == len || text[i] == '\n') {
                src.lines[src.nlines++] = display_line(c, text + start, i - start);
                start = i + 1;
            }
        free(text);
        if (!src.lines) {
            snprintf(why, whylen, "out of memory");
            return 0;
        }
        if (!n)
            snprintf(src.why, sizeof src.why, "the file is empty");
    } else {
        snprintf(src.why, sizeof src.why, "source not found (%s)", reason);
    }
    snprintf(why, whylen, "%s", src.why);
    if (c->nsources < MAX_SOURCES &&
        SCOPE_VEC_RESERVE(c->sources, c->cap_sources, c->nsources + 1) == 0)
        c->sources[c->nsources++] = src;
    *lines = src.lines;
    return src.nlines;
}

/* ---- call paths (lines_paths.h) --------------------------------------------- */

/* The slot of (role, node) in the open-addressed index over out->v. */
static uint32_t *path_slot(uint32_t *slots, size_t cap, const lines_paths *out, size_t role,
                           uint32_t node) {
    uint64_t h =
        ((uint64_t)role * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)node * 0xc2b2ae3d27d4eb4full);
    size_t i = (size_t)(h ^ (h >> 29)) & (cap - 1);
    for (;; i = (i + 1) & (cap - 1)) {
        uint32_t v = slots[i];
        if (!v || (out->v[v - 1].role == role && out->v[v - 1].node == node))
            return &slots[i];
    }
}

int lines_paths_select(run_model *m, const run_lines_query *q, lines_paths *out, char *msg,
                       size_t msglen) {
    memset(out, 0, sizeof *out);
    out->period_ns = NAN;
    group_filter filter;
    lines_cache *c = query_start(m, q, &filter, msg, msglen);
    if (!c)
        return -1;
    out->tree = &c->tree;
    out->per_signal = c->info.per_signal;
    struct paths_memo *memo = &c->memo;
    if (memo->valid && memo->worker == q->worker && memo->phase == q->phase &&
        memo->cpu == q->cpu && (!memo->role == !q->role) &&
        (!q->role || !strcmp(memo->role, q->role))) {
        if (memo->n && !(out->v = malloc(memo->n * sizeof *out->v))) {
            snprintf(msg, msglen, "out of memory");
            return -1;
        }
        if (memo->n)
            memcpy(out->v, memo->v, memo->n * sizeof *out->v);
        out->n = memo->n;
        out->samples = memo->samples;
        out->seconds = memo->seconds;
        out->period_ns = memo->period_ns;
        return 0;
    }
    /* Summed by (role, node) as they are read: a run has far more sample
     * groups (process x thread x phase x stack) than distinct paths. */
    size_t cap = 0, cap_slots = 0;
    uint32_t *slots = NULL;
    uint64_t period = 0;
    int period_same = 1;
    for (size_t i = 0; i < c->ngroups; i++) {
        const lines_group *g = &c->groups[i];
        if (g->measured || !g->count || !group_selected(m, &filter, g))
            continue;
        size_t role = m->workers[g->worker].role_index;
        double secs = (double)g->count * (double)g->period_ns * 1e-9;
        out->samples += g->count;
        out->seconds += secs;
        if (!period)
            period = g->period_ns;
        else if (period != g->period_ns)
            period_same = 0;
        int grown = slots_grow(&slots, &cap_slots, out->n);
        if (grown < 0)
            goto nomem;
        if (grown) {
            for (size_t k = 0; k < out->n; k++)
                *path_slot(slots, cap_slots, out, out->v[k].role, out->v[k].node) = (uint32_t)k + 1;
        }
        uint32_t *slot = path_slot(slots, cap_slots, out, role, g->path);
        if (*slot) {
            out->v[*slot - 1].count += g->count;
            out->v[*slot - 1].seconds += secs;
            continue;
        }
        if (out->n >= UINT32_MAX - 1 || SCOPE_VEC_RESERVE(out->v, cap, out->n + 1) < 0)
            goto nomem;
        out->v[out->n++] = (lines_path_count){role, g->path, g->count, secs};
        *slot = (uint32_t)out->n;
    }
    free(slots);
    if (period && period_same)
        out->period_ns = (double)period;
    /* Kept for the next same query, when memory allows; else not kept. */
    free(memo->v);
    free(memo->role);
    *memo = (struct paths_memo){0};
    memo->role = q->role ? strdup(q->role) : NULL;
    memo->v = out->n ? malloc(out->n * sizeof *memo->v) : NULL;
    if ((!q->role || memo->role) && (!out->n || memo->v)) {
        if (out->n)
            memcpy(memo->v, out->v, out->n * sizeof *memo->v);
        memo->valid = 1;
        memo->worker = q->worker;
        memo->phase = q->phase;
        memo->cpu = q->cpu;
        memo->n = out->n;
        memo->samples = out->samples;
        memo->seconds = out->seconds;
        memo->period_ns = out->period_ns;
    }
    return 0;
nomem:
    free(slots);
    lines_paths_free(out);
    snprintf(msg, msglen, "out of memory");
    return -1;
}

void lines_paths_free(lines_paths *p) {
    free(p->v);
    memset(p, 0, sizeof *p);
    p->period_ns = NAN;
}

void lines_paths_frame(run_model *m, uint32_t loc, run_line *out, int *in_project) {
    const lines_cache *c = run_model_extension(m);
    if (!c || loc >= c->nlocs) {
        if (in_project)
            *in_project = 0;
        *out = (run_line){.function = {unknown_fn, 2}, .approximate = 1};
        return;
    }
    const lines_loc *l = &c->locs[loc];
    if (in_project)
        *in_project = l->in_project;
    *out = (run_line){.file = l->file,
                      .line = l->line,
                      .function = l->function,
                      .module = l->module,
                      .approximate = l->approximate};
}

int run_lines_counts(run_model *m, lines_sym_count *out) {
    const lines_cache *c = run_model_extension(m);
    if (!c)
        return -1;
    *out = c->counts;
    return 0;
}
