/*
 * The hot-lines fixture: writes a run directory whose logs carry line
 * samples of this very program, through the real log writer.  The kernels
 * (app/, the project folder; vendor/, outside it) run once to take the
 * addresses of their statements (sites.h); each process's log then holds
 * this binary as a MODULE (path, build-id and load address from
 * dl_iterate_phdr), STACKs made of those addresses and STACK_SAMPLES with
 * fixed counts, so the figures are known by construction and the same on
 * every run, while the symbolizer reads real debug info.
 *
 * The sources are compiled with their folder mapped to /scope-fixture
 * (tests/ui/CMakeLists.txt), so the paths shown are the same on every
 * machine; the screens test shows the text through --source-dir.
 *
 * Usage: lines_fixture OUT [--hostile | --wall | --wall-newer]
 *   --wall     sampled on the wall clock: the sim processes' physics phase
 *              also waited, 240 samples blocked in store, 60 queued in
 *              integrate (format 1.10's OFFCPU_SAMPLES)
 *   --wall-newer  as --wall, and as a newer recorder might write: physics
 *              also waited 25 samples in store in state 7 and 15 in
 *              integrate in state 0xFFFFFFFF, states this reader does not
 *              know (off a CPU, of a kind unknown)
 *   --hostile  adds a process whose hot function and file name hold
 *              terminal escapes and a right-to-left override
 */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include "sites.h"

#include <scope/log_format.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void run_hostile(void);

fixture_sites sites;

#define B(s)    ((scope_bytes){(const uint8_t *)(s), strlen(s)})
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

#define RUN_ID    "20261130T1200-11e5f0"
#define HOST      "node01"
#define PROJECT   "/scope-fixture/app"
#define START_S   1796040000ull /* 2026-11-30 12:00:00 UTC */
#define SEC       1000000000ull
#define PERIOD_NS 10101010ull /* 99 Hz */

/* ---- this binary as a module ------------------------------------------------------ */

static struct {
    char path[PATH_MAX];
    uint8_t build_id[64];
    size_t build_id_len;
    uintptr_t base, size;
} self;

/* The main program is the first object dl_iterate_phdr reports. */
static int find_self(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    (void)data;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD) {
            uintptr_t start = (ph->p_vaddr & ~(uintptr_t)0xfff), end = ph->p_vaddr + ph->p_memsz;
            lo = start < lo ? start : lo;
            hi = end > hi ? end : hi;
        }
        if (ph->p_type != PT_NOTE)
            continue;
        const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const uint8_t *name = p + sizeof *nh, *desc = name + ((nh->n_namesz + 3) & ~3u);
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
                nh->n_descsz <= sizeof self.build_id) {
                memcpy(self.build_id, desc, nh->n_descsz);
                self.build_id_len = nh->n_descsz;
            }
            p = desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
    self.base = info->dlpi_addr + lo;
    self.size = hi - lo;
    return 1;
}

static scope_frame_addr at(void *site, int caller) {
    /* A caller's frame is a return address: the symbolizer looks one byte
     * back, so one byte on lands back on the statement. */
    return (scope_frame_addr){1, (uintptr_t)site - self.base + (caller ? 1 : 0)};
}

/* ---- one process ---------------------------------------------------------------- */

enum { N_STEP = 1, N_PHYSICS, N_SHADE };
enum { S_FORCE = 1, S_INTEGRATE, S_CLAMP, S_BLEND, S_STORE, S_HOSTILE, S_GONE, NSTACKS = S_GONE };

typedef struct proc_spec {
    const char *role, *uuid;
    int64_t pid;
    int32_t rank;
    /* samples of each stack while physics, shade, or no phase was innermost */
    uint64_t physics[NSTACKS + 1], shade[NSTACKS + 1], none[NSTACKS + 1];
} proc_spec;

static int add(scope_log_writer *w, const scope_record *r) {
    int rc = scope_log_writer_add(w, r);
    if (rc < 0)
        fprintf(stderr, "lines_fixture: cannot add a record: %s\n", strerror(-rc));
    return rc;
}

static int add_stacks(scope_log_writer *w) {
    scope_frame_addr force[] = {at(sites.exp_series, 0), at(sites.physics_force, 1),
                                at(sites.simulate_physics, 1), at(sites.main_simulate, 1)};
    scope_frame_addr integrate[] = {at(sites.physics_integrate, 0), at(sites.simulate_physics, 1),
                                    at(sites.main_simulate, 1)};
    scope_frame_addr clamp[] = {at(sites.physics_clamp, 0), at(sites.simulate_physics, 1),
                                at(sites.main_simulate, 1)};
    scope_frame_addr blend[] = {at(sites.shade_blend, 0), at(sites.simulate_shade, 1),
                                at(sites.main_simulate, 1)};
    scope_frame_addr store[] = {at(sites.shade_store, 0), at(sites.simulate_shade, 1),
                                at(sites.main_simulate, 1)};
    scope_frame_addr hostile[] = {at(sites.hostile_body, 0), at(sites.main_simulate, 1)};
    /* In a library that is gone since the run: a function-level row and a caveat. */
    scope_frame_addr gone[] = {{2, 0x1234}, at(sites.main_simulate, 1)};
    const struct {
        const scope_frame_addr *f;
        uint32_t n;
    } stacks[NSTACKS + 1] = {
        [S_FORCE] = {force, N_OF(force)}, [S_INTEGRATE] = {integrate, N_OF(integrate)},
        [S_CLAMP] = {clamp, N_OF(clamp)}, [S_BLEND] = {blend, N_OF(blend)},
        [S_STORE] = {store, N_OF(store)}, [S_HOSTILE] = {hostile, N_OF(hostile)},
        [S_GONE] = {gone, N_OF(gone)},
    };
    for (uint32_t s = 1; s <= NSTACKS; s++) {
        scope_record r = {.type = SCOPE_REC_STACK};
        r.u.stack = (scope_rec_stack){s, stacks[s].n, stacks[s].f};
        if (add(w, &r) < 0)
            return -1;
    }
    return 0;
}

/* --wall: sampled on the wall clock, some samples off a CPU (format 1.10);
 * --wall-newer: some of them in states a newer recorder might write. */
static int wall_mode, newer_states;

static int add_samples_in(scope_log_writer *w, uint32_t node, uint32_t state,
                          const uint64_t counts[NSTACKS + 1], uint64_t *total);

static int add_samples(scope_log_writer *w, uint32_t node, const uint64_t counts[NSTACKS + 1],
                       uint64_t *total) {
    return add_samples_in(w, node, SCOPE_CPU_ON, counts, total);
}

static int add_samples_in(scope_log_writer *w, uint32_t node, uint32_t state,
                          const uint64_t counts[NSTACKS + 1], uint64_t *total) {
    scope_stack_count c[NSTACKS];
    uint32_t n = 0;
    for (uint32_t s = 1; s <= NSTACKS; s++)
        if (counts[s]) {
            c[n++] = (scope_stack_count){s, counts[s]};
            *total += counts[s];
        }
    if (!n)
        return 0;
    scope_record r = {.type = state == SCOPE_CPU_ON ? SCOPE_REC_STACK_SAMPLES
                                                    : SCOPE_REC_OFFCPU_SAMPLES};
    r.u.stack_samples = (scope_rec_stack_samples){1, node, PERIOD_NS, n, c, state};
    return add(w, &r);
}

static int write_proc(const char *out, const proc_spec *p) {
    char dir[PATH_MAX], path[PATH_MAX + 128];
    snprintf(dir, sizeof dir, "%s/workers", out);
    mkdir(out, 0777);
    mkdir(dir, 0777);
    snprintf(dir, sizeof dir, "%s/workers/" HOST, out);
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/w_" RUN_ID "_%lld_%s.scope", dir, (long long)p->pid, p->uuid);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "lines_fixture: cannot create %s: %s\n", path, strerror(errno));
        return -1;
    }
    scope_log_writer *w;
    int rc = scope_log_writer_open(&w, fd, NULL);
    if (rc < 0) {
        fprintf(stderr, "lines_fixture: %s: %s\n", path, strerror(-rc));
        close(fd);
        return -1;
    }
    uint64_t mono0 = 1000 * SEC, wall0 = START_S * SEC;
    scope_bytes argv[] = {B("/scope-fixture/build/sim"), B("--steps"), B("100")};
    scope_record r = {.type = SCOPE_REC_PROCESS};
    r.u.process = (scope_rec_process){.run_id = B(RUN_ID),
                                      .uuid = B(p->uuid),
                                      .host = B(HOST),
                                      .role = B(p->role),
                                      .job_id = B(""),
                                      .step_id = B(""),
                                      .exe = B("/scope-fixture/build/sim"),
                                      .cwd = B("/scope-fixture"),
                                      .recorder_version = B("1.3.0"),
                                      .pid = p->pid,
                                      .ppid = 4000,
                                      .rank = p->rank,
                                      .local_rank = p->rank,
                                      .node_rank = 0,
                                      .world_size = 2,
                                      .start_wall_ns = wall0,
                                      .start_mono_ns = mono0,
                                      .argc = N_OF(argv),
                                      .argv = argv};
    const char *names[] = {NULL, "step", "physics", "shade", "app/main.c"};
    int ok = add(w, &r) == 0;
    for (uint32_t i = 1; ok && i < N_OF(names); i++) {
        r = (scope_record){.type = SCOPE_REC_STRING};
        r.u.string = (scope_rec_string){i, B(names[i])};
        ok = add(w, &r) == 0;
    }
    r = (scope_record){.type = SCOPE_REC_THREAD};
    r.u.thread = (scope_rec_thread){1, p->pid, mono0, B("main")};
    ok = ok && add(w, &r) == 0;
    const scope_rec_phase_node nodes[] = {{N_STEP, 0, 1, 1, 0, 4, 20},
                                          {N_PHYSICS, N_STEP, 2, 1, 0, 4, 24},
                                          {N_SHADE, N_STEP, 3, 1, 0, 4, 31}};
    for (size_t i = 0; ok && i < N_OF(nodes); i++) {
        r = (scope_record){.type = SCOPE_REC_PHASE_NODE};
        r.u.phase_node = nodes[i];
        ok = add(w, &r) == 0;
    }
    r = (scope_record){.type = SCOPE_REC_MODULE};
    r.u.module = (scope_rec_module){
        1, B(self.path), {self.build_id, self.build_id_len}, self.base, self.size};
    ok = ok && add(w, &r) == 0;
    static const uint8_t gone_id[] = {0x60, 0x0d, 0xbe, 0xef};
    r = (scope_record){.type = SCOPE_REC_MODULE};
    r.u.module = (scope_rec_module){2,
                                    B("/scope-fixture/lib/libgone.so"),
                                    {gone_id, sizeof gone_id},
                                    0x7f0000000000ull,
                                    0x10000};
    ok = ok && add(w, &r) == 0 && add_stacks(w) == 0;
    ok = ok && scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, mono0 + SEC, wall0 + SEC) > 0;

    /* The phases' times follow their samples: one period each. */
    uint64_t physics = 0, shade = 0, none = 0;
    ok = ok && add_samples(w, N_PHYSICS, p->physics, &physics) == 0 &&
         add_samples(w, N_SHADE, p->shade, &shade) == 0 && add_samples(w, 0, p->none, &none) == 0;
    /* On the wall clock, physics also waited: blocked in store's write,
     * queued for a CPU in integrate. */
    static const uint64_t blocked[NSTACKS + 1] = {[S_STORE] = 240};
    static const uint64_t queued[NSTACKS + 1] = {[S_INTEGRATE] = 60};
    if (wall_mode && p->physics[S_FORCE])
        ok = ok && add_samples_in(w, N_PHYSICS, SCOPE_CPU_BLOCKED, blocked, &physics) == 0 &&
             add_samples_in(w, N_PHYSICS, SCOPE_CPU_QUEUED, queued, &physics) == 0;
    static const uint64_t state7[NSTACKS + 1] = {[S_STORE] = 25};
    static const uint64_t state_max[NSTACKS + 1] = {[S_INTEGRATE] = 15};
    if (newer_states && p->physics[S_FORCE])
        ok = ok && add_samples_in(w, N_PHYSICS, 7, state7, &physics) == 0 &&
             add_samples_in(w, N_PHYSICS, UINT32_MAX, state_max, &physics) == 0;
    const struct {
        uint32_t node;
        uint64_t ns;
    } aggs[] = {{N_STEP, (physics + shade) * PERIOD_NS + 40 * 1000000ull},
                {N_PHYSICS, physics * PERIOD_NS},
                {N_SHADE, shade * PERIOD_NS}};
    for (size_t i = 0; ok && i < N_OF(aggs); i++) {
        if (!aggs[i].ns)
            continue; /* a phase this role never entered */
        r = (scope_record){.type = SCOPE_REC_PHASE_AGG};
        r.u.phase_agg = (scope_rec_phase_agg){.node = aggs[i].node,
                                              .count = 100,
                                              .wall_ns = aggs[i].ns,
                                              .min_ns = aggs[i].ns / 120,
                                              .max_ns = aggs[i].ns / 80};
        ok = add(w, &r) == 0;
    }
    uint64_t samples = physics + shade + none;
    r = (scope_record){.type = SCOPE_REC_LINES};
    r.u.lines = (scope_rec_lines){B(PROJECT),
                                  99,
                                  wall_mode ? SCOPE_LINES_CLOCK_WALL : SCOPE_LINES_CLOCK_CPU,
                                  PERIOD_NS,
                                  samples,
                                  0,
                                  0,
                                  1,
                                  0,
                                  SCOPE_LINES_F_ACTIVE,
                                  samples};
    ok = ok && add(w, &r) == 0;
    uint64_t end = mono0 + 12 * SEC;
    r = (scope_record){.type = SCOPE_REC_MARK};
    r.u.mark =
        (scope_rec_mark){.kind = SCOPE_MARK_SHUTDOWN, .mono_ns = end, .value = SCOPE_SHUTDOWN_EXIT};
    ok = ok && add(w, &r) == 0;
    ok = ok && scope_log_writer_close_frame(w, SCOPE_FRAME_EXIT, end, wall0 + 12 * SEC) > 0;
    scope_log_writer_free(w);
    if (close(fd) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "lines_fixture: cannot write %s\n", path);
    return ok ? 0 : -1;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3 ||
        (argc == 3 && strcmp(argv[2], "--hostile") && strcmp(argv[2], "--wall") &&
         strcmp(argv[2], "--wall-newer"))) {
        fprintf(stderr, "usage: lines_fixture OUT [--hostile | --wall | --wall-newer]\n");
        return 2;
    }
    newer_states = argc == 3 && !strcmp(argv[2], "--wall-newer");
    wall_mode = newer_states || (argc == 3 && !strcmp(argv[2], "--wall"));
    sites.main_simulate = &&call;
call:
    simulate();
    run_hostile();
    dl_iterate_phdr(find_self, NULL);
    if (!realpath("/proc/self/exe", self.path)) {
        fprintf(stderr, "lines_fixture: cannot find this program: %s\n", strerror(errno));
        return 1;
    }
    /* Known by construction: in the sim role, force (whose time is spent in
     * vendor/'s fm_exp) 580, integrate 320, blend 190, store 110, clamp 30. */
    static const proc_spec procs[] = {
        {"sim",
         "5a1e0001",
         4101,
         0,
         {[S_FORCE] = 300, [S_INTEGRATE] = 150, [S_CLAMP] = 20},
         {[S_BLEND] = 100, [S_STORE] = 50},
         {[S_INTEGRATE] = 10}},
        {"sim",
         "5a1e0002",
         4102,
         1,
         {[S_FORCE] = 280, [S_INTEGRATE] = 160, [S_CLAMP] = 10},
         {[S_BLEND] = 90, [S_STORE] = 60},
         {0}},
        {"viz", "5a1e0003", 4201, -1, {0}, {[S_BLEND] = 400, [S_STORE] = 200}, {0}},
        {"evil", "5a1e0004", 4301, -1, {0}, {[S_HOSTILE] = 70, [S_BLEND] = 30, [S_GONE] = 20}, {0}},
    };
    size_t n = argc == 3 && !wall_mode ? N_OF(procs) : N_OF(procs) - 1;
    for (size_t i = 0; i < n; i++)
        if (write_proc(argv[1], &procs[i]) < 0)
            return 1;
    return 0;
}
