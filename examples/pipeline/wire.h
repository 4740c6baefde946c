/*
 * The pipe protocol between the learner and an actor: two pipes per actor.
 *
 * Requests, learner to actor: one byte per game wanted.  End of file means
 * stop.  The learner keeps at most a few requests outstanding, so a fast
 * actor waits for the learner instead of running ahead of it.
 *
 * Games, actor to learner: messages of a header (type, payload length, both
 * uint32) and a payload:
 *
 *   WIRE_GAME  one finished game: plies, winner, then the move of each ply and
 *              the board before it
 *   WIRE_DONE  the actor's totals, its last message before it exits
 *
 * Both ends are the same executable on the same machine, so integers travel
 * in the machine's own byte order.
 */
#ifndef PIPELINE_WIRE_H
#define PIPELINE_WIRE_H

#include "game.h"

#include <stdint.h>

enum wire_type { WIRE_GAME = 1, WIRE_DONE = 2 };

typedef struct wire_game {
    uint8_t plies;
    uint8_t winner; /* 0: a draw */
    uint8_t move[GAME_CELLS];
    uint8_t position[GAME_CELLS][GAME_CELLS]; /* the board before each move */
} wire_game;

typedef struct wire_done {
    uint64_t games;
    uint64_t positions;
    uint64_t mcts_simulations;
} wire_done;

typedef struct wire_msg {
    uint32_t type;
    union {
        wire_game game;
        wire_done done;
    } u;
} wire_msg;

/* Return 0, or -1 with errno set (EPIPE: the other end is gone). */
int wire_send_request(int fd);
int wire_send_game(int fd, const wire_game *g);
int wire_send_done(int fd, const wire_done *d);

/* Waits for a request.  Returns 1 for a request, 0 for stop (end of file),
 * -1 with errno set on an error. */
int wire_recv_request(int fd);

/* Reads one message into m.  Returns its type; 0 at end of file between
 * messages (the actor closed its end); -1 with errno set on a read error, or
 * EPROTO for a malformed message or one cut short. */
int wire_recv(int fd, wire_msg *m);

#endif
