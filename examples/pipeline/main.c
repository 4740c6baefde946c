/*
 * scope-example-pipeline: a self-play training pipeline in miniature, the kind
 * of multi-process program scope is built to profile.  See README.md here.
 */
#include "pipeline.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_RUN_DIR    "example-run"
#define DEFAULT_ACTORS     4
#define DEFAULT_ITERATIONS 70 /* 12 to 15 s with 4 actors on 2 cores */
#define QUICK_ITERATIONS   10 /* 2 to 3 s */

static void usage(FILE *f) {
    fprintf(f,
            "usage: " PROG " [--run-dir RUN] [--actors N] [--iterations N] [--out DIR] [--quick]\n"
            "\n"
            "A self-play training pipeline in miniature, recorded with libscope.  One\n"
            "learner process starts N actor processes (posix_spawn) that play connect\n"
            "four against themselves with Monte Carlo tree search and send their games\n"
            "through pipes.  The learner trains a small value network on them and saves a\n"
            "checkpoint every %d iterations.  Actor i searches 1 + 0.3*i times as much per\n"
            "move as actor 0, so the actors run at unequal speed.\n"
            "\n"
            "  --run-dir RUN   record into the run directory RUN (default: " DEFAULT_RUN_DIR ")\n"
            "  --actors N      actor processes, 1 to %d (default: %d)\n"
            "  --iterations N  learner iterations, 1 to 1000000 (default: %d, 12 to 15 s\n"
            "                  with 4 actors on 2 cores)\n"
            "  --out DIR       save the checkpoint as DIR/model.ckpt, replaced each time\n"
            "                  (default: RUN-checkpoints, next to the run directory)\n"
            "  --quick         %d iterations, a run of a few seconds (--iterations wins)\n"
            "  --help          show this and exit\n"
            "\n"
            "It ends with a summary of what each process did.  Read the run with\n"
            "`scope-tui report RUN`.\n",
            CHECKPOINT_EVERY, MAX_ACTORS, DEFAULT_ACTORS, DEFAULT_ITERATIONS, QUICK_ITERATIONS);
}

__attribute__((format(printf, 1, 2), noreturn)) static void bad_usage(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, PROG ": ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (try --help)\n");
    va_end(ap);
    exit(2);
}

/* The whole of s as a decimal integer in lo..hi, or a usage error naming opt. */
static int parse_int(const char *opt, const char *s, int lo, int hi) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, PROG ": %s needs a whole number from %d to %d, not '%s' (try --help)\n",
                opt, lo, hi, s);
        exit(2);
    }
    return (int)v;
}

/* An actor's descriptor must be open: it was inherited from the learner. */
static int parse_fd(const char *opt, const char *s) {
    int fd = parse_int(opt, s, 0, INT_MAX);
    if (fcntl(fd, F_GETFD) < 0) {
        fprintf(stderr, PROG ": %s %d: %s (actors are started by the learner)\n", opt, fd,
                strerror(errno));
        exit(2);
    }
    return fd;
}

enum {
    OPT_RUN_DIR = 256,
    OPT_ACTORS,
    OPT_ITERATIONS,
    OPT_OUT,
    OPT_QUICK,
    OPT_HELP,
    OPT_ACTOR_INDEX,
    OPT_GAMES_FD,
    OPT_REQUESTS_FD
};

int main(int argc, char **argv) {
    static const struct option options[] = {
        {"run-dir", required_argument, NULL, OPT_RUN_DIR},
        {"actors", required_argument, NULL, OPT_ACTORS},
        {"iterations", required_argument, NULL, OPT_ITERATIONS},
        {"out", required_argument, NULL, OPT_OUT},
        {"quick", no_argument, NULL, OPT_QUICK},
        {"help", no_argument, NULL, OPT_HELP},
        /* Not in --help: how the learner starts an actor. */
        {"actor-index", required_argument, NULL, OPT_ACTOR_INDEX},
        {"games-fd", required_argument, NULL, OPT_GAMES_FD},
        {"requests-fd", required_argument, NULL, OPT_REQUESTS_FD},
        {NULL, 0, NULL, 0},
    };
    struct learner_options opt = {
        .argv0 = argv[0], .run_dir = DEFAULT_RUN_DIR, .actors = DEFAULT_ACTORS, .iterations = -1};
    int quick = 0, actor_index = -1, games_fd = -1, requests_fd = -1;
    char *default_out = NULL;

    /* The leading ':' and opterr = 0: our own messages, and exit status 2. */
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", options, NULL)) != -1) {
        switch (c) {
        case OPT_RUN_DIR:
            if (optarg[0] == '\0')
                bad_usage("--run-dir needs a directory");
            opt.run_dir = optarg;
            break;
        case OPT_ACTORS:
            opt.actors = parse_int("--actors", optarg, 1, MAX_ACTORS);
            break;
        case OPT_ITERATIONS:
            opt.iterations = parse_int("--iterations", optarg, 1, 1000000);
            break;
        case OPT_OUT:
            if (optarg[0] == '\0')
                bad_usage("--out needs a directory");
            opt.out_dir = optarg;
            break;
        case OPT_QUICK:
            quick = 1;
            break;
        case OPT_HELP:
            usage(stdout);
            return 0;
        case OPT_ACTOR_INDEX:
            actor_index = parse_int("--actor-index", optarg, 0, MAX_ACTORS - 1);
            break;
        case OPT_GAMES_FD:
            games_fd = parse_fd("--games-fd", optarg);
            break;
        case OPT_REQUESTS_FD:
            requests_fd = parse_fd("--requests-fd", optarg);
            break;
        case ':':
            bad_usage("%s needs a value", argv[optind - 1]);
        default:
            /* optopt names an unknown short option; argv an unknown long one. */
            if (optopt != 0)
                bad_usage("unknown option -%c", optopt);
            bad_usage("unknown option %s", argv[optind - 1]);
        }
    }
    if (optind < argc)
        bad_usage("unexpected argument '%s'", argv[optind]);

    if (actor_index >= 0 || games_fd >= 0 || requests_fd >= 0) {
        if (actor_index < 0 || games_fd < 0 || requests_fd < 0)
            bad_usage("an actor needs --actor-index, --games-fd and --requests-fd");
        return actor_main(actor_index, games_fd, requests_fd, opt.out_dir);
    }

    if (opt.iterations < 0)
        opt.iterations = quick ? QUICK_ITERATIONS : DEFAULT_ITERATIONS;
    if (!opt.out_dir) {
        size_t n = strlen(opt.run_dir);
        while (n > 1 && opt.run_dir[n - 1] == '/') /* "run/" gives run-checkpoints */
            n--;
        default_out = malloc(n + sizeof "-checkpoints");
        if (!default_out) {
            fprintf(stderr, PROG ": out of memory\n");
            return 1;
        }
        snprintf(default_out, n + sizeof "-checkpoints", "%.*s-checkpoints", (int)n, opt.run_dir);
        opt.out_dir = default_out;
    }
    int status = learner_main(&opt);
    free(default_out);
    return status;
}
