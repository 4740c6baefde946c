/*
 * libFuzzer target for the whole analysis (fuzz_run_load): hostile logs
 * through run_load, the merge, the caveats, the text report and the JSON.
 *
 * The input is a run of 1 to SCOPE_FUZZ_MAX_LOGS worker logs separated by
 * SCOPE_FUZZ_LOG_SEP (fuzz_common.h).  Each log is the decompressed record
 * streams of its data frames, separated by SCOPE_FUZZ_FRAME_SEP, as in
 * fuzz_log_records.  The harness writes every log through the real writer
 * into a private run directory, log i into the folder the recorder makes
 * for host_names[i] ("h", ".", ".."), so every input also checks that the
 * reader finds a log whatever its host is called.  Each record is added with
 * scope_log_writer_add_raw and each frame closed with the clocks, reason and
 * flags of the FRAME record it starts with (the writer numbers the frames
 * itself, and keeps last_snapshot), so a snapshot flag in the input makes the
 * loader start reading at that frame (docs/format.md 9.8).
 * So the fuzzer mutates records (ids, parents, names, figures, bins, marks,
 * identities), not zstd bytes that would only fail their checksum, and every
 * log is readable; what the reader must survive is fuzz_log_reader's job.
 * SCOPE_FUZZ_LOST_SEP and SCOPE_FUZZ_TORN_SEP separate frames too, and cut
 * the frame before them out of the file or in half, for the frames-lost,
 * damaged and truncated paths of the analysis.
 *
 * Then run_load (one loader thread), checks of the model's structure (every
 * index in range, every tree link consistent, the lookups finding what is
 * there), report_text_print in a style chosen from the input and
 * report_json_print into memory, checks that neither output holds a raw
 * control character (but newlines, the JSON's tabs and the colour style's
 * own SGR sequences) or a format character that can disguise a name
 * (text_escape.h); then the hot lines: symbolized (module paths come from
 * the input, so the symbolizer meets whatever they name), selected whole,
 * per attribution and per top-level phase, printed as `scope-tui lines`
 * prints them and as JSON, with the same checks; and run_free.  Since
 * every log has an
 * intact header, run_load must succeed: any error, out of memory included,
 * is a bug (the allocations here are small; one log failing is a caveat,
 * never a failed load).  ASan, UBSan and LeakSanitizer do the rest.
 *
 * Built with SCOPE_FUZZ_TUI (the fuzz_tui target), the browser takes the
 * reports' place: the model is walked through every view headless
 * (fuzz_tui_walk.c).
 *
 * With SCOPE_FUZZ_SHOW=1 in the environment the reports also go to stdout,
 * to see what an input loads as (build-fuzz/tests/fuzz/fuzz_run_load FILE).
 *
 * The run directory is made once per process (under /dev/shm when it can
 * be written, so no disk is touched, else $TMPDIR or /tmp) and removed at
 * exit; a crashed process leaves it behind, named scope-fuzz-run-*.
 */
#define _GNU_SOURCE /* memmem */
#include "export_formats.h"
#include "fuzz_common.h"
#include "lines_json.h"
#include "lines_symbolize.h"
#include "lines_text.h"
#include "report_json.h"
#include "report_text.h"
#include "run_model.h"
#include "text_escape.h"
#ifdef SCOPE_FUZZ_TUI
#include "fuzz_tui_walk.h"
#endif

#include <scope/host_dir.h>
#include <scope/log_format.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_dir[4096];                           /* the run directory */
static char g_log[SCOPE_FUZZ_MAX_LOGS][4096 + 64]; /* its worker logs */
static unsigned g_nlogs;                           /* logs the previous input left */
static int g_show;                                 /* SCOPE_FUZZ_SHOW: print the reports */

static void die(const char *what) {
    fprintf(stderr, "fuzz: %s: %s\n", what, strerror(errno));
    abort();
}

/* ---- the run directory ---------------------------------------------------- */

/* The host of each log, as the recorder would name its folder. */
static const char *const host_names[SCOPE_FUZZ_MAX_LOGS] = {"h", ".", ".."};

static void host_dir(unsigned i, char *path, size_t cap) {
    char folder[SCOPE_HOST_DIR_CAP];
    if (scope_host_dir_encode(host_names[i], strlen(host_names[i]), folder, sizeof folder) < 0)
        abort();
    snprintf(path, cap, "%s/workers/%s", g_dir, folder);
}

static void remove_run_dir(void) {
    char path[4096 + 32];
    for (unsigned i = 0; i < SCOPE_FUZZ_MAX_LOGS; i++) {
        unlink(g_log[i]);
        host_dir(i, path, sizeof path);
        rmdir(path);
    }
    snprintf(path, sizeof path, "%s/workers", g_dir);
    rmdir(path);
    rmdir(g_dir);
}

static void make_run_dir(void) {
    const char *base = getenv("TMPDIR");
    struct stat st;
    if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0)
        base = "/dev/shm";
    else if (!base || !*base)
        base = "/tmp";
    snprintf(g_dir, sizeof g_dir, "%s/scope-fuzz-run-XXXXXX", base);
    if (!mkdtemp(g_dir))
        die(g_dir);
    char path[4096 + 32];
    snprintf(path, sizeof path, "%s/workers", g_dir);
    if (mkdir(path, 0700) < 0)
        die(path);
    for (unsigned i = 0; i < SCOPE_FUZZ_MAX_LOGS; i++) {
        host_dir(i, path, sizeof path);
        if (mkdir(path, 0700) < 0)
            die(path);
        snprintf(g_log[i], sizeof g_log[i], "%s/w%u." SCOPE_LOG_FILE_EXT, path, i);
    }
    atexit(remove_run_dir);
}

/* ---- writing one log -------------------------------------------------------- */

/* LEB128, as the format writes it.  Returns 0 at the end of the input or on a
 * varint longer than 64 bits. */
static int get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
    *v = 0;
    for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
        uint8_t b = *(*p)++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return 1;
    }
    return 0;
}

enum fate { FRAME_KEPT, FRAME_LOST, FRAME_TORN };

/* The first frame separator at or after p, and what it does to the frame
 * before it; NULL when none. */
static const uint8_t *next_frame_sep(const uint8_t *p, const uint8_t *end, enum fate *fate,
                                     size_t *seplen) {
    static const struct {
        const char *sep;
        size_t len;
        enum fate fate;
    } seps[] = {
        {SCOPE_FUZZ_FRAME_SEP, SCOPE_FUZZ_FRAME_SEP_LEN, FRAME_KEPT},
        {SCOPE_FUZZ_LOST_SEP, SCOPE_FUZZ_LOST_SEP_LEN, FRAME_LOST},
        {SCOPE_FUZZ_TORN_SEP, SCOPE_FUZZ_TORN_SEP_LEN, FRAME_TORN},
    };
    const uint8_t *best = NULL;
    for (size_t i = 0; i < sizeof seps / sizeof seps[0]; i++) {
        /* Only one starting before the best so far can win (separators may
         * overlap: they all begin and end with a newline). */
        size_t room = (size_t)(end - p);
        if (best && (size_t)(best - p) + seps[i].len - 1 < room)
            room = (size_t)(best - p) + seps[i].len - 1;
        const uint8_t *s = memmem(p, room, seps[i].sep, seps[i].len);
        if (s && (!best || s < best)) {
            best = s;
            *fate = seps[i].fate;
            *seplen = seps[i].len;
        }
    }
    return best;
}

/* Adds the records of one frame's stream to the writer and closes the frame.
 * A FRAME record first gives the frame's clocks and reason; later FRAME
 * records are dropped (the writer writes the one FRAME record itself), and
 * so is whatever follows a record header that runs past the end. */
static long write_frame(scope_log_writer *w, const uint8_t *p, const uint8_t *end) {
    uint64_t mono = 0, wall = 0, reason = 0, flags = 0;
    for (int first = 1; p < end; first = 0) {
        uint64_t type, len;
        if (!get_varint(&p, end, &type) || !get_varint(&p, end, &len) || len > (uint64_t)(end - p))
            break;
        const uint8_t *body = p;
        p += len;
        if (type == SCOPE_REC_FRAME) {
            uint64_t seq;
            const uint8_t *f = body;
            if (first && get_varint(&f, body + len, &seq) && get_varint(&f, body + len, &mono) &&
                get_varint(&f, body + len, &wall) && get_varint(&f, body + len, &reason))
                get_varint(&f, body + len, &flags);
            continue;
        }
        if (type > UINT32_MAX)
            continue; /* not a type the writer can write */
        int rc = scope_log_writer_add_raw(w, (uint32_t)type, body, (size_t)len);
        if (rc < 0) {
            fprintf(stderr, "fuzz: scope_log_writer_add_raw(type %llu, %llu bytes): %s\n",
                    (unsigned long long)type, (unsigned long long)len, strerror(-rc));
            abort();
        }
    }
    /* Its flags too: a snapshot frame makes the loader start there (9.8). */
    long n = scope_log_writer_close_frame_flags(w, (uint32_t)reason, (uint32_t)flags, mono, wall);
    if (n < 0) {
        fprintf(stderr, "fuzz: scope_log_writer_close_frame: %s\n", strerror((int)-n));
        abort();
    }
    return n;
}

/* Writes log text p[0..len) to path: no bytes, a header alone; otherwise one
 * frame per piece between frame separators, except an empty piece after a
 * separator that ends the text. */
static void write_log(const char *path, const uint8_t *p, size_t len) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0)
        die(path);
    /* A small first frame buffer and a fast level: inputs are small, and the
     * writer grows the buffer for a larger frame by itself. */
    scope_log_writer_options opt = {.level = 1, .max_frame_hint = 16384};
    scope_log_writer *w = NULL;
    int rc = scope_log_writer_open(&w, fd, &opt);
    if (rc < 0) {
        errno = -rc;
        die("scope_log_writer_open");
    }
    uint64_t size = scope_log_writer_bytes(w); /* the header */
    const uint8_t *end = p + len;
    while (len) {
        enum fate fate = FRAME_KEPT;
        size_t seplen = 0;
        const uint8_t *sep = next_frame_sep(p, end, &fate, &seplen);
        uint64_t n = (uint64_t)write_frame(w, p, sep ? sep : end);
        if (fate == FRAME_LOST) {
            if (ftruncate(fd, (off_t)size) < 0)
                die("ftruncate");
        } else if (fate == FRAME_TORN) {
            size += n / 2;
            if (ftruncate(fd, (off_t)size) < 0)
                die("ftruncate");
        } else {
            size += n;
        }
        if (!sep || sep + seplen == end)
            break;
        p = sep + seplen;
    }
    scope_log_writer_free(w);
    if (close(fd) < 0)
        die(path);
}

/* ---- checking the model ------------------------------------------------------ */

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz: model check failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__);  \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* Children per phase checked through the lookups of run_model.h. */
#define LOOKUPS 8

/* A buffer holds a terminated string of fewer than cap bytes. */
static void check_terminated(const char *buf, size_t cap) {
    CHECK(memchr(buf, '\0', cap) != NULL);
}

static int plain_name(run_str s) {
    return s.len && !memchr(s.s, '\0', s.len) && !memchr(s.s, '/', s.len);
}

static void check_phase(const run_model *m, const run_role *r, const run_phase *p, size_t *n) {
    char path[48];
    run_phase_path(p, path, sizeof path);
    check_terminated(path, sizeof path);
    CHECK(p->name.s && p->name.s[p->name.len] == '\0');
    CHECK(p->nprocs <= r->nprocs);
    CHECK(p->spread_max_worker == SIZE_MAX || p->spread_max_worker < m->nworkers);
    CHECK(!p->ncounters || p->counters);
    for (size_t i = 0; i < p->ncounters; i++)
        CHECK(p->counters[i].name.s);
    for (size_t i = 0; i < p->nchildren; i++) {
        const run_phase *k = p->children[i];
        CHECK(k && k->parent == p && k->depth == p->depth + 1 && k->depth <= RUN_MAX_DEPTH);
        /* Children are told apart by name, so a lookup by name finds this
         * one.  The lookup scans the children: asked of the first few only,
         * or a phase with thousands of them would make this quadratic. */
        if (i < LOOKUPS)
            CHECK(run_phase_child(p, k->name.s, k->name.len) == k);
        (*n)++;
        check_phase(m, r, k, n);
    }
}

static void check_model(const run_model *m, unsigned nlogs) {
    char label[40];
    CHECK(m->nworkers == nlogs);
    size_t placed = 0;
    for (size_t i = 0; i < m->nworkers; i++) {
        const run_worker *w = &m->workers[i];
        CHECK(w->readable); /* the writer always wrote an intact header */
        CHECK(w->attempt == SIZE_MAX || w->attempt < m->nattempts);
        CHECK(w->role_index == SIZE_MAX || w->role_index < m->nroles);
        CHECK(w->has_process || w->attempt == SIZE_MAX);
        placed += w->attempt != SIZE_MAX;
        run_worker_label(m, i, label, sizeof label);
        check_terminated(label, sizeof label);
    }
    size_t in_attempts = 0;
    for (size_t a = 0; a < m->nattempts; a++)
        in_attempts += m->attempts[a].nworkers;
    CHECK(in_attempts == placed);

    size_t in_roles = 0;
    for (size_t r = 0; r < m->nroles; r++) {
        const run_role *role = &m->roles[r];
        in_roles += role->nprocs;
        for (size_t k = 0; k < role->nprocs; k++) {
            CHECK(role->workers[k] < m->nworkers);
            CHECK(m->workers[role->workers[k]].role_index == r);
        }
        CHECK(role->slowest_worker == SIZE_MAX || role->slowest_worker < m->nworkers);
        CHECK(role->root && !role->root->parent && role->root->depth == 0);
        size_t nphases = 0;
        check_phase(m, role, role->root, &nphases);
        CHECK(nphases == role->nphases);
        CHECK(role->ndominant <= role->nphases);
        for (size_t i = 0; i < role->ndominant; i++)
            CHECK(role->dominant[i] && role->dominant[i]->depth >= 1);
        CHECK(!role->nunattached || role->unattached);
        if (!memchr(role->name.s, '\0', role->name.len)) {
            /* Roles are told apart by name, so the lookup finds this one. */
            CHECK(run_find_role(m, role->name.s) == role);
        }
        for (size_t i = 0; i < role->root->nchildren && i < LOOKUPS; i++) {
            const run_phase *top = role->root->children[i];
            if (plain_name(top->name))
                CHECK(run_find_phase(role, top->name.s) == top);
        }
    }
    CHECK(in_roles == m->nprocs);

    for (size_t i = 0; i < m->ncaveats; i++) {
        const run_caveat *c = &m->caveats[i];
        CHECK(c->text);
        CHECK(c->worker == SIZE_MAX || c->worker < m->nworkers);
        CHECK((unsigned)c->kind < RUN_CAVEAT_KIND_LIMIT);
        CHECK(run_caveat_kind_name(c->kind) != NULL);
    }
}

/* ---- the target ------------------------------------------------------------ */

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    make_run_dir();
    const char *show = getenv("SCOPE_FUZZ_SHOW");
    g_show = show && *show && strcmp(show, "0") != 0;
    return 0;
}

/* ---- what the reports print -------------------------------------------------- */

/* The reports print names from the logs: their text must be UTF-8 without
 * a raw control character or a format character that can disguise a name.
 * Newlines are allowed, tabs in the JSON (cJSON indents with them) and, in
 * the text, the SGR sequences of the colour style (ESC [ digits ; m). */
static void check_printable(const char *what, const char *s, size_t n, int json) {
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = scope_utf8_seq_len((const uint8_t *)s + i, n - i, &cp);
        if (len == 0) {
            fprintf(stderr, "fuzz: %s: byte 0x%02x at %zu is not UTF-8\n", what,
                    (unsigned)(uint8_t)s[i], i);
            abort();
        }
        if (cp == 0x1b && !json && i + 1 < n && s[i + 1] == '[') {
            size_t k = i + 2;
            while (k < n && ((s[k] >= '0' && s[k] <= '9') || s[k] == ';'))
                k++;
            if (k < n && s[k] == 'm') {
                i = k + 1;
                continue;
            }
        }
        if ((scope_is_control(cp) && cp != '\n' && !(json && cp == '\t')) ||
            scope_is_hidden_format(cp)) {
            fprintf(stderr, "fuzz: %s: raw U+%04X at byte %zu\n", what, (unsigned)cp, i);
            abort();
        }
        i += len;
    }
}

/* Runs print(f, m, arg) into memory, checks what it printed, and shows it
 * with SCOPE_FUZZ_SHOW.  Returns print's status. */
static int print_checked(const char *what, int json, const run_model *m,
                         int (*print)(FILE *, const run_model *, const void *), const void *arg) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        die("open_memstream");
    int rc = print(f, m, arg);
    if (fclose(f) != 0)
        die("open_memstream");
    check_printable(what, text, len, json);
    if (g_show)
        fwrite(text, 1, len, stdout);
    free(text);
    return rc;
}

static int print_text(FILE *f, const run_model *m, const void *style) {
    report_text_print(f, m, style);
    return 0;
}

static int print_json(FILE *f, const run_model *m, const void *unused) {
    (void)unused;
    return report_json_print(f, m);
}

/* export --format chrome of the run: the trace windows' events read back
 * from the logs (log_trace.c) and written as JSON, whose text is checked
 * like the reports'.  A run without a window is refused, as it should be. */
static void chrome(const run_model *m) {
    char path[4200], msg[1024];
    snprintf(path, sizeof path, "%s.chrome.json", g_dir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        die("the Chrome trace");
    int written = export_format_chrome.write(m, g_dir, fd, msg, sizeof msg) == 0;
    close(fd);
    if (written) {
        FILE *f = fopen(path, "r");
        if (!f)
            die("the Chrome trace");
        struct stat st;
        if (fstat(fileno(f), &st) != 0)
            die("the Chrome trace");
        char *text = malloc((size_t)st.st_size + 1);
        size_t n = text ? fread(text, 1, (size_t)st.st_size, f) : 0;
        fclose(f);
        check_printable("the Chrome trace", text, n, 1);
        if (g_show && text)
            fwrite(text, 1, n, stdout);
        free(text);
    }
    unlink(path);
}

/* One hot-lines query printed as the lines command prints it. */
typedef struct lines_print {
    run_model *m;
    const run_lines_info *info;
    const run_lines_query *q;
    const run_lines_result *r;
    size_t top;
} lines_print;

static int print_lines_text(FILE *f, const run_model *m, const void *arg) {
    (void)m;
    const lines_print *lp = arg;
    lines_text_opts o = {.top = lp->top, .what = "the fuzz run"};
    lines_text_heading(f, lp->info, lp->r, lp->q->attr, &o);
    lines_text_stats(f, lp->m, lp->r, &o);
    lines_text_top(f, lp->m, lp->r, &o);
    lines_text_caveats(f, lp->m);
    return 0;
}

static int print_lines_json(FILE *f, const run_model *m, const void *arg) {
    const lines_print *lp = arg;
    return lines_json_print(f, m, lp->info, lp->q, lp->r, lp->top, 0);
}

/* A query's rows must add up to its samples, and be sorted as asked. */
static void check_lines(const run_lines_query *q, const run_lines_result *r) {
    uint64_t sum = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        sum += r->rows[i].samples;
        if (!r->rows[i].samples || !(r->rows[i].share >= 0 && r->rows[i].share <= 1))
            die("a hot-lines row with no samples or a share out of 0..1");
        if (q->sort == RUN_LINES_BY_SAMPLES && i && r->rows[i].samples > r->rows[i - 1].samples)
            die("hot-lines rows out of order");
    }
    if (!q->function && sum != r->samples)
        die("hot-lines rows do not add up to the selection's samples");
    size_t in_functions = 0;
    for (size_t i = 0; i < r->nfunctions; i++) {
        in_functions += r->functions[i].nrows;
        if (r->functions[i].first_row + r->functions[i].nrows > r->nrows)
            die("a hot-lines function's rows out of range");
    }
    if (in_functions != r->nrows)
        die("hot-lines functions do not hold every row once");
}

static void lines(run_model *m, size_t size) {
    run_lines_info info;
    char msg[512];
    if (run_lines_load(m, NULL, &info, msg, sizeof msg) < 0) {
        fprintf(stderr, "fuzz: run_lines_load failed: %s\n", msg);
        abort();
    }
    if (!info.has_lines)
        return;
    const run_phase *phases[5] = {NULL};
    size_t nphases = 1;
    for (size_t i = 0; m->nroles && i < m->roles[0].root->nchildren && nphases < 5; i++)
        phases[nphases++] = m->roles[0].root->children[i];
    for (size_t k = 0; k < 2 * nphases; k++) {
        run_lines_query q = {.worker = SIZE_MAX,
                             .attr = k & 1 ? RUN_LINES_SELF : RUN_LINES_PROJECT,
                             .sort = (enum run_lines_sort)((size + k) % 3),
                             .phase = phases[k / 2]};
        run_lines_result r;
        if (run_lines_select(m, &q, &r, msg, sizeof msg) < 0)
            continue; /* a phase of no sampled process */
        check_lines(&q, &r);
        lines_print lp = {m, &info, &q, &r, size % 4 ? 0 : 5};
        print_checked("the lines tables", 0, m, print_lines_text, &lp);
        if (print_checked("the lines JSON", 1, m, print_lines_json, &lp) < 0) {
            fprintf(stderr, "fuzz: lines_json_print failed\n");
            abort();
        }
        run_lines_free(&r);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t *p = data, *end = data + size;
    unsigned nlogs = 0;
    while (nlogs < SCOPE_FUZZ_MAX_LOGS) {
        const uint8_t *sep =
            memmem(p, (size_t)(end - p), SCOPE_FUZZ_LOG_SEP, SCOPE_FUZZ_LOG_SEP_LEN);
        write_log(g_log[nlogs++], p, (size_t)((sep ? sep : end) - p));
        if (!sep)
            break;
        p = sep + SCOPE_FUZZ_LOG_SEP_LEN;
    }
    /* The logs of a previous, longer input must not join this run. */
    for (unsigned i = nlogs; i < g_nlogs; i++)
        if (unlink(g_log[i]) < 0 && errno != ENOENT)
            die(g_log[i]);
    g_nlogs = nlogs;

    run_model *m = NULL;
    char msg[512];
    run_options opt = {.threads = 1};
    enum run_load_error e = run_load(g_dir, &opt, &m, msg, sizeof msg);
    if (e != RUN_OK || !m) {
        fprintf(stderr, "fuzz: run_load failed (%d) on %u intact log(s): %s\n", (int)e, nlogs,
                e != RUN_OK ? msg : "no model");
        abort();
    }
    check_model(m, nlogs);

#ifdef SCOPE_FUZZ_TUI
    /* fuzz_tui: the browser instead of the reports (fuzz_run_load has them). */
    lines_symbolizer *sym = fuzz_tui_walk(m, g_dir, size);
    run_free(m);
    lines_sym_free(sym); /* after the model, which symbolized with it */
    return 0;
#endif
    /* The layout depends on the style: take one from the input's size, so
     * the corpus covers narrow and wide, ASCII and UTF-8, plain and colour. */
    text_style st = {
        .width = 40 + (int)(size % 97), .color = (int)(size & 1), .utf8 = (int)((size >> 1) & 1)};
    print_checked("the text report", 0, m, print_text, &st);
    if (print_checked("the JSON report", 1, m, print_json, NULL) < 0) {
        fprintf(stderr, "fuzz: report_json_print failed\n");
        abort();
    }
    chrome(m);
    lines(m, size);
    run_free(m);
    return 0;
}
