/* Connect four on the usual 7 x 6 board: the environment the actors play. */
#ifndef PIPELINE_GAME_H
#define PIPELINE_GAME_H

#include <stdint.h>

#define GAME_COLS  7
#define GAME_ROWS  6
#define GAME_CELLS (GAME_COLS * GAME_ROWS)

typedef struct game {
    uint8_t cell[GAME_CELLS]; /* row * GAME_COLS + col, row 0 at the bottom; 0 empty, else 1 or 2 */
    uint8_t height[GAME_COLS]; /* discs in each column */
    uint8_t to_move;           /* 1 or 2 */
    uint8_t plies;             /* moves played */
    uint8_t winner;            /* the player who connected four; 0 while nobody has */
} game;

void game_init(game *g);

/* Nonzero once someone has won or the board is full (a draw). */
int game_over(const game *g);

/* Fills moves with the columns that still have room; returns how many. */
int game_legal_moves(const game *g, uint8_t moves[GAME_COLS]);

/* Drops the mover's disc into column col, which must have room. */
void game_play(game *g, int col);

#endif
