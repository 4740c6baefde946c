/*
 * The two roles of scope-example-pipeline and the work sizes they share.
 *
 * One learner process starts N actor processes (the same executable, run with
 * hidden arguments).  Actors play connect four against themselves with Monte
 * Carlo tree search, one game per request of the learner, and send each
 * finished game back through a pipe; the learner takes one game from every
 * actor per iteration into a replay buffer, trains a small value network on
 * it and checkpoints it to disk.
 */
#ifndef PIPELINE_H
#define PIPELINE_H

/* Simulations per move of actor 0.  Actor i runs (10 + 3i) / 10 times as many,
 * so the actors are of unequal speed: the learner waits for the slowest, and
 * the others wait for the learner. */
#define ACTOR_BASE_SIMS 3000

#define MAX_ACTORS 64

/* The learner saves a checkpoint every this many iterations, and after the last. */
#define CHECKPOINT_EVERY 10

/* The prefix of every message. */
#define PROG "scope-example-pipeline"

struct learner_options {
    const char *argv0; /* the actors' argv[0] */
    const char *run_dir;
    const char *out_dir;
    int actors;
    int iterations;
};

/* The learner's whole life: records as role "learner", starts the actors,
 * trains, stops them.  Returns the process's exit status. */
int learner_main(const struct learner_options *opt);

/* An actor's whole life: plays one game per request read from requests_fd
 * and sends it through games_fd, until the learner closes its requests pipe,
 * reloading the learner's newest network from out_dir (NULL: none) before
 * each game.  Returns the exit status. */
int actor_main(int index, int games_fd, int requests_fd, const char *out_dir);

/* Simulations per move of actor `index`. */
static inline int actor_sims_per_move(int index) {
    return ACTOR_BASE_SIMS * (10 + 3 * index) / 10;
}

#endif
