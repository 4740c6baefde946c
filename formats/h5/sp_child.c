/* sp_child: sp_file read in a child process; see sp_child.h.
 *
 * What the child writes, in this machine's byte order (parent and child are
 * the same program):
 *   the file:  u32 ok; then i32 schema, u64 ranks, the metadata (seven
 *              strings, i64 mpi_size, i64 omp_num_threads); or a message
 *   each rank: u32 ok; then i64 rank, u64 regions, and for each region its
 *              name, source file, i64 line, tags, u64 n, n starts, n ends;
 *              then u64 profiles, and for each its region, filename and
 *              function, i64 first_lineno, f64 unit, u64 n, n line numbers,
 *              n hits, n times; or a message
 * A string is u32 length (UINT32_MAX: none) and its bytes; a message is a
 * string.  The child stops after the last rank or the first message. */
#define _GNU_SOURCE /* pipe2 */
#include "sp_child.h"

#include "h5_child.h"
#include "sp_lineprof.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct sp_child {
    sp_file *f; /* SCOPE_SP_IN_PROCESS: read here */
    pid_t pid;
    int fd;               /* the pipe's reading end */
    int limit_s;          /* seconds the child may take over one step */
    uint64_t deadline_ms; /* CLOCK_MONOTONIC: the end of this step */
    int schema;
    sp_meta meta;
    size_t nranks, next;
};

static int fail(char *msg, size_t len, const char *what) {
    snprintf(msg, len, "%s", what);
    return -1;
}

#ifndef SCOPE_SP_IN_PROCESS
/* ---- the child: writing ----------------------------------------------------- */

/* Writes everything or ends the child: a parent that stopped reading does
 * not want the rest. */
static void put(int fd, const void *p, size_t n) {
    const char *b = p;
    while (n) {
        ssize_t k = write(fd, b, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            _exit(1);
        b += k;
        n -= (size_t)k;
    }
}

static void put_u32(int fd, uint32_t v) {
    put(fd, &v, sizeof v);
}
static void put_u64(int fd, uint64_t v) {
    put(fd, &v, sizeof v);
}

static void put_str(int fd, const char *s) {
    size_t n = s ? strlen(s) : 0;
    put_u32(fd, s ? (uint32_t)(n < UINT32_MAX ? n : UINT32_MAX - 1) : UINT32_MAX);
    if (s)
        put(fd, s, n < UINT32_MAX ? n : UINT32_MAX - 1);
}

static void put_failure(int fd, const char *msg) {
    put_u32(fd, 0);
    put_str(fd, msg);
}

static void child_main(const char *path, int fd) {
    char msg[512];
    sp_file *f;
    if (sp_open(path, &f, msg, sizeof msg) < 0) {
        put_failure(fd, msg);
        _exit(0);
    }
    const sp_meta *m = sp_meta_of(f);
    put_u32(fd, 1);
    put(fd, &(int32_t){sp_schema(f)}, sizeof(int32_t));
    put_u64(fd, sp_nranks(f));
    const char *strs[] = {m->hostname, m->timestamp, m->working_directory,
                          m->version,  m->platform,  m->python_version,
                          m->user};
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
        put_str(fd, strs[i]);
    put(fd, &m->mpi_size, sizeof m->mpi_size);
    put(fd, &m->omp_num_threads, sizeof m->omp_num_threads);
    for (size_t i = 0; i < sp_nranks(f); i++) {
        sp_rank r;
        if (sp_read_rank(f, i, &r, msg, sizeof msg) < 0) {
            put_failure(fd, msg);
            break;
        }
        put_u32(fd, 1);
        put(fd, &r.rank, sizeof r.rank);
        put_u64(fd, r.nregions);
        for (size_t k = 0; k < r.nregions; k++) {
            const sp_region *g = &r.regions[k];
            put_str(fd, g->name);
            put_str(fd, g->source_file);
            put(fd, &g->source_line, sizeof g->source_line);
            put_str(fd, g->tags);
            put_u64(fd, g->n);
            put(fd, g->start, g->n * sizeof *g->start);
            put(fd, g->end, g->n * sizeof *g->end);
        }
        put_u64(fd, r.nprofiles);
        for (size_t k = 0; k < r.nprofiles; k++) {
            const sp_line_profile *p = &r.profiles[k];
            put_str(fd, p->region);
            put_str(fd, p->filename);
            put_str(fd, p->function);
            put(fd, &p->first_lineno, sizeof p->first_lineno);
            put(fd, &p->unit, sizeof p->unit);
            put_u64(fd, p->n);
            put(fd, p->line, p->n * sizeof *p->line);
            put(fd, p->hits, p->n * sizeof *p->hits);
            put(fd, p->times, p->n * sizeof *p->times);
        }
        sp_rank_free(&r);
    }
    sp_close(f);
    _exit(0);
}

/* ---- the parent: reading ---------------------------------------------------- */

/* Why the child stopped writing, once it has exited. */
static int child_gone(sp_child *c, char *msg, size_t len) {
    int st = 0;
    pid_t w;
    while ((w = waitpid(c->pid, &st, 0)) < 0 && errno == EINTR)
        ;
    c->pid = -1;
    if (w > 0 && WIFSIGNALED(st)) {
        snprintf(msg, len,
                 "the HDF5 library crashed reading it (%s): the file is damaged in a way the "
                 "library does not check",
                 strsignal(WTERMSIG(st)));
        return -1;
    }
    if (w > 0 && WIFEXITED(st) && WEXITSTATUS(st) != 0) {
        snprintf(msg, len, "the HDF5 library failed reading it (its reader exited with status %d)",
                 WEXITSTATUS(st));
        return -1;
    }
    return fail(msg, len, "its reader stopped early");
}

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Seconds a step may take (sp_child.h): SCOPE_H5_READ_TIMEOUT, a whole
 * number from 1 to 86400, else the default. */
static int read_limit_s(void) {
    const char *v = getenv("SCOPE_H5_READ_TIMEOUT");
    char *end;
    long s = v && *v ? strtol(v, &end, 10) : 0;
    return v && *v && !*end && s >= 1 && s <= 86400 ? (int)s : SP_CHILD_DEFAULT_LIMIT_S;
}

/* A step begins: the child has limit_s seconds to send it whole. */
static void step_begins(sp_child *c) {
    c->deadline_ms = now_ms() + (uint64_t)c->limit_s * 1000u;
}

/* Waits for bytes from the child until the step's deadline; past it the
 * child is stopped for good and -1 returned with msg. */
static int wait_readable(sp_child *c, char *msg, size_t len) {
    for (;;) {
        uint64_t now = now_ms();
        int left = now < c->deadline_ms ? (int)(c->deadline_ms - now) : 0;
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        int r = poll(&p, 1, left);
        if (r > 0)
            return 0;
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return fail(msg, len, "its reader cannot be waited for");
        kill(c->pid, SIGKILL);
        while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        c->pid = -1;
        snprintf(msg, len,
                 "its reader took more than %d s (the HDF5 library blocked or looped on the "
                 "file; SCOPE_H5_READ_TIMEOUT sets the limit)",
                 c->limit_s);
        return -1;
    }
}

static int get(sp_child *c, void *p, size_t n, char *msg, size_t len) {
    char *b = p;
    while (n) {
        if (c->pid > 0 && wait_readable(c, msg, len) < 0)
            return -1;
        ssize_t k = read(c->fd, b, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return c->pid > 0 ? child_gone(c, msg, len) : fail(msg, len, "its reader has stopped");
        b += k;
        n -= (size_t)k;
    }
    return 0;
}

/* A string (NULL for none) into *s, malloc'd. */
static int get_str(sp_child *c, char **s, char *msg, size_t len) {
    uint32_t n;
    *s = NULL;
    if (get(c, &n, sizeof n, msg, len) < 0)
        return -1;
    if (n == UINT32_MAX)
        return 0;
    if (!(*s = malloc((size_t)n + 1)))
        return fail(msg, len, "out of memory");
    (*s)[n] = '\0';
    if (get(c, *s, n, msg, len) < 0) {
        free(*s);
        *s = NULL;
        return -1;
    }
    return 0;
}

/* The u32 that starts each part: 1, or 0 and the child's message. */
static int get_ok(sp_child *c, char *msg, size_t len) {
    uint32_t ok;
    if (get(c, &ok, sizeof ok, msg, len) < 0)
        return -1;
    if (ok)
        return 0;
    char *why;
    if (get_str(c, &why, msg, len) < 0)
        return -1;
    fail(msg, len, why ? why : "unreadable");
    free(why);
    return -1;
}

static int get_meta(sp_child *c, char *msg, size_t len) {
    sp_meta *m = &c->meta;
    char **strs[] = {&m->hostname, &m->timestamp, &m->working_directory,
                     &m->version,  &m->platform,  &m->python_version,
                     &m->user};
    int32_t schema;
    uint64_t nranks;
    if (get(c, &schema, sizeof schema, msg, len) < 0 ||
        get(c, &nranks, sizeof nranks, msg, len) < 0)
        return -1;
    c->schema = schema;
    c->nranks = (size_t)nranks;
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
        if (get_str(c, strs[i], msg, len) < 0)
            return -1;
    return get(c, &m->mpi_size, sizeof m->mpi_size, msg, len) < 0 ||
                   get(c, &m->omp_num_threads, sizeof m->omp_num_threads, msg, len) < 0
               ? -1
               : 0;
}

/* A rank's line profiles, after its regions. */
static int get_profiles(sp_child *c, sp_rank *r, char *msg, size_t len) {
    uint64_t nprofiles;
    if (get(c, &nprofiles, sizeof nprofiles, msg, len) < 0)
        return -1;
    if (nprofiles > SP_MAX_PROFILES ||
        !(r->profiles = calloc(nprofiles ? nprofiles : 1, sizeof *r->profiles)))
        return fail(msg, len, "out of memory");
    for (uint64_t k = 0; k < nprofiles; k++) {
        sp_line_profile *p = &r->profiles[k];
        r->nprofiles++;
        uint64_t n;
        if (get_str(c, &p->region, msg, len) < 0 || get_str(c, &p->filename, msg, len) < 0 ||
            get_str(c, &p->function, msg, len) < 0 ||
            get(c, &p->first_lineno, sizeof p->first_lineno, msg, len) < 0 ||
            get(c, &p->unit, sizeof p->unit, msg, len) < 0 || get(c, &n, sizeof n, msg, len) < 0)
            return -1;
        if (!p->filename || !p->function)
            return fail(msg, len, "its reader sent a line profile without a file or function");
        if (n > SP_MAX_PROFILE_LINES)
            return fail(msg, len, "its reader sent a line profile of too many lines");
        int64_t **cols[3] = {&p->line, &p->hits, &p->times};
        for (int i = 0; i < 3; i++)
            if (!(*cols[i] = malloc((n + 1) * sizeof(int64_t))))
                return fail(msg, len, "out of memory");
        p->n = (size_t)n;
        for (int i = 0; i < 3; i++)
            if (get(c, *cols[i], p->n * sizeof(int64_t), msg, len) < 0)
                return -1;
        r->nprofile_lines += p->n;
    }
    return 0;
}

static int get_rank(sp_child *c, sp_rank *r, char *msg, size_t len) {
    uint64_t nregions;
    if (get_ok(c, msg, len) < 0 || get(c, &r->rank, sizeof r->rank, msg, len) < 0 ||
        get(c, &nregions, sizeof nregions, msg, len) < 0)
        return -1;
    if (nregions > SIZE_MAX / sizeof *r->regions ||
        !(r->regions = calloc(nregions ? nregions : 1, sizeof *r->regions)))
        return fail(msg, len, "out of memory");
    for (uint64_t k = 0; k < nregions; k++) {
        sp_region *g = &r->regions[k];
        r->nregions++;
        uint64_t n;
        if (get_str(c, &g->name, msg, len) < 0 || get_str(c, &g->source_file, msg, len) < 0 ||
            get(c, &g->source_line, sizeof g->source_line, msg, len) < 0 ||
            get_str(c, &g->tags, msg, len) < 0 || get(c, &n, sizeof n, msg, len) < 0)
            return -1;
        if (!g->name)
            return fail(msg, len, "its reader sent a region without a name");
        if (n > SIZE_MAX / sizeof(int64_t) - 1 || !(g->start = malloc((n + 1) * sizeof(int64_t))) ||
            !(g->end = malloc((n + 1) * sizeof(int64_t))))
            return fail(msg, len, "out of memory");
        g->n = (size_t)n;
        if (get(c, g->start, g->n * sizeof *g->start, msg, len) < 0 ||
            get(c, g->end, g->n * sizeof *g->end, msg, len) < 0)
            return -1;
        r->nevents += g->n;
    }
    return get_profiles(c, r, msg, len);
}

#endif

/* ---- the calls ------------------------------------------------------------- */

#ifdef SCOPE_SP_IN_PROCESS
int sp_child_open(const char *path, sp_child **out, char *msg, size_t len) {
    *out = NULL;
    sp_child *c = calloc(1, sizeof *c);
    if (!c)
        return fail(msg, len, "out of memory");
    if (sp_open(path, &c->f, msg, len) < 0) {
        free(c);
        return -1;
    }
    c->pid = -1;
    c->fd = -1;
    c->schema = sp_schema(c->f);
    c->nranks = sp_nranks(c->f);
    *out = c;
    return 0;
}

int sp_child_next(sp_child *c, sp_rank *r, char *msg, size_t len) {
    memset(r, 0, sizeof *r);
    if (c->next >= c->nranks)
        return fail(msg, len, "no rank left");
    return sp_read_rank(c->f, c->next++, r, msg, len);
}

const sp_meta *sp_child_meta(const sp_child *c) {
    return sp_meta_of(c->f);
}
#else
int sp_child_open(const char *path, sp_child **out, char *msg, size_t len) {
    *out = NULL;
    msg[0] = '\0';
    sp_child *c = calloc(1, sizeof *c);
    int fds[2];
    if (!c)
        return fail(msg, len, "out of memory");
    c->meta.mpi_size = c->meta.omp_num_threads = -1;
    c->limit_s = read_limit_s();
    if (pipe2(fds, O_CLOEXEC) < 0) {
        free(c);
        return fail(msg, len, "cannot start its reader (no pipe)");
    }
    fflush(NULL); /* nothing buffered is written twice */
    c->pid = fork();
    if (c->pid == 0) {
        close(fds[0]);
        /* Whatever the library or a crash prints would break the caller's
         * one line: the parent says what happened.  SIGPIPE's default
         * action too: the parent may stop reading at any point, and the
         * child then ends on its next write, quietly. */
        scope_h5_child_start();
        child_main(path, fds[1]);
    }
    close(fds[1]);
    c->fd = fds[0];
    if (c->pid < 0) {
        close(c->fd);
        free(c);
        return fail(msg, len, "cannot start its reader (no process)");
    }
    step_begins(c);
    if (get_ok(c, msg, len) < 0 || get_meta(c, msg, len) < 0) {
        sp_child_close(c);
        return -1;
    }
    *out = c;
    return 0;
}

int sp_child_next(sp_child *c, sp_rank *r, char *msg, size_t len) {
    memset(r, 0, sizeof *r);
    if (c->next >= c->nranks)
        return fail(msg, len, "no rank left");
    c->next++;
    step_begins(c);
    if (get_rank(c, r, msg, len) < 0) {
        sp_rank_free(r);
        return -1;
    }
    return 0;
}

const sp_meta *sp_child_meta(const sp_child *c) {
    return &c->meta;
}
#endif

int sp_child_schema(const sp_child *c) {
    return c->schema;
}

size_t sp_child_nranks(const sp_child *c) {
    return c->nranks;
}

void sp_child_close(sp_child *c) {
    if (!c)
        return;
    if (c->f)
        sp_close(c->f);
    if (c->fd >= 0)
        close(c->fd);
    if (c->pid > 0) {
        kill(c->pid, SIGKILL); /* done already, or not wanted any more */
        while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    sp_meta_free(&c->meta);
    free(c);
}
