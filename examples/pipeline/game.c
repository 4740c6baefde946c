#include "game.h"

#include <string.h>

void game_init(game *g) {
    memset(g, 0, sizeof *g);
    g->to_move = 1;
}

int game_over(const game *g) {
    return g->winner != 0 || g->plies == GAME_CELLS;
}

int game_legal_moves(const game *g, uint8_t moves[GAME_COLS]) {
    int n = 0;
    for (int col = 0; col < GAME_COLS; col++)
        if (g->height[col] < GAME_ROWS)
            moves[n++] = (uint8_t)col;
    return n;
}

/* Discs of player p in a row from (row, col), not counting it, going (dr, dc). */
static int run_length(const game *g, int row, int col, int dr, int dc, uint8_t p) {
    int n = 0;
    for (int r = row + dr, c = col + dc;
         r >= 0 && r < GAME_ROWS && c >= 0 && c < GAME_COLS && g->cell[r * GAME_COLS + c] == p;
         r += dr, c += dc)
        n++;
    return n;
}

/* Only lines through the new disc can be new fours, so only those are checked. */
static int connects_four(const game *g, int row, int col, uint8_t p) {
    static const int dir[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    for (int d = 0; d < 4; d++) {
        int dr = dir[d][0], dc = dir[d][1];
        if (1 + run_length(g, row, col, dr, dc, p) + run_length(g, row, col, -dr, -dc, p) >= 4)
            return 1;
    }
    return 0;
}

void game_play(game *g, int col) {
    int row = g->height[col]++;
    uint8_t p = g->to_move;
    g->cell[row * GAME_COLS + col] = p;
    g->plies++;
    if (connects_four(g, row, col, p))
        g->winner = p;
    g->to_move = (uint8_t)(3 - p);
}
