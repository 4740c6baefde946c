/*
 * Settings from the arguments of scope_init and the environment.  Every knob
 * is documented in docs/recorder.md; a value that does not parse is an error
 * message, not a silent default.
 */
#define _GNU_SOURCE /* program_invocation_short_name */
#include "config.h"

#include "files.h"
#include "launchers.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

rec_config rec_cfg;
struct rec_hot_settings rec_hot = {.cpu_mode = REC_CPU_ADAPTIVE, .cpu_min_ns = 50000};

static int parse_seconds(const char *s, double lo, double hi, uint64_t *ns) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi))
        return -1;
    *ns = (uint64_t)(v * 1e9);
    return 0;
}

static int copy(char *dst, size_t cap, const char *src) {
    size_t n = strlen(src);
    if (n >= cap)
        return -1;
    memcpy(dst, src, n + 1);
    return 0;
}

int rec_run_id_valid(const char *s) {
    size_t n = 0;
    for (; s[n]; n++)
        if (s[n] <= ' ' || s[n] > '~' || s[n] == '/' || s[n] == '_')
            return 0;
    return n > 0 && n < sizeof rec_cfg.run_id;
}

/* SCOPE_DIR_MODE: octal permissions for the directories the recorder
 * creates.  The owner must keep rwx, or the recorder could not use them. */
static int parse_dir_mode(const char *s, unsigned *mode) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 8);
    if (errno || end == s || *end || *s == '-' || *s == '+' || v > 07777 || (v & 0700) != 0700)
        return -1;
    *mode = (unsigned)v;
    return 0;
}

int rec_config_from_env(rec_config *c, const char *run_dir, const char *role, char *err,
                        size_t errlen) {
    memset(c, 0, sizeof *c);
    c->frame_interval_ns = 0; /* automatic: see frame_interval() in writer.c */
    c->hist_interval_ns = 120000000000ull;
    c->sample_interval_ns = 1000000000ull;
    c->cpu_mode = REC_CPU_ADAPTIVE;
    c->dir_mode = 0755;
    c->names_max = REC_NAME_LIMIT;
    const char *v;

    if ((v = getenv("SCOPE_QUIET")) && *v && strcmp(v, "0") != 0)
        c->quiet = 1;

    /* The argument wins over the environment: a program that names its run
     * directory means it. */
    const char *dir = run_dir && *run_dir ? run_dir : getenv("SCOPE_RUN_DIR");
    if (!dir || !*dir)
        dir = "scope-run";
    if (dir[0] == '/') {
        if (copy(c->run_dir, sizeof c->run_dir, dir) < 0)
            goto too_long;
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd)) {
            snprintf(err, errlen, "cannot resolve run directory '%s': %s", dir, strerror(errno));
            return -1;
        }
        if ((size_t)snprintf(c->run_dir, sizeof c->run_dir, "%s/%s", cwd, dir) >= sizeof c->run_dir)
            goto too_long;
    }

    const char *r = role && *role ? role : getenv("SCOPE_ROLE");
    if (!r || !*r)
        r = program_invocation_short_name;
    if (!r || !*r)
        r = "unknown";
    /* A role longer than the field is cut, not refused: it is a label. */
    snprintf(c->role, sizeof c->role, "%s", r);

    if ((v = getenv("SCOPE_RUN_ID")) && *v) {
        if (!rec_run_id_valid(v)) {
            snprintf(err, errlen,
                     "SCOPE_RUN_ID='%.80s' is not a run id (printable ASCII, no space, '/' or "
                     "'_', < 64 bytes)",
                     v);
            return -1;
        }
        copy(c->run_id, sizeof c->run_id, v);
    }

    if ((v = getenv("SCOPE_FRAME_INTERVAL")) && *v &&
        parse_seconds(v, 0.05, 3600, &c->frame_interval_ns) < 0) {
        snprintf(err, errlen, "SCOPE_FRAME_INTERVAL='%s' is not a number of seconds in 0.05..3600",
                 v);
        return -1;
    }

    if ((v = getenv("SCOPE_HIST_INTERVAL")) && *v &&
        parse_seconds(v, 0, 86400, &c->hist_interval_ns) < 0) {
        snprintf(err, errlen, "SCOPE_HIST_INTERVAL='%s' is not a number of seconds in 0..86400", v);
        return -1;
    }

    /* 0 switches the sampler off; below a millisecond its own reads of
     * /proc would be most of what it measures. */
    if ((v = getenv("SCOPE_SAMPLE_INTERVAL")) && *v &&
        (parse_seconds(v, 0, 3600, &c->sample_interval_ns) < 0 ||
         (c->sample_interval_ns && c->sample_interval_ns < 1000000))) {
        snprintf(err, errlen,
                 "SCOPE_SAMPLE_INTERVAL='%s' is not 0 or a number of seconds in 0.001..3600", v);
        return -1;
    }

    if ((v = getenv("SCOPE_CPU_TIME")) && *v) {
        if (!strcmp(v, "off") || !strcmp(v, "0"))
            c->cpu_mode = REC_CPU_OFF;
        else if (!strcmp(v, "adaptive"))
            c->cpu_mode = REC_CPU_ADAPTIVE;
        else if (!strcmp(v, "always") || !strcmp(v, "1"))
            c->cpu_mode = REC_CPU_ALWAYS;
        else {
            snprintf(err, errlen, "SCOPE_CPU_TIME='%s' is not off, adaptive or always", v);
            return -1;
        }
    }
    if ((v = getenv("SCOPE_CPU_MIN_US")) && *v) {
        uint64_t ns;
        if (parse_seconds(v, 0, 1e9, &ns) < 0) {
            snprintf(err, errlen, "SCOPE_CPU_MIN_US='%s' is not a number of microseconds", v);
            return -1;
        }
        c->cpu_min_ns = ns / 1000000u; /* parsed as seconds: scale us */
        if (c->cpu_min_ns == 0 && ns)
            c->cpu_min_ns = 1;
    }
    if ((v = getenv("SCOPE_DIR_MODE")) && *v) {
        if (parse_dir_mode(v, &c->dir_mode) < 0) {
            snprintf(err, errlen,
                     "SCOPE_DIR_MODE='%.80s' is not an octal mode up to 07777 that keeps rwx for "
                     "the owner",
                     v);
            return -1;
        }
        c->dir_mode_exact = 1;
    }

    /* Absolute: a relative name would be looked up on the very search path
     * this setting exists to bypass (gpu_nvml.c). */
    if ((v = getenv("SCOPE_NVML_LIBRARY")) && *v &&
        (v[0] != '/' || copy(c->nvml_library, sizeof c->nvml_library, v) < 0)) {
        snprintf(err, errlen, "SCOPE_NVML_LIBRARY='%.80s' is not an absolute path to a library", v);
        return -1;
    }

    /* Only lower: the name table is sized for REC_NAME_LIMIT. */
    if ((v = getenv("SCOPE_NAMES_MAX")) && *v) {
        char *end;
        errno = 0;
        unsigned long n = strtoul(v, &end, 10);
        if (errno || end == v || *end || *v == '-' || *v == '+' || n < 2 || n > REC_NAME_LIMIT) {
            snprintf(err, errlen, "SCOPE_NAMES_MAX='%.80s' is not a number of names in 2..%u", v,
                     REC_NAME_LIMIT);
            return -1;
        }
        c->names_max = (uint32_t)n;
    }

    if (rec_launch_array_dir(c->run_dir, sizeof c->run_dir) < 0)
        goto too_long;
    rec_dir_mode mode = {c->dir_mode, c->dir_mode_exact};
    if (rec_run_dir_resolve(c->run_dir, sizeof c->run_dir, &mode, err, errlen) < 0)
        return -1;
    return 0;
too_long:
    snprintf(err, errlen, "run directory path too long");
    return -1;
}
