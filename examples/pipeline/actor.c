/* An actor: self-play games with tree search, each sent to the learner. */
#include "pipeline.h"

#include "checkpoint.h"
#include "game.h"
#include "mcts.h"
#include "wire.h"

#include <errno.h>
#include <scope/scope.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The first moves are drawn in proportion to the search's visits, not the
 * best one, so that an actor does not play the same game over and over. */
#define EXPLORE_PLIES 8

/* One game against itself, recorded into out. */
static void self_play(mcts *tree, int sims, wire_game *out, wire_done *totals) {
    game g;
    game_init(&g);
    while (!game_over(&g)) {
        int move = -1;
        SCOPE_PHASE("mcts") {
            move = mcts_search(tree, &g, sims, g.plies < EXPLORE_PLIES);
            SCOPE_COUNT("mcts_simulations", sims);
        }
        SCOPE_PHASE("env_step") {
            memcpy(out->position[g.plies], g.cell, GAME_CELLS);
            out->move[g.plies] = (uint8_t)move;
            game_play(&g, move);
        }
        totals->mcts_simulations += (uint64_t)sims;
    }
    out->plies = g.plies;
    out->winner = g.winner;
    totals->games++;
    totals->positions += g.plies;
    SCOPE_COUNT("games", 1);
    SCOPE_COUNT("positions", g.plies);
}

/* The learner's newest network, read from its checkpoint before each game,
 * as the actors of a real pipeline refresh their weights.  Here the search
 * plays random playouts and does not consult it. */
static void load_weights(const char *out_dir, model *weights, int index) {
    if (!out_dir)
        return;
    int rc = checkpoint_load_model(out_dir, weights);
    if (rc > 0)
        SCOPE_COUNT("weights_loaded", 1);
    else if (rc < 0)
        fprintf(stderr, PROG ": actor %d: cannot read the checkpoint in %s: %s\n", index, out_dir,
                strerror(errno));
}

int actor_main(int index, int games_fd, int requests_fd, const char *out_dir) {
    /* A learner that went away shows up as EPIPE from write, reported below,
     * rather than as a silent death by SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);
    /* The run directory and run id come from the environment the learner's
     * recorder exported; the role is this process's own.  Should recording
     * fail to start, the recorder says so and the actor plays on unrecorded. */
    scope_init(NULL, "actor");

    int sims = actor_sims_per_move(index);
    mcts tree;
    if (mcts_init(&tree, sims, 0x5eed0000u + (uint64_t)index) != 0) {
        fprintf(stderr, PROG ": actor %d: out of memory for a search tree of %d nodes\n", index,
                sims + 1);
        return 1;
    }
    wire_done totals = {0};
    static model weights;
    int failed = 0, request = 0;
    /* Waiting here for a request is outside every phase: an actor faster
     * than the slowest one spends the difference idle. */
    while (!failed && (request = wire_recv_request(requests_fd)) > 0) {
        SCOPE_PHASE("iteration") {
            wire_game traj;
            SCOPE_PHASE_IO("load_weights") {
                load_weights(out_dir, &weights, index);
            }
            SCOPE_PHASE("self_play") {
                self_play(&tree, sims, &traj, &totals);
            }
            if (wire_send_game(games_fd, &traj) != 0) {
                fprintf(stderr, PROG ": actor %d: cannot send a game to the learner: %s\n", index,
                        strerror(errno));
                failed = 1;
            }
        }
    }
    if (!failed && request < 0) {
        fprintf(stderr, PROG ": actor %d: cannot read the learner's requests: %s\n", index,
                strerror(errno));
        failed = 1;
    }
    if (!failed && wire_send_done(games_fd, &totals) != 0) {
        fprintf(stderr, PROG ": actor %d: cannot send totals to the learner: %s\n", index,
                strerror(errno));
        failed = 1;
    }
    close(games_fd);
    close(requests_fd);
    mcts_free(&tree);
    return failed;
}
