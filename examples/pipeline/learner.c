/* The learner: starts the actors, trains on their games, checkpoints, stops them. */
#define _GNU_SOURCE /* pipe2, environ */
#include "pipeline.h"

#include "checkpoint.h"
#include "model.h"
#include "rng.h"
#include "wire.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <scope/scope.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Requests an actor may have outstanding: with two, it plays its next game
 * while the learner trains on its last one. */
#define GAMES_IN_FLIGHT 2
/* Positions drawn from the replay buffer for one training step. */
#define TRAIN_BATCH     8192
#define LEARNING_RATE   0.005f
#define REPLAY_CAPACITY 65536 /* samples: about 2.9 MB, most of a checkpoint */

struct actor_proc {
    pid_t pid;
    int games_fd;     /* read end of its games pipe */
    int requests_fd;  /* write end of its requests pipe, -1 once closed */
    int requested;    /* games asked of it so far */
    int reported;     /* its WIRE_DONE arrived */
    wire_done totals; /* what it says it did */
};

struct learner {
    const struct learner_options *opt;
    struct actor_proc actor[MAX_ACTORS];
    int nactors;
    sample *replay;
    size_t replay_len, replay_next;
    model model;
    uint64_t rng;
    uint64_t samples_trained;
    int64_t bytes_checkpointed;
    int checkpoints;
    float loss;
};

/* Runs this executable again as actor `index`.  Its two pipe ends are the
 * only descriptors it inherits: everything here is opened close-on-exec, and
 * a posix_spawn dup2 of a descriptor onto itself clears that flag in the
 * child only. */
static int spawn_actor(struct learner *l, int index) {
    int games[2], requests[2];
    if (pipe2(games, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(requests, O_CLOEXEC) != 0) {
        int saved = errno;
        close(games[0]);
        close(games[1]);
        errno = saved;
        return -1;
    }
    char idx[16], games_fd[16], requests_fd[16];
    snprintf(idx, sizeof idx, "%d", index);
    snprintf(games_fd, sizeof games_fd, "%d", games[1]);
    snprintf(requests_fd, sizeof requests_fd, "%d", requests[0]);
    char *argv[] = {(char *)l->opt->argv0,
                    "--actor-index",
                    idx,
                    "--games-fd",
                    games_fd,
                    "--requests-fd",
                    requests_fd,
                    "--out",
                    (char *)l->opt->out_dir,
                    NULL};

    posix_spawn_file_actions_t fa;
    pid_t pid;
    int err = posix_spawn_file_actions_init(&fa);
    if (err == 0) {
        err = posix_spawn_file_actions_adddup2(&fa, games[1], games[1]);
        if (err == 0)
            err = posix_spawn_file_actions_adddup2(&fa, requests[0], requests[0]);
        /* environ carries SCOPE_PROFILE, SCOPE_RUN_DIR and SCOPE_RUN_ID, which
         * scope_init exported: that is how the actors join this run. */
        if (err == 0)
            err = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
    }
    /* The actor's ends.  With them closed here, an actor's exit reads as end
     * of file, and closing requests_fd is the only stop signal it needs. */
    close(games[1]);
    close(requests[0]);
    if (err != 0) {
        close(games[0]);
        close(requests[1]);
        errno = err;
        return -1;
    }
    l->actor[l->nactors++] =
        (struct actor_proc){.pid = pid, .games_fd = games[0], .requests_fd = requests[1]};
    return 0;
}

/* Asks actor i for its next game, unless it has been asked for as many as
 * the iterations need: every actor plays exactly that many, so the counts of
 * a run are the same from one run to the next. */
static int request_game(struct learner *l, int i) {
    struct actor_proc *a = &l->actor[i];
    if (a->requested >= l->opt->iterations)
        return 0;
    if (wire_send_request(a->requests_fd) != 0) {
        fprintf(stderr, PROG ": cannot send a request to actor %d (pid %d): %s\n", i, (int)a->pid,
                strerror(errno));
        return -1;
    }
    a->requested++;
    return 0;
}

static int start_actors(struct learner *l) {
    for (int i = 0; i < l->opt->actors; i++) {
        if (spawn_actor(l, i) != 0) {
            fprintf(stderr, PROG ": cannot start actor %d: %s\n", i, strerror(errno));
            return -1;
        }
        for (int k = 0; k < GAMES_IN_FLIGHT; k++)
            if (request_game(l, i) != 0)
                return -1;
    }
    return 0;
}

static void add_game(struct learner *l, const wire_game *g) {
    for (int k = 0; k < g->plies; k++) {
        sample *s = &l->replay[l->replay_next];
        memcpy(s->cell, g->position[k], GAME_CELLS);
        s->to_move = (uint8_t)(1 + k % 2); /* player 1 moves first */
        s->result = (int8_t)(g->winner == 0 ? 0 : g->winner == s->to_move ? 1 : -1);
        l->replay_next = (l->replay_next + 1) % REPLAY_CAPACITY;
        if (l->replay_len < REPLAY_CAPACITY)
            l->replay_len++;
    }
}

/* type: what wire_recv returned instead of a game. */
static void report_lost_actor(const struct learner *l, int i, int type) {
    const struct actor_proc *a = &l->actor[i];
    if (type == 0)
        fprintf(stderr, PROG ": actor %d (pid %d) exited before the learner was done\n", i,
                (int)a->pid);
    else if (type < 0)
        fprintf(stderr, PROG ": cannot read from actor %d (pid %d): %s\n", i, (int)a->pid,
                strerror(errno));
    else
        fprintf(stderr, PROG ": actor %d (pid %d) stopped on its own\n", i, (int)a->pid);
}

/* Waits until every actor has delivered its next game, and asks each one
 * for another as its game arrives.  The slowest actor sets the pace.
 * Returns the positions received, or -1 when an actor is lost. */
static int load_batch(struct learner *l) {
    struct pollfd pfd[MAX_ACTORS];
    int waiting[MAX_ACTORS], nwaiting = l->nactors, got = 0;
    for (int i = 0; i < l->nactors; i++)
        waiting[i] = i;
    while (nwaiting > 0) {
        for (int k = 0; k < nwaiting; k++)
            pfd[k] = (struct pollfd){.fd = l->actor[waiting[k]].games_fd, .events = POLLIN};
        if (poll(pfd, (nfds_t)nwaiting, -1) < 0) {
            if (errno == EINTR)
                continue;
            perror(PROG ": poll");
            return -1;
        }
        int still = 0;
        for (int k = 0; k < nwaiting; k++) {
            int i = waiting[k];
            if (pfd[k].revents == 0) {
                waiting[still++] = i;
                continue;
            }
            wire_msg m;
            int type = wire_recv(pfd[k].fd, &m);
            if (type != WIRE_GAME) {
                report_lost_actor(l, i, type);
                return -1;
            }
            add_game(l, &m.u.game);
            got += m.u.game.plies;
            if (request_game(l, i) != 0)
                return -1;
        }
        nwaiting = still;
    }
    return got;
}

/* One pass of stochastic gradient descent over a batch drawn from the replay buffer. */
static float train(struct learner *l) {
    float loss = 0.0f;
    for (int k = 0; k < TRAIN_BATCH; k++) {
        const sample *s = &l->replay[rng_below(&l->rng, (uint32_t)l->replay_len)];
        loss += model_sgd_step(&l->model, s, LEARNING_RATE);
    }
    return loss / TRAIN_BATCH;
}

static int checkpoint(struct learner *l, int iteration) {
    int64_t n = checkpoint_save(l->opt->out_dir, iteration, &l->model, l->replay, REPLAY_CAPACITY);
    if (n < 0) {
        fprintf(stderr, PROG ": cannot save a checkpoint in %s: %s\n", l->opt->out_dir,
                strerror(errno));
        return -1;
    }
    SCOPE_COUNT("bytes_checkpointed", n);
    l->bytes_checkpointed += n;
    l->checkpoints++;
    printf("iteration %d/%d: loss %.3f, checkpoint of %.1f MB saved\n", iteration,
           l->opt->iterations, l->loss, (double)n / 1e6);
    fflush(stdout);
    return 0;
}

static int train_loop(struct learner *l) {
    int failed = 0;
    for (int it = 1; it <= l->opt->iterations && !failed; it++) {
        SCOPE_PHASE("iteration") {
            int got = -1;
            SCOPE_PHASE("load_batch") {
                got = load_batch(l);
                SCOPE_COUNT("positions_received", got < 0 ? 0 : got);
            }
            if (got < 0) {
                failed = 1;
            } else {
                SCOPE_PHASE("train") {
                    l->loss = train(l);
                    SCOPE_COUNT("samples_trained", TRAIN_BATCH);
                }
                l->samples_trained += TRAIN_BATCH;
                if (it % CHECKPOINT_EVERY == 0 || it == l->opt->iterations) {
                    SCOPE_PHASE_IO("checkpoint") {
                        failed = checkpoint(l, it) != 0;
                    }
                }
            }
        }
    }
    return failed ? -1 : 0;
}

/* Closes every requests pipe, which tells the actors to stop, reads what
 * they still send until each one closes its end, and waits for them.
 * Returns 0 when all reported and exited 0. */
static int stop_actors(struct learner *l) {
    int rc = 0;
    for (int i = 0; i < l->nactors; i++) {
        close(l->actor[i].requests_fd);
        l->actor[i].requests_fd = -1;
    }
    for (int i = 0; i < l->nactors; i++) {
        struct actor_proc *a = &l->actor[i];
        /* After a full run only the totals come.  After a failure, games
         * still in flight come too, and are dropped. */
        for (;;) {
            wire_msg m;
            int type = wire_recv(a->games_fd, &m);
            if (type == WIRE_DONE) {
                a->totals = m.u.done;
                a->reported = 1;
            } else if (type != WIRE_GAME) {
                if (type < 0) {
                    report_lost_actor(l, i, type);
                    rc = -1;
                }
                break;
            }
        }
        close(a->games_fd);

        int status;
        while (waitpid(a->pid, &status, 0) < 0) {
            if (errno != EINTR) {
                fprintf(stderr, PROG ": waitpid of actor %d: %s\n", i, strerror(errno));
                return -1;
            }
        }
        if (WIFSIGNALED(status)) {
            fprintf(stderr, PROG ": actor %d (pid %d) was killed by signal %d\n", i, (int)a->pid,
                    WTERMSIG(status));
            rc = -1;
        } else if (WEXITSTATUS(status) != 0) {
            fprintf(stderr, PROG ": actor %d (pid %d) exited with status %d\n", i, (int)a->pid,
                    WEXITSTATUS(status));
            rc = -1;
        } else if (!a->reported) {
            fprintf(stderr, PROG ": actor %d (pid %d) exited without its totals\n", i, (int)a->pid);
            rc = -1;
        }
    }
    return rc;
}

/* What the run did, for the user and for the test that compares it with the logs. */
static void print_summary(const struct learner *l, int recording) {
    printf("learner: %d iterations, %" PRIu64 " samples_trained, %d checkpoints, %" PRId64
           " bytes_checkpointed\n",
           l->opt->iterations, l->samples_trained, l->checkpoints, l->bytes_checkpointed);
    wire_done sum = {0};
    for (int i = 0; i < l->nactors; i++) {
        const wire_done *t = &l->actor[i].totals;
        printf("actor %d (pid %d): %d simulations per move, %" PRIu64 " games, %" PRIu64
               " positions, %" PRIu64 " mcts_simulations\n",
               i, (int)l->actor[i].pid, actor_sims_per_move(i), t->games, t->positions,
               t->mcts_simulations);
        sum.games += t->games;
        sum.positions += t->positions;
        sum.mcts_simulations += t->mcts_simulations;
    }
    printf("actors: %d, %" PRIu64 " games, %" PRIu64 " positions, %" PRIu64 " mcts_simulations\n",
           l->nactors, sum.games, sum.positions, sum.mcts_simulations);
    printf("checkpoint: %s/%s\n", l->opt->out_dir, CHECKPOINT_FILE);
    if (recording)
        printf("recorded: run %s in %s\n", getenv("SCOPE_RUN_ID"), getenv("SCOPE_RUN_DIR"));
    else
        printf("recorded: nothing (recording is off)\n");
}

int learner_main(const struct learner_options *opt) {
    /* An actor that died shows up as EPIPE from a request's write, reported,
     * rather than as the learner's silent death by SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);
    /* Before recording starts, so that a bad --out leaves no run behind. */
    if (checkpoint_make_dir(opt->out_dir) != 0) {
        fprintf(stderr, PROG ": cannot create the checkpoint directory %s: %s\n", opt->out_dir,
                strerror(errno));
        return 1;
    }
    int recording = 0;
    if (scope_init(opt->run_dir, "learner") != 0) {
        fprintf(stderr, PROG ": not recording; running anyway\n");
        /* Nor should the actors, which would start runs of their own elsewhere. */
        setenv("SCOPE_PROFILE", "0", 1);
    } else {
        /* scope_init also returns 0 when SCOPE_PROFILE=0 turned recording off;
         * only a recording process exports SCOPE_PROFILE=1 and SCOPE_RUN_ID. */
        const char *profile = getenv("SCOPE_PROFILE");
        recording = profile && strcmp(profile, "1") == 0 && getenv("SCOPE_RUN_ID");
    }
    struct learner *l = calloc(1, sizeof *l);
    sample *replay = calloc(REPLAY_CAPACITY, sizeof *replay);
    if (!l || !replay) {
        fprintf(stderr, PROG ": out of memory\n");
        free(l);
        free(replay);
        return 1;
    }
    l->opt = opt;
    l->replay = replay;
    l->rng = 0x1ea4e4;
    model_init(&l->model, 0x30de1);

    int ok = start_actors(l) == 0 && train_loop(l) == 0;
    ok = stop_actors(l) == 0 && ok;
    if (ok)
        print_summary(l, recording);
    free(replay);
    free(l);
    return ok ? 0 : 1;
}
