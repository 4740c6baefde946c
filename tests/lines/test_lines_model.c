/*
 * The hot-lines model (src/model/run_lines.h) and its symbolizer against logs
 * whose truth is known by construction: progs/lines_selfrec writes, with
 * the real log writer, its own modules and stacks of real addresses of its
 * own code on lines it prints (see that file for the stacks and counts).
 * Nothing is mocked: the modules are the files the process mapped, the
 * debug info the compiler wrote, the stripped copies made with objcopy.
 */
#define _GNU_SOURCE
#include "lines_symbolize.h"
#include "rt_util.h"
#include "run_lines.h"
#include "run_model.h"

#include <check.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *project; /* the folder of lines_selfrec.c */
static int line_a, line_b, line_l;

/* Runs prog (lines_selfrec or a copy) into a fresh run folder with extra
 * arguments; reads the lines it prints. */
static void record(char *run, size_t cap, const char *tag, const char *prog,
                   const char *const *extra) {
    rt_mkdir(run, cap, tag);
    char *argv[24] = {(char *)prog, run, (char *)project};
    size_t n = 3;
    for (; extra && *extra && n < 23; extra++)
        argv[n++] = (char *)*extra;
    argv[n] = NULL;
    rt_opts o = {0};
    rt_proc p;
    rt_run(&p, argv, &o, 60);
    char *err = rt_stderr(&p);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "%s: %s: %s", prog,
                  rt_status(p.status), rt_tail(err));
    free(err);
    char *out = rt_slurp(p.out_path, NULL);
    ck_assert_msg(sscanf(out, "LINE_A=%d LINE_B=%d LINE_L=%d", &line_a, &line_b, &line_l) == 3,
                  "lines_selfrec printed: %s", out);
    free(out);
}

static run_model *load(const char *run) {
    run_model *m = NULL;
    char msg[512];
    ck_assert_msg(run_load(run, NULL, &m, msg, sizeof msg) == RUN_OK, "run_load: %s", msg);
    run_lines_info info;
    ck_assert_msg(run_lines_load(m, NULL, &info, msg, sizeof msg) == 0, "run_lines_load: %s", msg);
    ck_assert(info.has_lines);
    return m;
}

static void query(run_model *m, const run_lines_query *q, run_lines_result *r) {
    char msg[512];
    ck_assert_msg(run_lines_select(m, q, r, msg, sizeof msg) == 0, "select: %s", msg);
}

static run_lines_query all(enum run_lines_attr attr) {
    return (run_lines_query){.worker = SIZE_MAX, .attr = attr};
}

/* The row of function fn at line (0: any line), NULL when none. */
static const run_line *row(const run_lines_result *r, const char *fn, uint32_t line) {
    for (size_t i = 0; i < r->nrows; i++)
        if (r->rows[i].function.len == strlen(fn) && !strcmp(r->rows[i].function.s, fn) &&
            (!line || r->rows[i].line == line))
            return &r->rows[i];
    return NULL;
}

static void print_rows(const run_lines_result *r) {
    for (size_t i = 0; i < r->nrows; i++)
        fprintf(stderr, "  %s %s:%u %llu%s\n", r->rows[i].function.s, r->rows[i].file.s,
                r->rows[i].line, (unsigned long long)r->rows[i].samples,
                r->rows[i].approximate ? " (approximate)" : "");
}

static size_t caveats_with(const run_model *m, const char *what) {
    size_t n = 0;
    for (size_t i = 0; i < m->ncaveats; i++)
        n += m->caveats[i].kind == RUN_CAVEAT_LINES && strstr(m->caveats[i].text, what);
    return n;
}

static int ends_with(run_str s, const char *tail) {
    size_t n = strlen(tail);
    return s.len >= n && !memcmp(s.s + s.len - n, tail, n);
}

START_TEST(project_attribution) {
    char run[4200];
    record(run, sizeof run, "project", rt_prog("lines_selfrec"), NULL);
    run_model *m = load(run);
    run_lines_result r;
    run_lines_query q = all(RUN_LINES_PROJECT);
    query(m, &q, &r);
    print_rows(&r);
    ck_assert_uint_eq(r.samples, 105); /* 30 is the newest count of stack 1, not 33 */
    ck_assert_double_eq_tol(r.seconds, 1.05, 1e-9);
    ck_assert_double_eq_tol(r.period_ns, 1e7, 1e-3);
    ck_assert_uint_eq(r.outside_project, 5);
    /* Hottest first: kernel_b, kernel_a, then libm's time at the line that called it. */
    ck_assert_str_eq(r.rows[0].function.s, "kernel_b");
    ck_assert_uint_eq(r.rows[0].line, (uint32_t)line_b);
    ck_assert_uint_eq(r.rows[0].samples, 60);
    ck_assert_msg(ends_with(r.rows[0].file, "/progs/lines_selfrec.c"), "file %s", r.rows[0].file.s);
    ck_assert_double_eq_tol(r.rows[0].share, 60.0 / 105, 1e-12);
    ck_assert_double_eq_tol(r.rows[0].share_sd, sqrt(60.0 / 105 * 45.0 / 105 / 105), 1e-12);
    ck_assert_double_eq_tol(r.rows[0].seconds, 0.6, 1e-9);
    const run_line *a = row(&r, "kernel_a", (uint32_t)line_a);
    const run_line *l = row(&r, "calls_libm", (uint32_t)line_l);
    ck_assert_msg(a && a->samples == 30 && !a->approximate, "kernel_a's line");
    ck_assert_msg(l && l->samples == 10, "libm's samples charged to the caller's line");
    const run_line *unknown = row(&r, "??", 0);
    ck_assert_msg(unknown && unknown->samples == 5 && unknown->approximate && !unknown->line,
                  "the address in no module");
    ck_assert_uint_eq(r.nrows, 4);
    /* Functions by samples, each with its rows by line. */
    ck_assert_uint_eq(r.nfunctions, 4);
    ck_assert_str_eq(r.functions[0].function.s, "kernel_b");
    ck_assert_uint_eq(r.functions[0].first_line, (uint32_t)line_b);
    ck_assert_uint_eq(r.functions[0].nrows, 1);
    ck_assert_str_eq(r.rows[r.function_rows[r.functions[0].first_row]].function.s, "kernel_b");
    run_lines_free(&r);
    run_free(m);
}
END_TEST

START_TEST(self_attribution) {
    char run[4200];
    record(run, sizeof run, "self", rt_prog("lines_selfrec"), NULL);
    run_model *m = load(run);
    run_lines_result r;
    run_lines_query q = all(RUN_LINES_SELF);
    query(m, &q, &r);
    print_rows(&r);
    ck_assert_uint_eq(r.samples, 105);
    ck_assert_uint_eq(r.outside_project, 0);
    ck_assert_msg(!row(&r, "calls_libm", 0), "self attribution charges libm, not its caller");
    const run_line *libm = NULL;
    for (size_t i = 0; i < r.nrows; i++)
        if (strstr(r.rows[i].module.s, "libm"))
            libm = &r.rows[i];
    ck_assert_msg(libm && libm->samples == 10, "the 10 samples in exp lie in libm");
    run_lines_free(&r);
    run_free(m);
}
END_TEST

START_TEST(filters_and_sorts) {
    char run[4200];
    record(run, sizeof run, "filters", rt_prog("lines_selfrec"), NULL);
    run_model *m = load(run);
    const run_role *role = run_find_role(m, "selfrec");
    ck_assert_ptr_nonnull(role);
    run_lines_result r;
    run_lines_query q = all(RUN_LINES_PROJECT);
    struct {
        const char *phase;
        uint64_t samples;
    } want[] = {{"compute", 40}, {"compute/inner", 30}, {"other", 60}};
    for (size_t i = 0; i < 3; i++) {
        q.phase = run_find_phase(role, want[i].phase);
        ck_assert_ptr_nonnull(q.phase);
        query(m, &q, &r);
        ck_assert_msg(r.samples == want[i].samples, "%s: %llu samples", want[i].phase,
                      (unsigned long long)r.samples);
        run_lines_free(&r);
    }
    /* The same phase in the process's own tree (run_worker_role), and the process filter. */
    const run_role *alone = run_worker_role(m, 0);
    ck_assert_ptr_nonnull(alone);
    q.phase = run_find_phase(alone, "compute");
    query(m, &q, &r);
    ck_assert_uint_eq(r.samples, 40);
    ck_assert_ptr_nonnull(row(&r, "calls_libm", (uint32_t)line_l));
    ck_assert_ptr_null(row(&r, "kernel_b", 0));
    run_lines_free(&r);
    q.phase = NULL;
    q.worker = 0;
    q.role = "selfrec";
    query(m, &q, &r);
    ck_assert_uint_eq(r.samples, 105);
    run_lines_free(&r);
    /* A function: its rows only, shares still of the whole selection. */
    q.function = "kernel_a";
    query(m, &q, &r);
    ck_assert_uint_eq(r.nrows, 1);
    ck_assert_uint_eq(r.samples, 105);
    ck_assert_double_eq_tol(r.rows[0].share, 30.0 / 105, 1e-12);
    run_lines_free(&r);
    char msg[256];
    q.function = "no_such_function";
    ck_assert_int_eq(run_lines_select(m, &q, &r, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "no_such_function"), "%s", msg);
    q.function = NULL;
    q.role = "nobody";
    ck_assert_int_eq(run_lines_select(m, &q, &r, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "nobody"), "%s", msg);
    /* By line: file, then line number. */
    q = all(RUN_LINES_PROJECT);
    q.sort = RUN_LINES_BY_LINE;
    query(m, &q, &r);
    for (size_t i = 1; i < r.nrows; i++) {
        int c = run_str_cmp(r.rows[i - 1].file, r.rows[i].file);
        ck_assert_msg(c < 0 || (c == 0 && r.rows[i - 1].line <= r.rows[i].line), "row %zu", i);
    }
    run_lines_free(&r);
    run_free(m);
}
END_TEST

/* The executable recorded with a build-id it does not have (as after a
 * rebuild): its addresses give no line and no function, and a caveat. */
START_TEST(build_id_mismatch) {
    char run[4200];
    const char *extra[] = {"--bad-build-id", NULL};
    record(run, sizeof run, "bad-id", rt_prog("lines_selfrec"), extra);
    run_model *m = load(run);
    run_lines_result r;
    run_lines_query q = all(RUN_LINES_SELF);
    query(m, &q, &r);
    print_rows(&r);
    for (size_t i = 0; i < r.nrows; i++)
        if (strstr(r.rows[i].module.s, "lines_selfrec"))
            ck_assert_msg(r.rows[i].line == 0 && !strcmp(r.rows[i].function.s, "??") &&
                              r.rows[i].approximate,
                          "a line of a changed binary: %s:%u", r.rows[i].file.s, r.rows[i].line);
    ck_assert_ptr_null(row(&r, "kernel_b", 0));
    ck_assert_uint_eq(caveats_with(m, "build-id differs"), 1);
    run_lines_free(&r);
    run_free(m);
}
END_TEST

/* Whether the events of an inotify descriptor hold an open of name. */
static int opened(int in, const char *name) {
    char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
    int found = 0;
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *e = (const struct inotify_event *)p;
            if ((e->mask & IN_OPEN) && e->len && !strcmp(e->name, name))
                found = 1;
            p += sizeof *e + e->len;
        }
    return found;
}

/* Modules a log may name that must not be read as ELF, nor hang or
 * exhaust the reader: a FIFO, a 64 GiB sparse file, a character device
 * (/dev/zero, and one made beside the FIFO where this user may), a file
 * that is not ELF, one with only the magic, one that is gone.  The FIFO and
 * the device are not even opened: their type is known first (an open of a
 * device can act, and an inotify watch sees every open). */
START_TEST(hostile_modules) {
    char dir[4200], fifo[4300], huge[4300], text[4300], magic[4300], gone[4300], zero[4300];
    rt_mkdir(dir, sizeof dir, "hostile-files");
    snprintf(zero, sizeof zero, "%s/zero", dir);
    /* /dev/zero's numbers; making a device needs CAP_MKNOD (root). */
    int device = mknod(zero, S_IFCHR | 0644, makedev(1, 5)) == 0;
    if (!device)
        fprintf(stderr, "note: cannot make a device node (not root): /dev/zero stands for it\n");
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(huge, sizeof huge, "%s/huge", dir);
    snprintf(text, sizeof text, "%s/text", dir);
    snprintf(magic, sizeof magic, "%s/magic", dir);
    snprintf(gone, sizeof gone, "%s/gone", dir);
    ck_assert_int_eq(mkfifo(fifo, 0644), 0);
    FILE *f = fopen(huge, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(ftruncate(fileno(f), 64ll << 30), 0);
    fclose(f);
    f = fopen(text, "w");
    fputs("not an ELF file\n", f);
    fclose(f);
    f = fopen(magic, "w");
    fputs("\177ELF and then garbage", f);
    fclose(f);
    char run[4200];
    const char *extra[] = {"--bad-module",
                           fifo,
                           "--bad-module",
                           huge,
                           "--bad-module",
                           text,
                           "--bad-module",
                           magic,
                           "--bad-module",
                           "/dev/zero",
                           "--bad-module",
                           gone,
                           "--bad-module",
                           device ? zero : "/dev/zero",
                           NULL};
    record(run, sizeof run, "hostile", rt_prog("lines_selfrec"), extra);
    int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    ck_assert_int_ge(in, 0);
    ck_assert_int_ge(inotify_add_watch(in, dir, IN_OPEN), 0);
    double t0 = rt_now();
    run_model *m = load(run);
    run_lines_result r;
    run_lines_query q = all(RUN_LINES_SELF);
    query(m, &q, &r);
    ck_assert_msg(rt_now() - t0 < 10, "symbolizing took %.1fs", rt_now() - t0);
    print_rows(&r);
    ck_assert_uint_eq(r.samples, 105 + 7 * 7);
    ck_assert_msg(!opened(in, "fifo"), "the FIFO was opened");
    ck_assert_msg(!device || !opened(in, "zero"), "the device was opened");
    close(in);
    const char *paths[] = {fifo, huge, text, magic, "/dev/zero", gone, device ? zero : "/dev/zero"};
    for (size_t k = 0; k < 7; k++) {
        const run_line *hit = NULL;
        for (size_t i = 0; i < r.nrows; i++)
            if (!strcmp(r.rows[i].module.s, paths[k]))
                hit = &r.rows[i];
        ck_assert_msg(hit && hit->samples == (!device && !strcmp(paths[k], "/dev/zero") ? 14 : 7) &&
                          !strcmp(hit->function.s, "??") && !hit->line,
                      "module %s", paths[k]);
    }
    ck_assert_uint_eq(caveats_with(m, "not a regular file"), device ? 3 : 2);
    ck_assert_uint_eq(caveats_with(m, "too large"), 1);
    ck_assert_uint_eq(caveats_with(m, "not an ELF file"), 2);
    ck_assert_uint_eq(caveats_with(m, "the file is gone"), 1);
    /* Project attribution still reaches kernel_b, their caller. */
    run_lines_free(&r);
    q.attr = RUN_LINES_PROJECT;
    query(m, &q, &r);
    ck_assert_uint_eq(row(&r, "kernel_b", (uint32_t)line_b)->samples, 60 + 7 * 7);
    run_lines_free(&r);
    run_free(m);
}
END_TEST

static void sh(const char *cmd) {
    int rc = system(cmd);
    ck_assert_msg(rc == 0, "%s: exit %d", cmd, rc);
}

/* A stripped copy whose debug info lives in a separate file found by its
 * .gnu_debuglink: lines as before.  Without that file: functions from the
 * symbol table, no lines, and a caveat. */
START_TEST(separate_debug_file) {
    char dir[4200], cmd[20000], prog[4300];
    rt_mkdir(dir, sizeof dir, "stripped");
    snprintf(prog, sizeof prog, "%s/selfrec", dir);
    snprintf(cmd, sizeof cmd,
             "cp '%s' '%s' && cd '%s' && objcopy --only-keep-debug selfrec selfrec.debug && "
             "strip --strip-debug selfrec && objcopy --add-gnu-debuglink=selfrec.debug selfrec",
             rt_prog("lines_selfrec"), prog, dir);
    sh(cmd);
    char run[4200];
    record(run, sizeof run, "stripped-run", prog, NULL);
    run_model *m = load(run);
    run_lines_result r;
    run_lines_query q = all(RUN_LINES_PROJECT);
    query(m, &q, &r);
    print_rows(&r);
    const run_line *b = row(&r, "kernel_b", (uint32_t)line_b);
    ck_assert_msg(b && b->samples == 60 && !b->approximate, "kernel_b's line from the debug file");
    run_lines_free(&r);
    run_free(m);

    snprintf(cmd, sizeof cmd, "rm '%s/selfrec.debug'", dir);
    sh(cmd);
    m = load(run);
    q = all(RUN_LINES_SELF);
    query(m, &q, &r);
    print_rows(&r);
    b = row(&r, "kernel_b", 0);
    ck_assert_msg(b && b->samples == 60 && b->approximate && !b->line,
                  "kernel_b by its symbol, without a line");
    ck_assert_uint_eq(caveats_with(m, "no debug info"), 1);
    run_lines_free(&r);
    run_free(m);
}
END_TEST

START_TEST(source_text) {
    char run[4200];
    record(run, sizeof run, "source", rt_prog("lines_selfrec"), NULL);
    run_model *m = load(run);
    run_lines_result r;
    run_lines_query q = all(RUN_LINES_PROJECT);
    query(m, &q, &r);
    const run_str *lines;
    char why[200];
    size_t n = run_lines_source(m, r.rows[0].file, &lines, why, sizeof why);
    ck_assert_msg(n >= (size_t)line_b, "%s: %zu lines (%s)", r.rows[0].file.s, n, why);
    ck_assert_msg(strstr(lines[line_b - 1].s, "p.pc = here();"), "line %d: %s", line_b,
                  lines[line_b - 1].s);
    n = run_lines_source(m, (run_str){"/no/such/file.c", 15}, &lines, why, sizeof why);
    ck_assert_uint_eq(n, 0);
    ck_assert_msg(strstr(why, "not found"), "%s", why);
    run_lines_free(&r);
    run_free(m);
}
END_TEST

/* This process's vDSO as the recorder lists it: its first mapped byte and
 * build-id. */
typedef struct vdso_info {
    uintptr_t base;
    uint8_t build_id[64];
    size_t build_id_len;
} vdso_info;

static int find_vdso(struct dl_phdr_info *info, size_t size, void *arg) {
    (void)size;
    vdso_info *v = arg;
    if (!info->dlpi_name || strcmp(info->dlpi_name, "linux-vdso.so.1"))
        return 0;
    uintptr_t lo = UINTPTR_MAX;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && ph->p_vaddr < lo)
            lo = ph->p_vaddr;
        if (ph->p_type != PT_NOTE)
            continue;
        const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        const uint8_t *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
            const uint8_t *desc = p + sizeof *n + ((n->n_namesz + 3) & ~3u);
            if (n->n_type == NT_GNU_BUILD_ID && n->n_descsz <= sizeof v->build_id) {
                memcpy(v->build_id, desc, n->n_descsz);
                v->build_id_len = n->n_descsz;
            }
            p = desc + ((n->n_descsz + 3) & ~3u);
        }
    }
    v->base = info->dlpi_addr + (lo & ~(uintptr_t)4095);
    return 1;
}

/* The kernel's vDSO has no file: the reader reads its own when the
 * recorded build-id is its own, and names the functions there; another
 * build-id (another kernel) gives none, and says so. */
START_TEST(vdso_functions) {
    vdso_info v = {0};
    dl_iterate_phdr(find_vdso, &v);
    void *h = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_NOLOAD);
    void *fn = h ? dlsym(h, "__vdso_clock_gettime") : NULL;
    if (!v.base || !v.build_id_len || !fn) {
        fprintf(stderr, "vdso_functions: no vDSO with a build-id and __vdso_clock_gettime here\n");
        return;
    }
    lines_symbolizer *s = lines_sym_new();
    static const char name[] = "linux-vdso.so.1";
    sym_module *m = lines_sym_module(s, name, strlen(name), v.build_id, v.build_id_len);
    const char *why;
    ck_assert_int_eq(lines_sym_state(m, &why), SYM_FUNCTIONS);
    const sym_frame *f;
    ck_assert_uint_eq(lines_sym_lookup(s, m, (uintptr_t)fn - v.base, 0, &f), 1);
    ck_assert_msg(f->function && strstr(f->function, "clock_gettime"), "vDSO function %s",
                  f->function ? f->function : "(none)");
    uint8_t other[64];
    memcpy(other, v.build_id, v.build_id_len);
    other[0] ^= 0xff;
    m = lines_sym_module(s, name, strlen(name), other, v.build_id_len);
    ck_assert_int_eq(lines_sym_state(m, &why), SYM_CHANGED);
    ck_assert_msg(strstr(why, "another kernel"), "%s", why);
    ck_assert_uint_eq(lines_sym_lookup(s, m, (uintptr_t)fn - v.base, 0, &f), 1);
    ck_assert_ptr_null(f->function);
    lines_sym_free(s);
    dlclose(h);
}
END_TEST

/* A symbolizer kept across models (the browser's, across the reloads of a
 * run in progress): the second model of the same run opens no module and
 * looks up no address again, and its rows are the first model's and those
 * of a model with a symbolizer of its own. */
START_TEST(symbolizer_kept_across_models) {
    char run[4200], msg[512];
    record(run, sizeof run, "kept", rt_prog("lines_selfrec"), NULL);
    lines_symbolizer *sym = lines_sym_new();
    ck_assert(sym);
    run_model *m[3] = {NULL, NULL, NULL};
    lines_sym_count k[3];
    run_lines_result r[3];
    for (int i = 0; i < 3; i++) {
        ck_assert_msg(run_load(run, NULL, &m[i], msg, sizeof msg) == RUN_OK, "run_load: %s", msg);
        run_lines_info info;
        ck_assert_msg(run_lines_load_with(m[i], NULL, i < 2 ? sym : NULL, &info, msg, sizeof msg) ==
                          0,
                      "run_lines_load_with: %s", msg);
        ck_assert_int_eq(run_lines_counts(m[i], &k[i]), 0);
        run_lines_query q = all(RUN_LINES_PROJECT);
        query(m[i], &q, &r[i]);
    }
    ck_assert_uint_gt(k[0].files_opened, 0);
    ck_assert_uint_gt(k[0].addresses, 0);
    ck_assert_uint_eq(k[1].files_opened, 0); /* all kept from the first model */
    ck_assert_uint_eq(k[1].modules, 0);
    ck_assert_uint_eq(k[1].addresses, 0);
    ck_assert_uint_eq(k[2].files_opened, k[0].files_opened); /* its own: all again */
    ck_assert_uint_eq(k[2].addresses, k[0].addresses);
    for (int i = 1; i < 3; i++) {
        ck_assert_uint_eq(r[i].nrows, r[0].nrows);
        ck_assert_uint_eq(r[i].samples, r[0].samples);
        for (size_t j = 0; j < r[0].nrows; j++) {
            ck_assert(run_str_eq(r[i].rows[j].function, r[0].rows[j].function));
            ck_assert(run_str_eq(r[i].rows[j].file, r[0].rows[j].file));
            ck_assert_uint_eq(r[i].rows[j].line, r[0].rows[j].line);
            ck_assert_uint_eq(r[i].rows[j].samples, r[0].rows[j].samples);
        }
    }
    for (int i = 0; i < 3; i++) {
        run_lines_free(&r[i]);
        run_free(m[i]);
    }
    lines_sym_free(sym); /* after the models that symbolized with it */
}
END_TEST

int main(int argc, char **argv) {
    rt_args(argc, argv);
    project = getenv("LINES_PROJECT");
    if (!project || !*project) {
        fprintf(stderr, "test_lines_model: set LINES_PROJECT to the folder of lines_selfrec.c\n");
        return 2;
    }
    Suite *s = suite_create("lines_model");
    TCase *tc = tcase_create("lines_model");
    rt_fixture(tc);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, project_attribution);
    tcase_add_test(tc, self_attribution);
    tcase_add_test(tc, filters_and_sorts);
    tcase_add_test(tc, build_id_mismatch);
    tcase_add_test(tc, hostile_modules);
    tcase_add_test(tc, separate_debug_file);
    tcase_add_test(tc, source_text);
    tcase_add_test(tc, vdso_functions);
    tcase_add_test(tc, symbolizer_kept_across_models);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
