/* What the run-reading commands share; see cmd_util.h and commands.h. */
#define _GNU_SOURCE /* mkostemp */
#include "cmd_util.h"

#include "text_escape.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void cmd_bad_option(const char *cmd, int c, char **argv) {
    /* getopt_long has already stepped past the offending argument; a short
     * option may sit in a cluster ("-jq"), so it is named on its own. */
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    char opt[3] = {'-', (char)optopt, '\0'};
    if (optopt && strncmp(arg, "--", 2) != 0)
        arg = opt;
    fprintf(stderr, "scope-tui %s: %s'", cmd, c == ':' ? "option " : "unknown option ");
    scope_fput_escaped(stderr, (const uint8_t *)arg, strlen(arg), 0);
    fprintf(stderr, "'%s (see 'scope-tui %s --help')\n", c == ':' ? " needs a value" : "", cmd);
}

int cmd_one_run(const char *cmd, int nargs, const char *synopsis) {
    if (nargs == 1)
        return 1;
    if (nargs < 1)
        fprintf(stderr, "scope-tui %s: which run? (%s)\n", cmd, synopsis);
    else
        fprintf(stderr, "scope-tui %s: one run at a time\n", cmd);
    return 0;
}

int cmd_parse_attempt(const char *cmd, const char *arg, run_options *opt) {
    char *end;
    errno = 0;
    unsigned long long n = strtoull(arg, &end, 10);
    if (errno || end == arg || *end || arg[0] == '-' || n < 1 || n > 1000000) {
        fprintf(stderr, "scope-tui %s: --attempt wants a number from 1 (the oldest attempt)\n",
                cmd);
        return -1;
    }
    opt->attempt = (size_t)n;
    return 0;
}

void cmd_say_attempt(FILE *f, const run_model *m) {
    if (m->nattempts < 2)
        return;
    fprintf(f, "Attempt %zu of %zu shown (%s; --attempt N shows another, 1 the oldest)\n",
            m->shown_attempt + 1, m->nattempts,
            m->shown_attempt + 1 == m->nattempts ? "the newest" : "chosen");
}

run_model *cmd_load_run(const char *cmd, const char *dir, const run_options *opt) {
    char msg[1024];
    run_model *m = NULL;
    if (run_load(dir, opt, &m, msg, sizeof msg) != RUN_OK) {
        fprintf(stderr, "scope-tui %s: %s\n", cmd, msg);
        return NULL;
    }
    return m;
}
